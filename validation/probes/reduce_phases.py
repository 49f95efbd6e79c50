"""Probe (device; also runs in gpusim): where the time of Harris's reduction #4 goes, per CTA.

The held-out ho_reduce4_first_add kernel (8,192 CTAs of 256 threads, 4 Mi int32) with lane 0 of each warp
reading %clock64 at its start, after its first-add store (its two loads are in) and after the tree loop's last
barrier. Per CTA (clocks compared within a CTA, one SM): how far apart its warps start and get their data, how
long the loads take and how long the tree of 8 barrier steps takes. Diagnosis of ho_reduce4_first_add (+14% in
gpusim, its barrier stall 42% of its samples against the H100's 28%); nothing is fitted on it.

    python3 validation/probes/reduce_phases.py --out validation/data/h100/probe_reduce_phases.json [--gpusim]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, int32  # noqa: E402

from validation.cases._intrinsics import clock64  # noqa: E402

N = 1 << 22
BLOCK = 256


def reduce4_phases(g_idata, g_odata, st):
    sdata = cuda.shared.array(256, int32)
    tid = cuda.threadIdx.x
    t0 = clock64()
    i = cuda.blockIdx.x * (cuda.blockDim.x * 2) + tid
    sdata[tid] = g_idata[i] + g_idata[i + cuda.blockDim.x]
    t1 = clock64()
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sdata[tid] += sdata[tid + s]
        cuda.syncthreads()
        s >>= 1
    t2 = clock64()
    if tid & 31 == 0:
        w = (cuda.blockIdx.x * 256 + tid) >> 5
        st[w, 0] = t0
        st[w, 1] = t1
        st[w, 2] = t2
    if tid == 0:
        g_odata[cuda.blockIdx.x] = sdata[0]


def summary(st: np.ndarray, grid: int) -> dict:
    s = st.reshape(grid, BLOCK // 32, 3).astype(np.float64)
    t0, t1, t2 = s[..., 0], s[..., 1], s[..., 2]

    def q(v):
        return {"p10": float(np.percentile(v, 10)), "median": float(np.median(v)), "p90": float(np.percentile(v, 90))}

    return {"start_spread": q(t0.max(1) - t0.min(1)), "arrival_spread": q(t1.max(1) - t1.min(1)),
            "load_cycles": q(t1 - t0), "tree_cycles": q(t2.min(1) - t1.max(1)),
            "cta_cycles": q(t2.max(1) - t0.min(1))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpusim", action="store_true", help="run in gpusim (h100, SASS model) instead of the GPU")
    args = ap.parse_args()
    grid = N // (2 * BLOCK)
    a = np.random.default_rng(0).integers(0, 1 << 16, N, dtype=np.int32)
    o = np.zeros(grid, np.int32)
    st = np.zeros((grid * BLOCK // 32, 3), np.int64)
    if args.gpusim:
        import gpusim
        r = gpusim.launch(reduce4_phases, grid, BLOCK, a, o, st, gpu="h100", mode="timing", fma=True, model="sass")
        doc = {"where": "gpusim (h100, SASS model)", "cycles": r.cycles}
    else:
        from validation.probes._device import provenance
        k = cuda.jit(reduce4_phases)
        da, do, dst = cuda.to_device(a), cuda.to_device(o), cuda.to_device(st)
        for _ in range(3):          # the last of three launches (code and translations warm, L2 not flushed)
            k[grid, BLOCK](da, do, dst)
        cuda.synchronize()
        st = dst.copy_to_host()
        doc = {"where": "H100", "provenance": provenance()}
    doc.update({"probe": "reduce_phases", "description": __doc__.split("\n\n")[0], "grid": grid, "block": BLOCK,
                **summary(st, grid)})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({k: v for k, v in doc.items() if k not in ("description", "provenance")}))


if __name__ == "__main__":
    main()
