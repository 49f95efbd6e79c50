"""The prologue_wait probe's kernel (validation/probes/prologue_wait.py: prog_divergence with clock reads) on one
SM, two waves of 8 CTAs. On the H200 (the H100's SM) a later CTA's warps spend 23.1k cycles (median) between the
kernel's first clock read and the one after its index and bounds-check work, twice the 12.1k of the rest of the
kernel, and that prologue is 62% of all warp cycles (validation/data/h100/probe_prologue_wait_h200.json; ncu
samples 60% of the H100's stalls there): the older CTAs' integer loop keeps the ALU, and the H100 runs its oldest
CTA first. The SASS model does so strictly (`scheduler.starve_cycles_sass` = 0); with a 200-cycle starvation
guard the new warps went ahead after 200 cycles and spent 1.6k cycles there (5% of warp cycles)."""

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.presets import apply_overrides, get_preset
from validation.probes.prologue_wait import divergence_stamped, summary

HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_prologue_wait_h200.json"
CTAS = 16          # 8 per SM: two waves on one SM


def _one_sm(**over) -> dict:
    n = CTAS * 256
    x = np.random.default_rng(0).integers(-(1 << 20), 1 << 20, n, dtype=np.int32)
    st = np.zeros((n // 32, 4), np.int64)
    gpusim.launch(divergence_stamped, CTAS, 256, x, np.zeros(n, np.int32), np.int64(n), st,
                  gpu=apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1, **over}),
                  mode="timing", model="sass")
    return summary(st)


@needs_tools
def test_a_new_cta_waits_in_its_prologue_behind_the_older_ctas_integer_work_as_on_the_h100():
    h = json.loads(DATA.read_text())
    got = _one_sm()
    assert got["prologue_later"]["median"] > got["body_later"]["median"]
    assert got["prologue_later"]["median"] == pytest.approx(h["prologue_later"]["median"], rel=0.25)
    # the first wave's warps have no older CTA to wait for (H200 median 0.8k-2.6k cycles over two runs)
    assert got["prologue_first_wave"]["median"] < 0.25 * got["prologue_later"]["median"]


@needs_tools
def test_a_starvation_guard_lets_the_new_cta_through_its_prologue_at_once():
    got = _one_sm(**{"scheduler.starve_cycles_sass": 200})
    assert got["prologue_later"]["median"] < got["body_later"]["median"]
    assert got["prologue_share_of_warp_cycles"] < 0.15
