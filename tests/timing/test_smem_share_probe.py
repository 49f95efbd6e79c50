"""The smem_share probe's lone chase (validation/probes/smem_share.py) in gpusim against the H200's.

Warp 0 of a 1,024-thread CTA walks a dependent chain through shared memory while the CTA's other 31 warps go
straight to their exit. The chase runs code those warps jumped over: an instruction-fetch stream that followed
them to the exit made the chase miss the instruction cache on every line (58.1 cycles a step, the H200 47.1;
validation/DEVIATIONS.md, twenty-seventh pass)."""

import json
from pathlib import Path

import gpusim
from gpusim.presets import get_preset
from validation.probes.smem_share import analyse, run

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_smem_share_h200.json"


def _launch(kernel, grid, block, *host):
    gpusim.launch(kernel, grid, block, *host, gpu=get_preset("h100"), mode="timing", model="sass")


def test_a_warp_running_code_its_ctas_other_warps_jumped_over_chases_at_the_h200s_pace():
    hw = next(r for r in json.loads(DATA.read_text())["runs"] if r["mode"] == "idle" and not r["apart"])
    sim = analyse(run(_launch, 0, 1, False), 0, False)
    assert abs(sim["cycles_per_chase_step"] / hw["cycles_per_chase_step"] - 1) < 0.10, (sim, hw)
