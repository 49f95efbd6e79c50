"""Held-out kernels: reductions (CUDA samples reduce6, Harris #4/#6).

Sources and the suite are described in validation/cases/heldout/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, int32, int64

from validation.cases._case import make_case, poison
from validation.cases.heldout._common import FULL_MASK, GROUP

# ---------------------------------------------------------------------------------------------------
# 7, 8. Grid-stride sum reduction with two independent global loads per iteration, and its one-load twin.
# Source: the CUDA samples' reduction (Samples/2_Concepts_and_Techniques/reduction, reduction_kernel.cu)
# reduce6 = Harris's kernel #7: `mySum += g_idata[i]; mySum += g_idata[i + blockSize]; i += gridSize`
# with gridSize = 2 * blockSize * gridDim (n a power of two), then the shared tree down to 64 and a
# warp-shuffle finish (cg tiled_partition shfl_down), one per-block partial written to g_odata. int32 data
# summed in int64, partials reduced on the host: bit-exact. The twin loads one element per iteration
# with gridSize = blockSize * gridDim (twice the iterations, same data and finish).
RD_BLOCK = 256


def reduce_gs_two_loads(g_idata, n, g_odata):
    sdata = cuda.shared.array(256, int64)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * (256 * 2) + tid
    grid_size = 256 * 2 * cuda.gridDim.x
    my_sum = int64(0)
    while i < n:
        my_sum += g_idata[i]
        my_sum += g_idata[i + 256]
        i += grid_size
    sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 128:
        my_sum += sdata[tid + 128]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 64:
        my_sum += sdata[tid + 64]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 32:
        my_sum += sdata[tid + 32]
        offset = 16
        while offset > 0:
            my_sum += cuda.shfl_down_sync(FULL_MASK, my_sum, offset)
            offset //= 2
    if tid == 0:
        g_odata[cuda.blockIdx.x] = my_sum


def reduce_gs_one_load(g_idata, n, g_odata):
    sdata = cuda.shared.array(256, int64)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * 256 + tid
    grid_size = 256 * cuda.gridDim.x
    my_sum = int64(0)
    while i < n:
        my_sum += g_idata[i]
        i += grid_size
    sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 128:
        my_sum += sdata[tid + 128]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 64:
        my_sum += sdata[tid + 64]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 32:
        my_sum += sdata[tid + 32]
        offset = 16
        while offset > 0:
            my_sum += cuda.shfl_down_sync(FULL_MASK, my_sum, offset)
            offset //= 2
    if tid == 0:
        g_odata[cuda.blockIdx.x] = my_sum


def _reduce_gs_case(name, two, n=1 << 24, grid=1024):
    per_iter = 2 * RD_BLOCK if two else RD_BLOCK
    assert n % (per_iter * grid) == 0

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"g_idata": rng.integers(0, 1 << 20, n, dtype=np.int32), "n": np.int64(n),
                "g_odata": poison(grid, np.int64)}

    def reference(inp):
        # element j belongs to block (j // per_iter) % grid in both layouts; exact int64 sums
        a = inp["g_idata"].astype(np.int64).reshape(-1, grid, per_iter)
        return {"g_odata": a.sum(axis=(0, 2))}

    loads = "two independent loads (i, i + blockSize)" if two else "one load"
    return make_case(name, f"grid-stride int32 sum of {n} elements, {loads} per iteration, shared tree + "
                     "shfl_down finish, one int64 partial per block; CUDA samples reduction reduce6 (Harris #7)"
                     + ("" if two else ", one-load twin"), GROUP,
                     reduce_gs_two_loads if two else reduce_gs_one_load, grid, RD_BLOCK, inputs, reference,
                     ("g_idata", "n", "g_odata"), ("g_odata",))


# ---------------------------------------------------------------------------------------------------
# 13, 14. Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernels #4 (first add during
# global load, sequential addressing) and #6 (completely unrolled for blockSize 256, last warp unrolled).
# The last warp of #6 is written the Volta-safe way of Lin & Grover, "Using CUDA Warp-Level Primitives"
# (NVIDIA blog, 2018): read, __syncwarp, write, __syncwarp per step, instead of a volatile pointer.
# int32 data, one int32 partial per block (512 elements < 2^16 each: no overflow).
def reduce4_first_add(g_idata, g_odata):
    sdata = cuda.shared.array(256, int32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * (cuda.blockDim.x * 2) + tid
    sdata[tid] = g_idata[i] + g_idata[i + cuda.blockDim.x]
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sdata[tid] += sdata[tid + s]
        cuda.syncthreads()
        s >>= 1
    if tid == 0:
        g_odata[cuda.blockIdx.x] = sdata[0]


def reduce6_unrolled(g_idata, g_odata):
    sdata = cuda.shared.array(256, int32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * (256 * 2) + tid
    sdata[tid] = g_idata[i] + g_idata[i + 256]
    cuda.syncthreads()
    if tid < 128:
        sdata[tid] += sdata[tid + 128]
    cuda.syncthreads()
    if tid < 64:
        sdata[tid] += sdata[tid + 64]
    cuda.syncthreads()
    if tid < 32:
        v = sdata[tid] + sdata[tid + 32]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 16]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 8]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 4]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 2]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 1]
        if tid == 0:
            g_odata[cuda.blockIdx.x] = v


def _harris_case(name, kernel, n=1 << 22):
    grid = n // (2 * RD_BLOCK)

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"g_idata": rng.integers(0, 1 << 16, n, dtype=np.int32), "g_odata": poison(grid, np.int32)}

    def reference(inp):
        return {"g_odata": inp["g_idata"].astype(np.int64).reshape(grid, 2 * RD_BLOCK).sum(1).astype(np.int32)}

    which = "#4 first add during load, sequential addressing" if kernel is reduce4_first_add else \
        "#6 completely unrolled, last warp with __syncwarp"
    return make_case(name, f"block sums of {n} int32, 512 per block: Harris 'Optimizing Parallel Reduction' "
                     f"{which}", GROUP, kernel, grid, RD_BLOCK, inputs, reference, ("g_idata", "g_odata"),
                     ("g_odata",))
