"""The shfl_chain probe (validation/probes/shfl_chain.py) in gpusim against the H200's.

A warp walks a dependent chain of warp shuffles (SHFL.BFLY), alone or with an FMNMX on each result as a Triton
max-reduction does. On the H200 a step takes 24.3 and 30.4 cycles (one warp per sub-partition); gpusim gave a
shuffle's consumer its result after 12 cycles (13.5 and 19.5 a step). `pipes.lat_shfl` (24) is fitted on it."""

import json
from pathlib import Path

import gpusim
from gpusim.presets import get_preset
from validation.probes.shfl_chain import FORMS, run

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_shfl_chain_h200.json"


def _launch(kernel, grid, block, *host):
    gpusim.launch(kernel, grid, block, *host, gpu=get_preset("h100"), mode="timing", model="sass")


def test_a_dependent_shuffle_chain_steps_at_the_h200s_pace():
    hw = {(r["form"], r["block"]): r["cycles_per_step"] for r in json.loads(DATA.read_text())["runs"]}
    for form in (0, 1):
        sim = run(_launch, form, 128, 4)["cycles_per_step"]
        ref = hw[(FORMS[form], 128)]
        assert abs(sim / ref - 1) < 0.05, (FORMS[form], sim, ref)
