"""Each advice rule (gpusim/html/advice.py) fires on a kernel built to trigger it and stays quiet on one
built not to, and names the right line."""
import pytest
from kernels import launch_branch, launch_copy, launch_fma, launch_shared

from gpusim.html import advice
from gpusim.html.lines import ptx_rows


def _rules(r, rule):
    return [a for a in advice.advise(r) if a.rule == rule]


def test_uncoalesced_loads_named_with_their_sectors_per_request():
    found = _rules(launch_copy(strided=True), "uncoalesced")
    assert len(found) == 1
    assert "uncoalesced global loads" in found[0].title and "ideal 4" in found[0].title
    assert "32.0 sectors per request" in found[0].title       # 8-word stride: every lane its own sector


def test_coalesced_copy_gets_no_coalescing_advice():
    assert _rules(launch_copy(strided=False), "uncoalesced") == []


def test_bank_conflicts_named_k_way_at_their_line():
    r = launch_shared(stride=32)
    found = _rules(r, "bank_conflicts")
    assert found and all("32.0-way" in a.title for a in found)
    rows = {row["ptx_line"]: row for row in ptx_rows(r)}
    assert all(rows[a.ptx_line]["bank_conflicts"] > 0 for a in found)


def test_conflict_free_shared_access_gets_no_bank_advice():
    assert _rules(launch_shared(stride=1), "bank_conflicts") == []


def test_divergent_branch_named_at_the_branch():
    r = launch_branch(divergent=True)
    found = _rules(r, "divergence")
    assert len(found) == 1
    assert "bra" in next(row["text"] for row in ptx_rows(r) if row["ptx_line"] == found[0].ptx_line)


def test_uniform_bounds_check_is_not_divergence():
    assert _rules(launch_branch(divergent=False), "divergence") == []


def test_long_scoreboard_dominates_a_memory_copy():
    found = _rules(launch_copy(strided=True), "stall")
    assert len(found) == 1 and found[0].title.startswith("long_scoreboard dominates")


def test_register_only_loop_is_not_long_scoreboard_bound():
    assert not any(a.title.startswith("long_scoreboard") for a in _rules(launch_fma(), "stall"))


def test_no_dominant_stall_when_reasons_are_balanced():
    rows = [{"stalls": {"long_scoreboard": 30, "barrier": 30, "wait": 30, "selected": 500}, "text": "x",
             "ptx_line": 1}]
    assert advice.dominant_stall(None, rows) == []
    rows[0]["stalls"]["barrier"] = 61      # 61 of 121 stall cycles: over DOMINANT_SHARE
    assert advice.dominant_stall(None, rows)[0].title.startswith("barrier dominates")


def test_occupancy_limited_by_registers():
    found = _rules(launch_fma(regs_per_thread=128), "occupancy")
    assert len(found) == 1 and "limited by registers (128 per thread)" in found[0].title


def test_full_occupancy_gets_no_occupancy_advice():
    assert _rules(launch_fma(block=128), "occupancy") == []      # 4 CTAs x 4 warps fill tiny's 16 warps


def test_small_blocks_limited_by_the_resident_block_limit():
    found = _rules(launch_fma(block=64), "occupancy")           # 4 CTAs x 2 warps: half of 16
    assert len(found) == 1 and "resident-blocks limit" in found[0].title and "50%" in found[0].title


@pytest.mark.parametrize("grid,fires", [(9, True), (16, False), (8, False)])
def test_tail_effect_when_the_last_wave_is_mostly_empty(grid, fires):
    # tiny: 2 SMs x 4 CTAs of 4 warps = 8 CTAs a wave; 9 CTAs leave the second wave 1/8 full
    found = _rules(launch_fma(n_iter=4, grid=grid, block=128), "tail")
    assert bool(found) == fires
    if fires:
        assert "last wave 12% full" in found[0].title


def test_functional_mode_gets_no_advice():
    import numpy as np
    from kernels import copy

    import gpusim
    r = gpusim.launch(copy, 1, 32, np.ones(32, np.float32), np.zeros(32, np.float32), gpu="tiny", mode="functional")
    assert advice.advise(r) == []


def test_per_line_rules_name_the_costliest_lines_then_count_the_rest():
    rows = [{"pc": i, "ptx_line": 10 + i, "file": None, "text": "ld.global.f32 %f1, [%rd1];", "warp": 10,
             "thread": 320, "requests": 10, "sectors": 80 * (i + 1)} for i in range(advice.MAX_LINES + 3)]
    found = advice.uncoalesced(None, rows)
    assert [a.ptx_line for a in found[:advice.MAX_LINES]] == [10 + i for i in range(advice.MAX_LINES + 2, 2, -1)]
    assert found[-1].severity == "info" and "3 more lines" in found[-1].title
