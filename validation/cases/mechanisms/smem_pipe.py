"""Mechanism microbenchmarks: smem_pipe: shared-memory wavefronts per access width.

The family and its cases are described in validation/cases/mechanisms/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda import config

from validation.cases._case import make_case, poison
from validation.cases._intrinsics import clock64, smid

# is what lets LLVM's load/store vectorizer merge adjacent words into v2/v4 shared accesses.
ALIGN = None if config.ENABLE_CUDASIM else 16
MASK32 = 0xFFFFFFFF
HASH_MUL = 0x45D9F3B



# ----------------------------------------------------------------------------------------------
# smem_pipe: shared-memory wavefronts per access width
# ----------------------------------------------------------------------------------------------

SM_GRID, SM_BLOCK, SM_ITERS, SM_WORDS, SM_STEP = 1056, 256, 24, 4096, 8


def smem_ld32(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.float32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = np.float32(i)
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.float32(0)
    t0 = clock64()
    for k in range(iters):
        p = ((k * step) & 120) * 32 + lane
        a0 += sh[p]
        a1 += sh[p + 32]
        a2 += sh[p + 64]
        a3 += sh[p + 96]
        a4 += sh[p + 128]
        a5 += sh[p + 160]
        a6 += sh[p + 192]
        a7 += sh[p + 224]
    g = cuda.grid(1)
    out[g] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
    t1 = clock64()
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_ld64(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.float32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = np.float32(i)
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    a0 = a1 = a2 = a3 = np.float32(0)
    t0 = clock64()
    for k in range(iters):
        p = (((k * step) & 56) * 32 + lane) * 2
        a0 += (sh[p + 1] + sh[p]) + (sh[p + 256] + sh[p + 257])
        a1 += (sh[p + 64] + sh[p + 65]) + (sh[p + 320] + sh[p + 321])
        a2 += (sh[p + 128] + sh[p + 129]) + (sh[p + 384] + sh[p + 385])
        a3 += (sh[p + 192] + sh[p + 193]) + (sh[p + 448] + sh[p + 449])
    g = cuda.grid(1)
    out[g] = (a0 + a1) + (a2 + a3)
    t1 = clock64()
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_ld128(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.float32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = np.float32(i)
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.float32(0)
    t0 = clock64()
    for k in range(iters):
        p = (((k * step) & 24) * 32 + lane) * 4
        a0 += (sh[p] + sh[p + 1]) + (sh[p + 2] + sh[p + 3])
        a1 += (sh[p + 128] + sh[p + 129]) + (sh[p + 130] + sh[p + 131])
        a2 += (sh[p + 256] + sh[p + 257]) + (sh[p + 258] + sh[p + 259])
        a3 += (sh[p + 384] + sh[p + 385]) + (sh[p + 386] + sh[p + 387])
        a4 += (sh[p + 512] + sh[p + 513]) + (sh[p + 514] + sh[p + 515])
        a5 += (sh[p + 640] + sh[p + 641]) + (sh[p + 642] + sh[p + 643])
        a6 += (sh[p + 768] + sh[p + 769]) + (sh[p + 770] + sh[p + 771])
        a7 += (sh[p + 896] + sh[p + 897]) + (sh[p + 898] + sh[p + 899])
    g = cuda.grid(1)
    out[g] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
    t1 = clock64()
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_st32(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.int32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = -1
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    t0 = clock64()
    for k in range(iters):
        p = ((k * step) & 120) * 32 + lane
        sh[p] = p
        sh[p + 32] = p + 32
        sh[p + 64] = p + 64
        sh[p + 96] = p + 96
        sh[p + 128] = p + 128
        sh[p + 160] = p + 160
        sh[p + 192] = p + 192
        sh[p + 224] = p + 224
    t1 = clock64()
    cuda.syncthreads()
    s = 0
    i = tid
    while i < SM_WORDS:
        s += sh[i] * (i + 1)
        i += cuda.blockDim.x
    g = cuda.grid(1)
    out[g] = s
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_st64(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.int32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = -1
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    t0 = clock64()
    for k in range(iters):
        p = (((k * step) & 56) * 32 + lane) * 2
        sh[p + 1] = p + 1
        sh[p] = p
        sh[p + 64] = p + 64
        sh[p + 65] = p + 65
        sh[p + 128] = p + 128
        sh[p + 129] = p + 129
        sh[p + 192] = p + 192
        sh[p + 193] = p + 193
        sh[p + 256] = p + 256
        sh[p + 257] = p + 257
        sh[p + 320] = p + 320
        sh[p + 321] = p + 321
        sh[p + 384] = p + 384
        sh[p + 385] = p + 385
        sh[p + 448] = p + 448
        sh[p + 449] = p + 449
    t1 = clock64()
    cuda.syncthreads()
    s = 0
    i = tid
    while i < SM_WORDS:
        s += sh[i] * (i + 1)
        i += cuda.blockDim.x
    g = cuda.grid(1)
    out[g] = s
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_st128(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.int32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = -1
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    t0 = clock64()
    for k in range(iters):
        p = (((k * step) & 24) * 32 + lane) * 4
        sh[p] = p
        sh[p + 1] = p + 1
        sh[p + 2] = p + 2
        sh[p + 3] = p + 3
        sh[p + 128] = p + 128
        sh[p + 129] = p + 129
        sh[p + 130] = p + 130
        sh[p + 131] = p + 131
        sh[p + 256] = p + 256
        sh[p + 257] = p + 257
        sh[p + 258] = p + 258
        sh[p + 259] = p + 259
        sh[p + 384] = p + 384
        sh[p + 385] = p + 385
        sh[p + 386] = p + 386
        sh[p + 387] = p + 387
        sh[p + 512] = p + 512
        sh[p + 513] = p + 513
        sh[p + 514] = p + 514
        sh[p + 515] = p + 515
        sh[p + 640] = p + 640
        sh[p + 641] = p + 641
        sh[p + 642] = p + 642
        sh[p + 643] = p + 643
        sh[p + 768] = p + 768
        sh[p + 769] = p + 769
        sh[p + 770] = p + 770
        sh[p + 771] = p + 771
        sh[p + 896] = p + 896
        sh[p + 897] = p + 897
        sh[p + 898] = p + 898
        sh[p + 899] = p + 899
    t1 = clock64()
    cuda.syncthreads()
    s = 0
    i = tid
    while i < SM_WORDS:
        s += sh[i] * (i + 1)
        i += cuda.blockDim.x
    g = cuda.grid(1)
    out[g] = s
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


# width in 32-bit words -> (load kernel, store kernel, row mask). A "row" is one warp access of
# 32 x width words; iteration k touches rows r .. r+7 with r = (k*step) & row_mask (step = 8).
SMEM_KERNELS = {1: (smem_ld32, smem_st32, 120), 2: (smem_ld64, smem_st64, 56), 4: (smem_ld128, smem_st128, 24)}


def _smem_rows(width, iters, step):
    mask = SMEM_KERNELS[width][2]
    return [((k * step) & mask) for k in range(iters)]


def sm_throughput(sm, t_start, t_end, per_warp) -> dict:
    """Per SM: warp accesses issued / (last warp end - first warp start), from each warp's %smid and
    its loop's %clock64 bounds (valid whatever the occupancy; clocks compared only within an SM)."""
    sm = np.asarray(sm)
    t0, t1 = np.asarray(t_start, np.int64), np.asarray(t_end, np.int64)
    per_sm, warps, loop = [], [], t1 - t0
    for s in np.unique(sm):
        on = sm == s
        span = int(t1[on].max() - t0[on].min())
        warps.append(int(on.sum()))
        per_sm.append(span / (on.sum() * per_warp))
    return {"sm_cycles_per_warp_access_median": float(np.median(per_sm)),
            "sm_cycles_per_warp_access_max": float(np.max(per_sm)), "warps_per_sm_max": int(max(warps)),
            "loop_cycles_per_warp_median": float(np.median(loop))}


def _smem_case(width, store, grid=SM_GRID, block=SM_BLOCK, iters=SM_ITERS):
    nth = grid * block
    kind = "st" if store else "ld"
    row = 32 * width
    lane = np.arange(32)

    def inputs(seed=0):
        nw = nth // 32
        return {"step": np.int64(SM_STEP), "iters": np.int64(iters),
                "out": poison(nth, np.int64 if store else np.float32), "sm": np.full(nw, -1, np.int32),
                "t_start": np.full(nw, -1, np.int64), "t_end": np.full(nw, -1, np.int64)}

    def reference(inp):
        it, step = int(inp["iters"]), int(inp["step"])
        if store:
            written = np.full(SM_WORDS, -1, np.int64)
            for r in _smem_rows(width, it, step):
                for c in range(8):
                    idx = ((r + c) * row + lane[:, None] * width + np.arange(width)[None, :]).ravel()
                    written[idx] = idx
            tid = np.arange(block)
            i = np.arange(SM_WORDS)
            per_tid = np.array([(written[i[t::block]] * (i[t::block] + 1)).sum() for t in tid], np.int64)
            return {"out": np.tile(per_tid, grid)}
        tot = np.zeros(32, np.int64)
        for r in _smem_rows(width, it, step):
            for c in range(8):
                base = (r + c) * row + lane * width
                tot += sum(base + w for w in range(width))
        return {"out": np.tile(np.tile(tot, block // 32), grid).astype(np.float32)}

    def derive(out, inp):
        n = 8 * int(inp["iters"])
        return {"accesses_per_warp": n, "bits_per_lane": 32 * width, "wavefronts_per_access": width,
                **sm_throughput(out["sm"], out["t_start"], out["t_end"], n)}

    ld, st, _ = SMEM_KERNELS[width]
    return make_case(f"smem_{kind}{32 * width}", f"shared {'store' if store else 'load'}s of {32 * width} "
                     f"bits per lane, conflict-free, 8 independent per iteration, full occupancy: {width} "
                     "wavefront(s) per warp access", "smem_pipe", st if store else ld, grid, block, inputs,
                     reference, ("step", "iters", "out", "sm", "t_start", "t_end"), ("out", "sm", "t_start", "t_end"),
                     derive=derive)


def smem_cases(grid=SM_GRID, block=SM_BLOCK, iters=SM_ITERS):
    return [_smem_case(w, s, grid, block, iters) for s in (False, True) for w in (1, 2, 4)]
