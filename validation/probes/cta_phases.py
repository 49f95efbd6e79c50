"""Probe (device; also runs in gpusim): when do the warps of one CTA reach each phase of a load-barrier-compute
CTA, and which warp slots (sub-partitions) do they get?

The kernel is ho_stencil1d's (radius 3 over int32 with a shared-memory halo; the first 3 threads of a CTA load
the halo), 8 warps a CTA, many waves. Lane 0 of every warp records %smid, %warpid, blockIdx and four %clock64
reads: at its start, after its shared store of the loaded value (its load is back), after the barrier, and at
its end. Per CTA (clocks compared within one SM): how far apart its warps start, get their loads back and leave
the barrier; each warp's wait at the barrier (the CTA's last load back minus its own); which warp is last; and
per CTA warp index, the %warpid % 4 (sub-partition) it ran on. gpusim over-predicts ho_stencil1d's barrier
(6.9 against 2.0 cycles per instruction) with warp 0 of every CTA last on sub-partition 0.

    python3 validation/probes/cta_phases.py --out validation/data/h100/probe_cta_phases.json

Recorded 2026-11-28 on an H100 (probe_cta_phases.json) and, first, on an H200 (probe_cta_phases_h200.json: the
same GH100 SM, HBM3e). Both: a CTA's warps take an aligned group of 8 %warpid values (in the 1-wave grid; after
refills 10% of CTAs in the 16384-CTA grid are not contiguous), warp k at base + 4 * (k // 4) + (k + r) % 4 with r
one more for each CTA the SM takes (warp 0 of successive CTAs on SM 0 at %warpid 3, 8, 17, 26, 35, 40, 49, 58), so
each CTA warp index runs on each sub-partition a quarter of the time. Warp 0 (the halo loads) is last to get its
data in 87-100% of CTAs; the other warps wait 770-790 cycles for it (16384 CTAs; 500-520 in one wave). The
clock read after the barrier is taken 2 cycles after the one before it: BAR.SYNC.DEFER_BLOCKING lets a warp
run on until an instruction needs the barrier, so t_released is not when the barrier let the warp go.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, int32  # noqa: E402

from validation.cases._intrinsics import clock64, smid, warpid  # noqa: E402
from validation.probes._device import device_launch, measure, out_path, write  # noqa: E402

RADIUS, BLOCK = 3, 256
TILE = 262                  # BLOCK + 2 * RADIUS
GRIDS = (16384, 1056)       # ho_stencil1d's grid (15.5 waves) and one wave of 8 CTAs per SM
FIELDS = ("sm", "warpid", "cta", "t_start", "t_loaded", "t_released", "t_end")


def stencil_phases(x, out, rec):
    temp = cuda.shared.array(TILE, int32)
    t0 = clock64()
    n = x.size
    g = cuda.grid(1)
    t = cuda.threadIdx.x
    li = t + RADIUS
    temp[li] = x[g]
    if t < RADIUS:
        lo = g - RADIUS
        hi = g + BLOCK
        temp[li - RADIUS] = x[lo] if lo >= 0 else 0
        temp[li + BLOCK] = x[hi] if hi < n else 0
    t1 = clock64()
    cuda.syncthreads()
    t2 = clock64()
    s = 0
    for k in range(-RADIUS, RADIUS + 1):
        s += temp[li + k]
    out[g] = s
    t3 = clock64()
    if t % 32 == 0:
        w = g // 32
        rec[w, 0] = smid()
        rec[w, 1] = warpid()
        rec[w, 2] = cuda.blockIdx.x
        rec[w, 3] = t0
        rec[w, 4] = t1
        rec[w, 5] = t2
        rec[w, 6] = t3


def analyse(rec: np.ndarray) -> dict:
    """Per-CTA spreads and per-warp barrier waits (cycles), the last warp to get its load back, and the warp
    slots' sub-partitions per CTA warp index."""
    wpc = BLOCK // 32
    r = rec[np.argsort(rec[:, 2], kind="stable")].reshape(-1, wpc, len(FIELDS))
    start, loaded, released = r[:, :, 3], r[:, :, 4], r[:, :, 5]
    wait = loaded.max(axis=1, keepdims=True) - loaded          # each warp's wait at the barrier
    last = loaded.argmax(axis=1)
    sp = r[:, :, 1] % 4

    def q(v):
        v = np.asarray(v, np.float64).ravel()
        return {"p10": float(np.percentile(v, 10)), "median": float(np.median(v)), "mean": float(v.mean()),
                "p90": float(np.percentile(v, 90))}

    return {"ctas": int(r.shape[0]),
            "start_spread": q(start.max(axis=1) - start.min(axis=1)),
            "loaded_spread": q(loaded.max(axis=1) - loaded.min(axis=1)),
            "release_spread": q(released.max(axis=1) - released.min(axis=1)),
            "load_cycles": q(loaded - start),
            "barrier_wait_per_warp": q(wait),
            "barrier_wait_by_warp_index": [float(x) for x in wait.mean(axis=0)],
            "last_loaded_share_by_warp_index": [float(np.mean(last == k)) for k in range(wpc)],
            "subpartition_share_by_warp_index": [[float(np.mean(sp[:, k] == s)) for s in range(4)]
                                                 for k in range(wpc)],
            "warpid_first_mod8_share": [float(np.mean(r[:, 0, 1] % 8 == m)) for m in range(8)],
            "cta_warpids_contiguous_share": float(np.mean(np.all(np.diff(r[:, :, 1], axis=1) == 1, axis=1))),
            "sm0_rows": r[r[:, 0, 0] == r[0, 0, 0]][:64].reshape(-1, len(FIELDS)).tolist()}


def run(launch, grid: int) -> np.ndarray:
    n = grid * BLOCK
    x = (np.arange(n, dtype=np.int64) * 7919 % 1000).astype(np.int32)
    out = np.zeros(n, np.int32)
    rec = np.zeros((n // 32, len(FIELDS)), np.int64)
    launch(stencil_phases, grid, BLOCK, x, out, rec)
    xp = np.concatenate([np.zeros(RADIUS, np.int64), x.astype(np.int64), np.zeros(RADIUS, np.int64)])
    want = sum(xp[RADIUS + k:RADIUS + k + n] for k in range(-RADIUS, RADIUS + 1))
    assert (out == want).all()
    return rec


def main():
    out = out_path()
    launch = device_launch()
    write(out, measure("cta_phases", __doc__, ({"grid": grid, "block": BLOCK, "fields": FIELDS,
                                                 **analyse(run(launch, grid))} for grid in GRIDS)))


if __name__ == "__main__":
    main()
