"""Mechanism microbenchmarks: exposed: barrier-separated load -> shared -> FMA loop with few warps.

The family and its cases are described in validation/cases/mechanisms/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda import config

from validation.cases._case import make_case, poison
from validation.cases._intrinsics import clock64

# is what lets LLVM's load/store vectorizer merge adjacent words into v2/v4 shared accesses.
ALIGN = None if config.ENABLE_CUDASIM else 16
MASK32 = 0xFFFFFFFF
HASH_MUL = 0x45D9F3B



# ----------------------------------------------------------------------------------------------
# exposed: barrier-separated load -> shared -> FMA loop with few warps
# ----------------------------------------------------------------------------------------------

EX_GRID, EX_ITERS, EX_K = 132, 64, 16


def exposed_loop(a, bvec, iters, out, cycles):
    tile = cuda.shared.array(1024, np.float32)
    tid = cuda.threadIdx.x
    bd = cuda.blockDim.x
    blk = cuda.blockIdx.x
    nb = cuda.gridDim.x
    b0 = bvec[0]
    b1 = bvec[1]
    b2 = bvec[2]
    b3 = bvec[3]
    b4 = bvec[4]
    b5 = bvec[5]
    b6 = bvec[6]
    b7 = bvec[7]
    b8 = bvec[8]
    b9 = bvec[9]
    b10 = bvec[10]
    b11 = bvec[11]
    b12 = bvec[12]
    b13 = bvec[13]
    b14 = bvec[14]
    b15 = bvec[15]
    q = tid & ~15
    acc = np.float32(0)
    t0 = clock64()
    for it in range(iters):
        tile[tid] = a[(it * nb + blk) * bd + tid]
        cuda.syncthreads()
        acc = cuda.fma(tile[q], b0, acc)
        acc = cuda.fma(tile[q + 1], b1, acc)
        acc = cuda.fma(tile[q + 2], b2, acc)
        acc = cuda.fma(tile[q + 3], b3, acc)
        acc = cuda.fma(tile[q + 4], b4, acc)
        acc = cuda.fma(tile[q + 5], b5, acc)
        acc = cuda.fma(tile[q + 6], b6, acc)
        acc = cuda.fma(tile[q + 7], b7, acc)
        acc = cuda.fma(tile[q + 8], b8, acc)
        acc = cuda.fma(tile[q + 9], b9, acc)
        acc = cuda.fma(tile[q + 10], b10, acc)
        acc = cuda.fma(tile[q + 11], b11, acc)
        acc = cuda.fma(tile[q + 12], b12, acc)
        acc = cuda.fma(tile[q + 13], b13, acc)
        acc = cuda.fma(tile[q + 14], b14, acc)
        acc = cuda.fma(tile[q + 15], b15, acc)
        cuda.syncthreads()
    t1 = clock64()
    out[blk * bd + tid] = acc
    if tid == 0:
        cycles[blk] = t1 - t0


def _exposed_case(block, grid=EX_GRID, iters=EX_ITERS):
    nth = grid * block
    assert block % 16 == 0 and block <= 1024

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"a": rng.integers(0, 8, iters * nth).astype(np.float32),
                "bvec": rng.integers(0, 4, EX_K).astype(np.float32), "iters": np.int64(iters),
                "out": poison(nth, np.float32), "cycles": np.full(grid, -1, np.int64)}

    def reference(inp):
        it = int(inp["iters"])
        a = inp["a"][:it * nth].astype(np.int64).reshape(it, grid, block // 16, 16)
        b = inp["bvec"].astype(np.int64)
        per_group = (a * b).sum(axis=(0, 3))                       # (grid, groups): exact integers
        return {"out": np.repeat(per_group, 16, axis=1).ravel().astype(np.float32)}

    def derive(out, inp):
        cyc = np.asarray(out["cycles"], np.float64)
        n = int(inp["iters"])
        return {"iterations": n, "warps_per_sm": block // 32 if block >= 32 else 1,
                "cycles_per_iteration_median": float(np.median(cyc)) / n,
                "cycles_per_iteration_min": float(cyc.min()) / n,
                "cycles_per_iteration_max": float(cyc.max()) / n}

    return make_case(f"exposed_b{block}", f"{iters} iterations of global load -> shared -> barrier -> "
                     f"16 dependent FMAs from shared -> barrier, {grid} x {block} ({max(1, block // 32)} "
                     "warps per SM): exposed load latency", "exposed", exposed_loop, grid, block, inputs,
                     reference, ("a", "bvec", "iters", "out", "cycles"), ("out", "cycles"), derive=derive)
