"""Shared-memory bank-conflict sweep: each lane reads word lane*stride of a 1024-word array.

Bank = (lane*stride) mod 32, so a warp's load is gcd(stride, 32)-way conflicted: stride 1 -> 1
wavefront, 2 -> 2, 4 -> 4, 8 -> 8, 16 -> 16, 32 -> 32 (all lanes in bank 0). The array holds
sh[i] = i, so j = sh[j] returns the same index: a dependent chain of 1024 loads per warp with a
constant conflict pattern. 132 blocks x 256 threads (8 warps per SM); lane 0 of each warp writes
its %clock64 cycles. Expected in ncu: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum and
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum scale with the conflict degree.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case, poison
from validation.cases._intrinsics import clock64

GRID, BLOCK, ITERS, WORDS = 132, 256, 128, 1024
STRIDES = (1, 2, 4, 8, 16, 32)


def bank_sweep(stride, iters, out, cycles):
    sh = cuda.shared.array(WORDS, np.uint32)
    tid = cuda.threadIdx.x
    for i in range(tid, WORDS, cuda.blockDim.x):
        sh[i] = i
    cuda.syncthreads()
    j = np.uint32(((tid & 31) * stride) & (WORDS - 1))
    t0 = clock64()
    for _ in range(iters):
        j = sh[j]
        j = sh[j]
        j = sh[j]
        j = sh[j]
        j = sh[j]
        j = sh[j]
        j = sh[j]
        j = sh[j]
    g = cuda.grid(1)
    out[g] = j
    t1 = clock64()
    if tid & 31 == 0:
        cycles[g >> 5] = t1 - t0


def _make(stride, grid=GRID, block=BLOCK, iters=ITERS):
    nth = grid * block

    def inputs(seed=0):
        return {"stride": np.int64(stride), "iters": np.int64(iters),
                "out": poison(nth, np.uint32), "cycles": np.full(nth // 32, -1, np.int64)}

    def reference(inp):
        lane = np.arange(nth) & 31
        return {"out": ((lane * stride) & (WORDS - 1)).astype(np.uint32)}

    def derive(out, inp):
        cyc = out["cycles"].astype(np.float64)
        n = 8 * int(inp["iters"])
        return {"loads_per_warp": n, "cycles_per_load_median": float(np.median(cyc)) / n,
                "cycles_per_load_min": float(cyc.min()) / n, "cycles_per_load_max": float(cyc.max()) / n,
                "conflict_degree_expected": int(np.gcd(stride, 32))}

    return make_case(f"bank_s{stride:02d}", f"shared load, {stride}-word lane stride: "
                     f"{np.gcd(stride, 32)}-way bank conflict", "banks", bank_sweep, grid, block,
                     inputs, reference, ("stride", "iters", "out", "cycles"), ("out", "cycles"),
                     derive=derive)


CASES = [_make(s) for s in STRIDES]
