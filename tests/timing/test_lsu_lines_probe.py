"""The LSU-lines probe (validation/probes/lsu_lines.py) runs unchanged in gpusim: an SM's LSU takes one
128-B line per cycle of a load that hits the L1, as the H100 does (0.97 lines per cycle measured for 4 to
32 lines per warp load, validation/data/h100/probe_lsu_lines.json), so a warp load that touches k lines
costs the SM k cycles, and a load of one line is not slower than the issue slots around it."""

import json
from pathlib import Path

import pytest

import gpusim
from gpusim import sassmap
from gpusim.presets import H100
from validation.probes.lsu_lines import analyse, run

HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")
DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_lsu_lines.json"


def _measured(k: int) -> float:
    runs = json.loads(DATA.read_text())["runs"]
    return next(r["lines_per_cycle"] for r in runs if r["k_lines"] == k)


def _simulated(k: int) -> dict:
    # the probe's 1024-thread CTAs fit an SM only at ptxas's register count (the PTX estimate is 69)
    def launch(kernel, grid, block, *args):
        return gpusim.launch(kernel, grid, block, *args, gpu=H100, mode="timing", model="sass")

    return analyse(run(launch, k, grid=2), k, 32)


@needs_tools
@pytest.mark.parametrize("k", [4, 8, 32])
def test_a_load_hitting_the_l1_costs_the_lsu_a_cycle_per_line_it_touches(k):
    sim = _simulated(k)["lines_per_cycle"]
    assert sim == pytest.approx(_measured(k), rel=0.10)


@needs_tools
def test_the_lsu_rate_does_not_depend_on_how_many_lines_a_load_touches():
    four, thirty_two = _simulated(4), _simulated(32)
    assert thirty_two["cycles_per_warp_load"] == pytest.approx(8 * four["cycles_per_warp_load"], rel=0.05)
