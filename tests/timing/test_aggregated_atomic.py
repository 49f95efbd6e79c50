"""A warp-aggregated atomic: ptxas turns an atomic with a result on a warp-uniform address into VOTEU, FLO and POPC,
one ATOMG from an elected lane and a SHFL that hands each lane its value. The H100 samples the wait for the ATOMG
on the SHFL (long_scoreboard) and the wait for the SHFL on the instruction after it (short_scoreboard):
ho_compact_atomic_naive, validation/data/h100/ncu/sass_stalls_more_2026-11-27/, 22,355 and 122 samples. gpusim
gives the result lat_shfl cycles after the atomic's and charges those last cycles of the consumer's wait to
short_scoreboard."""

import numpy as np
import pytest
from numba import cuda

import gpusim
from gpusim import sassmap
from gpusim.presets import apply_overrides, get_preset
from gpusim.report_lines import per_line_counters

HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")


def compact(src, n, dst, count):
    i = cuda.grid(1)
    if i < n and src[i] > 0:
        dst[cuda.atomic.add(count, 0, 1)] = src[i]


def _run(model, n=4096):
    src = np.arange(n, dtype=np.int32) % 3 - 1          # a third of the elements are kept
    dst, count = np.zeros(n, np.int32), np.zeros(1, np.int32)
    gpu = apply_overrides(get_preset("h100"), {"n_sm": 2, "gigathread.gpcs": 1})
    r = gpusim.launch(compact, n // 256, 256, src, np.int32(n), dst, count, gpu=gpu, mode="timing", model=model)
    return r, src, dst, count


def _atomic_consumer_stalls(r):
    rows = per_line_counters(r)
    at = next(i for i, row in enumerate(rows) if row["text"].lstrip().startswith("atom."))
    # the line that reads its result: the one after it that waits longest on long_scoreboard
    return max((row.get("stalls", {}) for row in rows[at + 1:]), key=lambda s: s.get("long_scoreboard", 0))


@needs_tools
def test_an_aggregated_atomics_consumer_waits_for_the_atomic_then_for_its_shuffle():
    r, src, dst, count = _run("sass")
    kept = src[src > 0]
    assert count[0] == len(kept) and sorted(dst[:count[0]]) == sorted(kept)
    stalls = _atomic_consumer_stalls(r)
    warps = src.size // 32              # every warp keeps some of its elements and does the atomic
    lat = get_preset("h100").pipes.lat_shfl
    assert stalls["long_scoreboard"] > 10 * stalls.get("short_scoreboard", 0) > 0
    # the last lat_shfl cycles of each warp's wait are the SHFL's
    assert 0.5 * lat * warps <= stalls["short_scoreboard"] <= lat * warps


@needs_tools
def test_the_ptx_model_has_no_shuffle_there():
    r, *_ = _run("ptx")
    assert "short_scoreboard" not in _atomic_consumer_stalls(r)


@needs_tools
def test_the_naive_compaction_samples_short_scoreboard_as_the_h100_does():
    from validation.cases import all_cases
    from validation.replay import _ncu, recorded_cases, simulate
    rec = next(c for c in recorded_cases() if c["case"] == "ho_compact_atomic_naive")
    sim, *_ = simulate(all_cases()["ho_compact_atomic_naive"], get_preset("h100"), "sass")
    key = "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"
    hw = _ncu(rec, key)
    # 1.29 cycles per instruction on the H100; 0.50 while the SHFL's wait was charged as the atomic's
    assert sim[key] == pytest.approx(hw, rel=0.35)
