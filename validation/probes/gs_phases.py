"""Probe (device; also runs in gpusim): how far apart the warps of a CTA finish a grid-stride loop.

The held-out ho_reduce_gs_one_load kernel (1,024 CTAs of 256 threads, 16 Mi int32, 64 loads per thread, all CTAs
resident at once) with lane 0 of each warp reading %clock64 at its start, when its loop is done, after the
first barrier and at its end. On the H100 its warps wait 1.57 cycles per instruction on barrier, gpusim 0.37:
gpusim's warps of a CTA finish their loops closer together. Per CTA (clocks compared within a CTA, one SM): the
start and loop-end spreads, the loop's length, the first barrier's release after the last arrival; and which
warps finish last: the mean loop length by warp index in its CTA and by the CTA's start order on its SM.
Diagnosis only; nothing is fitted on it. The kernel is a copy of validation/cases/heldout/reductions.py's on
purpose: the stamps have to sit inside it.

    python3 validation/probes/gs_phases.py --out validation/data/h100/probe_gs_phases_h200.json [--gpusim]
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

from numba import cuda, int64  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402

N = 1 << 24
GRID, BLOCK = 1024, 256


def gs_phases(g_idata, n, g_odata, st):
    sdata = cuda.shared.array(256, int64)
    tid = cuda.threadIdx.x
    t0 = clock64()
    i = cuda.blockIdx.x * 256 + tid
    grid_size = 256 * cuda.gridDim.x
    my_sum = int64(0)
    while i < n:
        my_sum += g_idata[i]
        i += grid_size
    t1 = clock64()
    sdata[tid] = my_sum
    cuda.syncthreads()
    t2 = clock64()
    if tid < 128:
        my_sum += sdata[tid + 128]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 64:
        my_sum += sdata[tid + 64]
        sdata[tid] = my_sum
    cuda.syncthreads()
    t3 = clock64()
    if tid < 32:
        my_sum += sdata[tid + 32]
        offset = 16
        while offset > 0:
            my_sum += cuda.shfl_down_sync(0xFFFFFFFF, my_sum, offset)
            offset //= 2
    if tid == 0:
        g_odata[cuda.blockIdx.x] = my_sum
    if tid & 31 == 0:
        w = (cuda.blockIdx.x * 256 + tid) >> 5
        st[w, 0] = t0
        st[w, 1] = t1
        st[w, 2] = t2
        st[w, 3] = t3
        st[w, 4] = smid()


def summary(st: np.ndarray) -> dict:
    wpc = BLOCK // 32
    s = st.reshape(GRID, wpc, 5).astype(np.float64)
    t0, t1, t2, t3, sm = s[..., 0], s[..., 1], s[..., 2], s[..., 3], s[:, 0, 4].astype(int)

    def q(v):
        return {"p10": float(np.percentile(v, 10)), "median": float(np.median(v)), "p90": float(np.percentile(v, 90))}

    loop = t1 - t0
    # the CTA's start order on its SM (0: first to start)
    order = np.zeros(GRID, int)
    for m in np.unique(sm):
        ctas = np.flatnonzero(sm == m)
        order[ctas[np.argsort(t0[ctas].min(1), kind="stable")]] = np.arange(len(ctas))
    rel = loop - loop.mean(1, keepdims=True)          # a warp's loop against its CTA's mean
    last = np.argmax(t1, axis=1)
    return {"start_spread": q(t0.max(1) - t0.min(1)), "loop_end_spread": q(t1.max(1) - t1.min(1)),
            "loop_cycles": q(loop), "first_barrier_release": q(t2.min(1) - t1.max(1)),
            "tree_cycles": q(t3.min(1) - t2.max(1)), "cta_cycles": q(t3.max(1) - t0.min(1)),
            "loop_vs_cta_mean_by_warp": [float(x) for x in rel.mean(0)],
            "last_warp_share_by_warp": [float(np.mean(last == k)) for k in range(wpc)],
            "loop_cycles_by_start_order": {int(o): float(np.median(loop[order == o])) for o in np.unique(order)},
            "loop_end_spread_by_start_order": {int(o): float(np.median((t1.max(1) - t1.min(1))[order == o]))
                                               for o in np.unique(order)}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpusim", action="store_true", help="run in gpusim (h100, SASS model) instead of the GPU")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="gpusim: a preset override")
    ap.add_argument("--n", type=int, default=N, help="elements (a multiple of 262,144); 4 Mi: 16 MB, L2-resident "
                                                     "from the second launch")
    args = ap.parse_args()
    n = args.n
    a = np.random.default_rng(0).integers(0, 1 << 20, n, dtype=np.int32)
    o = np.zeros(GRID, np.int64)
    st = np.zeros((GRID * BLOCK // 32, 5), np.int64)
    if args.gpusim:
        import gpusim
        from validation.probes._device import gpusim_h100
        gpu, over = gpusim_h100(args.set)
        r = gpusim.launch(gs_phases, GRID, BLOCK, a, np.int64(n), o, st, gpu=gpu, mode="timing", model="sass")
        doc = {"where": "gpusim (h100, SASS model)", "overrides": over, "cycles": r.cycles}
    else:
        from validation.probes._device import provenance
        k = cuda.jit(gs_phases)
        da, do, dst = cuda.to_device(a), cuda.to_device(o), cuda.to_device(st)
        for _ in range(3):          # the last of three launches (code and translations warm, L2 not flushed)
            k[GRID, BLOCK](da, np.int64(n), do, dst)
        cuda.synchronize()
        st = dst.copy_to_host()
        o = do.copy_to_host()
        doc = {"where": "GPU", "provenance": provenance()}
    assert np.array_equal(o, a.astype(np.int64).reshape(-1, GRID, BLOCK).sum(axis=(0, 2))), "wrong sums"
    doc.update({"probe": "gs_phases", "description": __doc__.split("\n\n")[0], "grid": GRID, "block": BLOCK, "n": n,
                **summary(st)})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({k: v for k, v in doc.items() if k not in ("description", "provenance")}))


if __name__ == "__main__":
    main()
