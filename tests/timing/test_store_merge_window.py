"""A warp's stores to the lines it wrote merge in the L1 only when they come close together.

The lds_after_bar probe's bar_sts_stg form (validation/probes/lds_after_bar.py) has each warp write 4 bytes a
thread at a 16-byte stride (4 lines, partial sectors) once a scan step, to the same lines every step. On the H200
(probe_lds_after_bar_stores_h200.json, ncu) the L1 merges 27% of those sectors with one CTA per SM (steps
~220-320 cycles apart) and 1-2% with four or eight; the kernels take 45.1k / 178.1k / 340.6k cycles, bound by the
L2's partial writes. gpusim merged every such store within `lsu.combine_window` = 1000 cycles and ran them in
26.9k / 59.1k / 103.9k; the window was then 150 cycles, and is 90 since bar.sync became BAR.SYNC.DEFER_BLOCKING
(forty-fifth pass): the form's steps came to ~100 cycles, under 150, and every store merged again (18.5k)."""

import dataclasses
import json
from pathlib import Path

import numpy as np

import gpusim
from gpusim.presets import get_preset
from validation.probes.lds_after_bar import BLOCK, KERNELS

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_lds_after_bar_stores_h200.json"
STG = 3     # the bar_sts_stg form


def _cycles(grid, **lsu):
    spec = get_preset("h100")
    spec = dataclasses.replace(spec, lsu=dataclasses.replace(spec.lsu, **lsu))
    out = np.zeros(grid * BLOCK * 4, np.uint32)
    rec = np.zeros((grid * BLOCK // 32, 2), np.int64)
    r = gpusim.launch(KERNELS[STG], grid, BLOCK, np.uint32(0), out, rec, gpu=spec, mode="timing", model="sass")
    return r.cycles


def _h200(grid):
    runs = json.loads(DATA.read_text())["runs"]
    return [r for r in runs if r["form"] == "bar_sts_stg" and r["grid"] == grid][0]


def test_a_warps_partial_stores_one_scan_step_apart_take_the_h200s_time():
    hw = _h200(132)
    assert hw["merged_fraction"] < 0.3
    sim = _cycles(132)
    assert abs(sim / hw["cycles"] - 1) < 0.10, (sim, hw["cycles"])


def test_merging_stores_a_thousand_cycles_apart_would_run_the_probe_far_too_fast():
    hw = _h200(132)
    sim = _cycles(132, combine_window=1000)
    assert sim < 0.7 * hw["cycles"], (sim, hw["cycles"])
