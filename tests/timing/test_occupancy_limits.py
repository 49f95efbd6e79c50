"""Occupancy limits: for each limiter (blocks, warps/threads, registers, shared memory) a launch
shape where it binds, with the CTAs per SM every resource allows (ncu's launch__occupancy_limit_*),
and what binding does to residency. The arithmetic is checked on `occupancy` directly; a few
launches on the tiny preset check that the limit reaches the metrics and the schedule.
tests/timing/test_timing_properties.py checks only which limiter binds on h100 launches."""
import numpy as np
import pytest
from numba import cuda

import gpusim
from gpusim.errors import LaunchError
from gpusim.presets import H100, TINY
from gpusim.timing.occupancy import occupancy

# tiny: 512 threads, 16 warps, 4 CTAs, 16384 registers (256 per warp at a time), 16 KB shared
# memory (+1 KB reserved per CTA, 128-B granularity) per SM; 2 SMs


def limits(occ):
    return (occ.limits["blocks"], occ.limits["warps"], occ.limits["registers"], occ.limits["shared_mem"])


def test_blocks_limit_binds_for_small_blocks():
    occ = occupancy(TINY, 32, 16, 0, 8)
    assert occ.limiter == "blocks"
    assert occ.ctas_per_sm == 4
    # blocks, warps (16 / 1), registers (16384 / 512 per warp), shared memory (none used: no limit)
    assert limits(occ) == (4, 16, 32, 4)
    assert occ.waves == pytest.approx(8 / (4 * 2))
    assert occ.theoretical_pct == pytest.approx(100.0 * 4 / 16)


def test_warps_limit_binds_for_large_blocks():
    occ = occupancy(TINY, 256, 16, 0, 4)
    assert (occ.limiter, occ.ctas_per_sm) == ("warps", 2)
    assert limits(occ) == (4, 2, 4, 4)
    assert occ.theoretical_pct == pytest.approx(100.0)


def test_threads_per_sm_bind_even_when_warp_slots_would_allow_more():
    # the audit's case: 1024-thread blocks on an SM of 1024 threads (but 64 warp slots) fit once
    spec = H100.with_(**{"sm.max_threads": 1024})
    occ = occupancy(spec, 1024, 32, 0, 132)
    assert (occ.limiter, occ.ctas_per_sm) == ("warps", 1)
    assert occ.limits["warps"] == 1
    assert occupancy(H100, 1024, 32, 0, 132).ctas_per_sm == 2
    assert occ.theoretical_pct == pytest.approx(50.0)
    assert occ.waves == pytest.approx(1.0)


def test_threads_limit_counts_whole_warps():
    spec = TINY.with_(**{"sm.max_threads": 384})
    # 65 threads hold 3 warps = 96 thread slots: 384 / 96 = 4 (not 384 // 65 = 5; warps allow 16 // 3 = 5)
    occ = occupancy(spec, 65, 16, 0, 8)
    assert occ.limits["warps"] == 4
    assert (occ.limiter, occ.ctas_per_sm) in (("blocks", 4), ("warps", 4))
    occ = occupancy(spec, 96, 16, 0, 8)
    assert (occ.limiter, occ.ctas_per_sm) == ("warps", 4)


def test_registers_limit_binds_for_register_heavy_kernels():
    occ = occupancy(TINY, 128, 64, 0, 8)
    # 64 x 32 = 2048 registers per warp, 4 warps per CTA: 16384 / 8192 = 2
    assert (occ.limiter, occ.ctas_per_sm) == ("registers", 2)
    assert limits(occ) == (4, 4, 2, 4)
    assert occ.regs_per_thread == 64
    assert occ.waves == pytest.approx(8 / (2 * 2))


def test_registers_are_allocated_per_warp_in_units():
    # 33 registers x 32 lanes = 1056, allocated as 1280 per warp: 65536 / (1280 x 8 warps) = 6 (not 7)
    occ = occupancy(H100, 256, 33, 0, 132)
    assert (occ.limiter, occ.ctas_per_sm) == ("registers", 6)
    assert occupancy(H100, 256, 32, 0, 132).limits["registers"] == 8


def test_shared_memory_limit_binds_and_counts_the_reservation():
    occ = occupancy(TINY, 32, 16, 5000, 8)
    # 5000 B + 1024 reserved, rounded up to 128 B = 6144: 16384 / 6144 = 2
    assert occ.smem_per_cta == 6144
    assert (occ.limiter, occ.ctas_per_sm) == ("shared_mem", 2)
    assert limits(occ) == (4, 16, 32, 2)


def test_ties_name_one_limiter_in_a_fixed_order():
    # warps before blocks before registers before shared memory
    occ = occupancy(TINY, 128, 16, 0, 8)       # warps 16 / 4 = 4, blocks 4
    assert limits(occ) == (4, 4, 8, 4) and (occ.limiter, occ.ctas_per_sm) == ("warps", 4)
    occ = occupancy(TINY, 32, 128, 0, 8)       # blocks 4, registers 16384 / 4096 = 4
    assert limits(occ) == (4, 16, 4, 4) and (occ.limiter, occ.ctas_per_sm) == ("blocks", 4)
    occ = occupancy(TINY, 64, 128, 5000, 8)    # registers 16384 / 8192 = 2, shared memory 16384 / 6144 = 2
    assert limits(occ) == (4, 8, 2, 2) and (occ.limiter, occ.ctas_per_sm) == ("registers", 2)


# ------------------------------------------------------------------ launches: the limit binds in the run
@cuda.jit
def chain(x, n):
    i = cuda.grid(1)
    acc = x[i]
    for _ in range(n):
        acc = acc * 1.0001 + 0.5
    x[i] = acc


def _run(spec, grid, block, n=100, **kw):
    x = np.ones(grid * block, np.float32)
    return gpusim.launch(chain, grid, block, x, np.int64(n), gpu=spec, mode="timing", **kw)


def test_threads_limit_halves_residency_and_doubles_the_waves():
    full = _run(TINY, 4, 256)                                        # 2 CTAs of 8 warps per SM
    half = _run(TINY.with_(**{"sm.max_threads": 256}), 4, 256)      # 1 CTA per SM
    assert (full.metrics["launch__occupancy_limit_warps"], half.metrics["launch__occupancy_limit_warps"]) == (2, 1)
    assert half.metrics["launch__occupancy_limiter"] == "warps"
    assert (full.metrics["launch__waves_per_multiprocessor"], half.metrics["launch__waves_per_multiprocessor"]) == (
        pytest.approx(1.0), pytest.approx(2.0))
    assert half.metrics["sm__maximum_warps_per_active_cycle_pct"] == pytest.approx(50.0)
    assert half.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] <= 50.0 + 1e-9
    assert full.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] > 75.0
    assert half.cycles > 1.2 * full.cycles      # 8 warps per SM hide less latency than 16 (6439 -> 8695)
    assert half.metrics["smsp__inst_executed.sum"] == full.metrics["smsp__inst_executed.sum"]


def test_register_override_sets_the_registers_limit_and_residency():
    est = _run(TINY, 8, 128)                       # the estimate (16 here): 4 CTAs of 4 warps per SM
    r = _run(TINY, 8, 128, regs_per_thread=64)     # 2 CTAs per SM
    m = r.metrics
    assert est.metrics["launch__occupancy_limiter"] == "warps"
    assert (m["launch__occupancy_limiter"], m["launch__occupancy_limit_registers"]) == ("registers", 2)
    assert m["launch__registers_per_thread"] == 64
    assert m["launch__waves_per_multiprocessor"] == pytest.approx(2.0)
    assert est.metrics["launch__waves_per_multiprocessor"] == pytest.approx(1.0)
    assert m["sm__warps_active.avg.pct_of_peak_sustained_active"] <= 50.0 + 1e-9
    assert r.cycles > 1.2 * est.cycles


def test_register_estimate_above_the_maximum_is_capped_as_ptxas_spills():
    base = _run(TINY, 2, 32, n=4)
    est = base.metrics["launch__registers_per_thread"]
    spec = TINY.with_(**{"sm.max_regs_per_thread": est - 1})
    r = _run(spec, 2, 32, n=4)
    assert r.metrics["launch__registers_per_thread"] == est - 1


@pytest.mark.parametrize("mode", ["functional", "timing"])
@pytest.mark.parametrize("regs, message", [
    (256, "regs_per_thread 256 exceeds the 255 registers"),
    (0, "at least 1"),
    (-4, "at least 1"),
    (3.5, "must be an int"),
])
def test_bad_register_override_is_a_one_line_launch_error(mode, regs, message):
    with pytest.raises(LaunchError, match=message) as e:
        gpusim.launch(chain, 1, 32, np.ones(32, np.float32), np.int64(1), gpu="h100", mode=mode,
                      regs_per_thread=regs)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_block_larger_than_an_sm_holds_is_a_launch_error(mode):
    # tiny allows 1024 threads per block but holds only 512 per SM: such a block could never run
    with pytest.raises(LaunchError, match="block of 1024 threads exceeds the 512 allowed per block on tiny"):
        gpusim.launch(chain, 1, 1024, np.ones(1024, np.float32), np.int64(1), gpu="tiny", mode=mode)
    with pytest.raises(LaunchError, match="block of 2048 threads exceeds the 1024 allowed per block"):
        gpusim.launch(chain, 1, 2048, np.ones(2048, np.float32), np.int64(1), gpu="h100", mode=mode)


def test_cli_accepts_regs():
    from gpusim.cli import _parser
    assert _parser().parse_args(["run", "vecadd", "--regs", "64"]).regs == 64
    assert _parser().parse_args(["run", "vecadd"]).regs is None


def test_cli_regs_reaches_launch(monkeypatch, capsys):
    import gpusim.commands
    from gpusim.cli import main
    seen = []

    def spy(*a, **kw):
        seen.append(kw.get("regs_per_thread"))
        return gpusim.launch(*a, **kw)

    monkeypatch.setattr(gpusim.commands, "launch", spy)
    assert main(["run", "vecadd", "--small", "--regs", "40"]) == 0
    assert seen and set(seen) == {40}
    assert main(["run", "vecadd", "--small", "--regs", "300"]) == 2
    err = capsys.readouterr().err
    assert "regs_per_thread 300 exceeds the 255" in err and err.count("\n") == 1
