"""Coalescing sweep: a warp loads 32 int32 elements `stride` elements apart.

Thread t loads a[(t + k*nthreads) * stride] for k < 4 and writes the sum. Each warp load is one
request; it touches min(32, 4*stride) 32-byte sectors (stride 1: 4 sectors = one 128 B line; stride
8 and more: 32 sectors, one per thread). The array is the same 34.6 MB for every stride (sized for
stride 32), so only the access pattern changes; at stride 1 the data read is 1/32 of it.
Expected in ncu: l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum constant across strides,
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum growing 4 -> 8 -> 16 -> 32 -> 32 -> 32 per request.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case, poison

GRID, BLOCK, PER_THREAD, MAX_STRIDE = 264, 256, 4, 32
STRIDES = (1, 2, 4, 8, 16, 32)


def strided_load(a, stride, per_thread, out):
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    s = 0
    for k in range(per_thread):
        s += a[(t + k * nth) * stride]
    out[t] = s


def _make(stride, grid=GRID, block=BLOCK, per_thread=PER_THREAD):
    nth = grid * block

    def inputs(seed=0):
        n = nth * per_thread * MAX_STRIDE
        a = np.random.default_rng(seed).integers(0, 100, n, dtype=np.int32)
        return {"a": a, "stride": np.int64(stride), "per_thread": np.int64(per_thread),
                "out": poison(nth, np.int64)}

    def reference(inp):
        idx = (np.arange(nth)[None, :] + np.arange(per_thread)[:, None] * nth) * stride
        return {"out": inp["a"][idx].sum(axis=0, dtype=np.int64)}

    def derive(out, inp):
        return {"sectors_per_request_expected": min(32, 4 * stride),
                "requests_expected": nth // 32 * per_thread}

    return make_case(f"coalesce_s{stride:02d}", f"warp load with a {stride}-element (4 B) stride: "
                     f"{min(32, 4 * stride)} sectors per request", "coalesce", strided_load, grid,
                     block, inputs, reference, ("a", "stride", "per_thread", "out"), ("out",),
                     derive=derive)


CASES = [_make(s) for s in STRIDES]
