"""Store coalescing sweep: a warp stores 32 int32 elements `stride` elements apart.

The store twin of coalesce.py. Thread t writes t + k to out[(t + k*nthreads) * stride] for k < 4, and
loads nothing, so only the store path is timed. Each warp store is one request; it touches
min(32, 4*stride) 32-byte sectors (stride 8 and more: one 4-byte write in each of 32 sectors, in
32 different 128 B lines). `out` is the same 34.6 MB for every stride (sized for stride 32) and
is pre-filled with poison, so the check covers the elements the kernel must leave alone too.
`store_rowsW` (W = 2, 4, 8): each thread writes a row of W int32 with W separate stores (as a CUDA
sample's uint4 written member by member), so W consecutive store instructions of a warp write parts of
the same W sectors; it isolates what the store path does with such back-to-back partial writes.
Expected in ncu (strided):  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum constant across strides,
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


def row_store2(out):
    """Thread t writes its row out[t, 0..W) word by word: W store instructions one after another, each
    touching the same sectors (4 * W bytes per lane apart), each sector written in part."""
    t = cuda.grid(1)
    out[t, 0] = t
    out[t, 1] = t + 1


def row_store4(out):
    t = cuda.grid(1)
    out[t, 0] = t
    out[t, 1] = t + 1
    out[t, 2] = t + 2
    out[t, 3] = t + 3


def row_store8(out):
    t = cuda.grid(1)
    out[t, 0] = t
    out[t, 1] = t + 1
    out[t, 2] = t + 2
    out[t, 3] = t + 3
    out[t, 4] = t + 4
    out[t, 5] = t + 5
    out[t, 6] = t + 6
    out[t, 7] = t + 7


def _make_rows(width, grid=4096, block=256):
    nth = grid * block

    def inputs(seed=0):
        return {"out": poison(nth * width, np.int32).reshape(nth, width)}

    def reference(inp):
        return {"out": (np.arange(nth)[:, None] + np.arange(width)[None, :]).astype(np.int32)}

    def derive(out, inp):
        return {"sectors_per_request_expected": 4 * width, "requests_expected": nth // 32 * width}

    return make_case(f"store_rows{width}", f"each thread writes its {4 * width}-B row word by word: {width} store "
                     f"instructions to the same {4 * width} sectors per warp, each sector written in part",
                     "stores", {2: row_store2, 4: row_store4, 8: row_store8}[width], grid, block, inputs, reference,
                     ("out",), ("out",), derive=derive)


ROW_WIDTHS = (2, 4, 8)
CASES = [_make(s) for s in STRIDES] + [_make_rows(w) for w in ROW_WIDTHS]
