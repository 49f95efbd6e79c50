"""Held-out kernels: global atomics (histograms, stream compaction).

Sources and the suite are described in validation/cases/heldout/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, int32

from validation.cases._case import Case, dim3, make_case, poison, single_launch
from validation.cases.heldout._common import FULL_MASK, GROUP


# ---------------------------------------------------------------------------------------------------
# 3, 4. 256-bin histogram with GLOBAL atomics. Source: Sanders & Kandrot, "CUDA by Example" (2010),
# chapter 9, histo_kernel (global-memory atomics version): a grid-stride loop of
# atomicAdd(&histo[buffer[i]], 1) over an unsigned char buffer, launched with 2 blocks per SM x 256.
def histo_global(buffer, size, histo):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    stride = cuda.blockDim.x * cuda.gridDim.x
    while i < size:
        cuda.atomic.add(histo, buffer[i], 1)
        i += stride


def _histo_case(name, skewed, n, grid=264, block=256):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        if skewed:  # geometric: half the values are 0, a quarter 1, ...
            v = np.minimum(rng.geometric(0.5, n) - 1, 255).astype(np.uint8)
        else:
            v = rng.integers(0, 256, n, dtype=np.uint8)
        return {"buffer": v, "size": np.int64(n), "histo": np.zeros(256, np.uint32)}

    def reference(inp):
        return {"histo": np.bincount(inp["buffer"], minlength=256).astype(np.uint32)}

    what = "geometric data, ~50% in bin 0" if skewed else "uniform data"
    return make_case(name, f"256-bin histogram of {n} uint8 with global atomicAdd per element, {what}; "
                     "CUDA by Example ch. 9 histo_kernel (global atomics)", GROUP, histo_global, grid, block,
                     inputs, reference, ("buffer", "size", "histo"), ("histo",))


# ---------------------------------------------------------------------------------------------------
# 5, 6. Stream compaction through a global atomic counter. Source: A. Adinets, "CUDA Pro Tip: Optimized
# Filtering with Warp-Aggregated Atomics" (NVIDIA developer blog, 2014): filter_k, one atomicAdd per kept
# element (naive), and the warp-aggregated version, where one lane adds the warp's count and broadcasts
# the base with a shuffle. Here each lane's rank comes from a shfl_up scan of the predicate instead of
# ballot/popc (numba's CUDA simulator has no ballot). The output index is taken modulo the power-of-two
# capacity (`mask`) so that the recorder's relaunches, whose counter keeps growing, stay in bounds; the
# first launch never wraps. The order of the kept elements depends on the atomics' order, so `run` sorts
# the compacted prefix and the check compares it and the count.
def filter_naive(src, n, mask, dst, nres):
    i = cuda.grid(1)
    if i < n:
        v = src[i]
        if v > 0:
            dst[cuda.atomic.add(nres, 0, 1) & mask] = v


def filter_warp_aggregated(src, n, mask, dst, nres):
    i = cuda.grid(1)
    lane = cuda.threadIdx.x & 31
    v = 0
    if i < n:
        v = src[i]
    p = int32(1) if v > 0 else int32(0)
    rank = p  # inclusive scan of p over the warp
    d = 1
    while d < 32:
        y = cuda.shfl_up_sync(FULL_MASK, rank, d)
        if lane >= d:
            rank = int32(rank + y)
        d *= 2
    total = cuda.shfl_sync(FULL_MASK, rank, 31)
    base = int32(0)
    if lane == 0 and total > 0:
        base = cuda.atomic.add(nres, 0, total)
    base = cuda.shfl_sync(FULL_MASK, base, 0)
    if p:
        dst[(base + rank - 1) & mask] = v


def _compact_case(name, kernel, n, block=256):
    grid = (n + block - 1) // block
    cap = 1 << max(0, (n - 1).bit_length())
    launch_once = single_launch(kernel, dim3(grid), dim3(block), ("src", "n", "mask", "dst", "nres"),
                                ("dst", "nres"))

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"src": rng.integers(-3 * (1 << 20), 1 << 20, n, dtype=np.int32), "n": np.int64(n),
                "mask": np.int64(cap - 1), "dst": poison(cap, np.int32), "nres": np.zeros(1, np.int32)}

    def run(launch, inp):
        out = launch_once(launch, inp)
        count = int(out["nres"][0])
        if 0 <= count <= cap:
            out["dst"][:count] = np.sort(out["dst"][:count])
        return out

    def reference(inp):
        kept = np.sort(inp["src"][inp["src"] > 0])
        dst = np.array(inp["dst"], copy=True)
        dst[:kept.size] = kept
        return {"dst": dst, "nres": np.array([kept.size], np.int32)}

    how = "one atomicAdd per kept element" if kernel is filter_naive else \
        "warp-aggregated: one atomicAdd per warp, ranks by a shfl_up scan"
    return Case(NAME=name, DESCRIPTION=f"stream compaction of {n} int32 (keep > 0, ~25%) through a global atomic "
                f"counter, {how}; NVIDIA blog 'Optimized Filtering with Warp-Aggregated Atomics' filter_k. "
                "Checked order-independently: sorted kept prefix and count", GROUP=GROUP, kernel=kernel,
                GRID=dim3(grid), BLOCK=dim3(block), inputs=inputs, run=run, reference=reference,
                ARGS=("src", "n", "mask", "dst", "nres"), OUTPUTS=("dst", "nres"))
