"""Probe (device; also runs in gpusim): how fast does an SM take a new CTA once one of its CTAs retires?

A vecadd-like kernel of many short CTAs (each thread loads two words and stores one); lane 0 of every warp
records %smid, the %clock64 read that starts the warp and the read after its store. Per SM (clocks are
compared only within one SM) a CTA starts at its first warp's start and ends at its last warp's end. With
`limit` CTAs resident per SM, the j-th CTA to start on an SM beyond the first `limit` took the slot the
(j - limit)-th retirement freed: `refill` is the cycles from that retirement to that start. Also the
cycles between consecutive CTA starts on an SM, and the mean resident warps per SM over its busy span
(what ncu's sm__warps_active measures). Grids of 4096 CTAs of 256 and 128 threads, and 8192 of 64.

    python3 validation/probes/cta_refill.py --out validation/data/h100/probe_cta_refill.json
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402
from validation.probes._device import device_launch, measure, out_path, write  # noqa: E402

SHAPES = ((4096, 256, 8), (4096, 128, 16), (8192, 64, 32))     # grid, block, CTAs per SM (threads: 2048/SM)


def vec_rec(a, b, c, rec):
    t0 = clock64()
    i = cuda.grid(1)
    c[i] = a[i] + b[i]
    t1 = clock64()
    if cuda.threadIdx.x % 32 == 0:
        w = i // 32
        rec[w, 0] = smid()
        rec[w, 1] = t0
        rec[w, 2] = t1
        rec[w, 3] = cuda.blockIdx.x


def analyse(rec: np.ndarray, block: int, limit: int) -> dict:
    """Per-SM refill cycles, start gaps and mean resident warps from the warps' records."""
    wpc = block // 32
    cta = rec[:, 3]
    order = np.argsort(cta, kind="stable")
    r = rec[order].reshape(-1, wpc, 4)
    sm, start, end = r[:, 0, 0], r[:, :, 1].min(axis=1), r[:, :, 2].max(axis=1)
    refill, gaps, warps, first_wave = [], [], [], []
    for s in np.unique(sm):
        st, en = np.sort(start[sm == s]), np.sort(end[sm == s])
        if st.size > limit:
            refill.extend((st[limit:] - en[:st.size - limit]).tolist())
        if st.size > 1:
            gaps.extend(np.diff(st).tolist())
        first_wave.append(int(st[min(limit, st.size) - 1] - st[0]))
        span = en.max() - st.min()
        warps.append(float(np.sum(end[sm == s] - start[sm == s])) * wpc / span if span else 0.0)
    refill, gaps = np.asarray(refill), np.asarray(gaps)

    def pct(v, q):
        return float(np.percentile(v, q)) if v.size else None

    return {"ctas_per_sm_limit": limit, "refill_cycles_p10": pct(refill, 10), "refill_cycles_median": pct(refill, 50),
            "refill_cycles_p90": pct(refill, 90), "start_gap_median": pct(gaps, 50),
            "first_wave_span_median": float(np.median(first_wave)),
            "resident_warps_per_sm_mean": float(np.mean(warps)),
            "resident_warps_pct": float(100.0 * np.mean(warps) / 64.0)}


def run(launch, grid: int, block: int) -> np.ndarray:
    n = grid * block
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, np.float32)
    c = np.zeros(n, np.float32)
    rec = np.zeros((n // 32, 4), np.int64)
    launch(vec_rec, grid, block, a, b, c, rec)
    assert (c == a + 1).all()
    return rec


def main():
    out = out_path()
    launch = device_launch()
    write(out, measure("cta_refill", __doc__, ({"grid": grid, "block": block,
                                                 **analyse(run(launch, grid, block), block, limit)}
                                                for grid, block, limit in SHAPES)))


if __name__ == "__main__":
    main()
