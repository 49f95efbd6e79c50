"""Streaming DRAM bandwidth: a large coalesced read (int32 sum) and a large copy.

Both run 1056 blocks x 256 threads (8 blocks = 64 warps per SM, full occupancy) with a grid-stride
loop, so every warp load is 128 contiguous bytes (4 sectors, one request). The arrays (138 MB read;
69 MB + 69 MB copy) exceed the 50 MB L2, but repeated launches still find part of them in L2: the
'l2_flushed' durations are the DRAM figures. Integer data keeps the check exact.

- load_bw: out[t] = sum_k a[t + k*nthreads], k < 128.  Bytes moved ~= 4 * 128 * nthreads.
- copy_bw: b[i] = a[i] over 64 elements per thread.    Bytes moved ~= 2 * 4 * 64 * nthreads.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case, poison

GRID, BLOCK = 1056, 256


def load_sum(a, per_thread, out):
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    s = 0
    for k in range(per_thread):
        s += a[t + k * nth]
    out[t] = s


def copy(a, per_thread, b):
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    for k in range(per_thread):
        i = t + k * nth
        b[i] = a[i]


def _load_case(grid=GRID, block=BLOCK, per_thread=128, name="load_bw"):
    nth = grid * block

    def inputs(seed=0):
        a = np.random.default_rng(seed).integers(0, 8, nth * per_thread, dtype=np.int32)
        return {"a": a, "per_thread": np.int64(per_thread), "out": poison(nth, np.int64)}

    def reference(inp):
        return {"out": inp["a"].reshape(per_thread, nth).sum(axis=0, dtype=np.int64)}

    def derive(out, inp):
        return {"bytes_read": int(inp["a"].nbytes)}

    return make_case(name, f"streaming read-and-sum of {nth * per_thread * 4 / 1e6:.0f} MB: DRAM read "
                     "bandwidth", "bandwidth", load_sum, grid, block, inputs, reference,
                     ("a", "per_thread", "out"), ("out",), derive=derive)


def _copy_case(grid=GRID, block=BLOCK, per_thread=64, name="copy_bw"):
    nth = grid * block

    def inputs(seed=0):
        a = np.random.default_rng(seed).integers(-1000, 1000, nth * per_thread, dtype=np.int32)
        return {"a": a, "per_thread": np.int64(per_thread), "b": poison(a.size, np.int32)}

    def reference(inp):
        return {"b": inp["a"].copy()}

    def derive(out, inp):
        return {"bytes_read": int(inp["a"].nbytes), "bytes_written": int(inp["a"].nbytes)}

    return make_case(name, f"copy of {nth * per_thread * 4 / 1e6:.0f} MB: DRAM read+write bandwidth",
                     "bandwidth", copy, grid, block, inputs, reference,
                     ("a", "per_thread", "b"), ("b",), derive=derive)


CASES = [_load_case(), _copy_case()]
