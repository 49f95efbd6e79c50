"""The clock-rate probe (validation/probes/clock_rate.py) runs unchanged in gpusim: reading %clock64 costs
a warp an issue slot and nothing shared, as on the H100 (0.90 reads per cycle per SM with 32 warps, 29
cycles per read for one warp alone, validation/data/h100/probe_clock_rate.json). So the ~10-cycle spin
trip per scheduler of the sched_spin probe is not a slow clock read."""

import json
from pathlib import Path

import pytest

import gpusim
from gpusim.presets import H100
from validation.probes.clock_rate import analyse, run

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_clock_rate.json"


def _measured(block: int) -> float:
    runs = json.loads(DATA.read_text())["runs"]
    return next(r["warp_steps_per_cycle_per_sm"] for r in runs if r["kernel"] == "clock_reads" and r["block"] == block)


def _simulated(block: int) -> float:
    def launch(kernel, grid, block, *args):
        return gpusim.launch(kernel, grid, block, *args, gpu=H100, mode="timing")

    return analyse(run(launch, "clock_reads", block, grid=2), 64)["warp_steps_per_cycle_per_sm"]


@pytest.mark.parametrize("block", [32, 1024])
def test_clock_reads_issue_at_the_rate_the_h100_reads_them(block):
    assert _simulated(block) == pytest.approx(_measured(block), rel=0.10)
