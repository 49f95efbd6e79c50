"""Store coalescing sweep: a warp stores 32 int32 elements `stride` elements apart.

The store twin of coalesce.py. Thread t writes t + k to out[(t + k*nthreads) * stride] for k < 4, and
loads nothing, so only the store path is timed. Each warp store is one request; it touches
min(32, 4*stride) 32-byte sectors (stride 8 and more: one 4-byte write in each of 32 sectors, in
32 different 128 B lines). `out` is the same 34.6 MB for every stride (sized for stride 32) and
is pre-filled with poison, so the check covers the elements the kernel must leave alone too.
Expected in ncu: l1tex__t_requests_pipe_lsu_mem_global_op_st.sum constant across strides,
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum growing 4 -> 8 -> 16 -> 32 -> 32 -> 32 per request.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case, poison

GRID, BLOCK, PER_THREAD, MAX_STRIDE = 264, 256, 4, 32
STRIDES = (1, 2, 4, 8, 16, 32)


def strided_store(stride, per_thread, out):
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    for k in range(per_thread):
        out[(t + k * nth) * stride] = t + k


def _make(stride, grid=GRID, block=BLOCK, per_thread=PER_THREAD):
    nth = grid * block
    n = nth * per_thread * MAX_STRIDE

    def inputs(seed=0):
        return {"stride": np.int64(stride), "per_thread": np.int64(per_thread), "out": poison(n, np.int32)}

    def reference(inp):
        out = np.array(inp["out"], copy=True)
        t = np.arange(nth)[None, :] + np.arange(per_thread)[:, None] * nth
        k = np.arange(per_thread)[:, None]
        out[t * stride] = (np.arange(nth)[None, :] + k).astype(np.int32)
        return {"out": out}

    def derive(out, inp):
        return {"sectors_per_request_expected": min(32, 4 * stride),
                "requests_expected": nth // 32 * per_thread}

    return make_case(f"store_s{stride:02d}", f"warp store with a {stride}-element (4 B) stride: "
                     f"{min(32, 4 * stride)} sectors per request", "stores", strided_store, grid,
                     block, inputs, reference, ("stride", "per_thread", "out"), ("out",), derive=derive)


CASES = [_make(s) for s in STRIDES]
