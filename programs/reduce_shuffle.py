"""reduce_shuffle: sum of a float32 vector with warp shuffles (shfl_down_sync) instead of a shared tree.

size: number of elements. block = 256 threads (8 warps); grid = ceil(size / 1024), and each thread
first sums 4 elements in a grid-stride loop. Each warp reduces in registers with 5 shfl_down_sync
steps, lane 0 of each warp writes its sum to shared memory, warp 0 reduces those 8 values with
shuffles again and its lane 0 adds the block's sum to out[0] atomically.
"""
import numpy as np
from numba import cuda, float32, int64

NAME = "reduce_shuffle"
DESCRIPTION = "sum reduction with warp shuffles (shfl_down_sync), grid-stride loads, one atomic per block"
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 2048
RTOL = 1e-5
ATOL = 1e-5
BLOCK = 256
ITEMS_PER_THREAD = 4
FULL_MASK = 0xFFFFFFFF


def reduce_shuffle(a, out, n):
    warp_sums = cuda.shared.array(8, float32)  # BLOCK // 32 warps
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    v = float32(0.0)
    i = cuda.grid(1)
    while i < n:
        v += a[i]
        i += cuda.gridsize(1)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = float32(0.0)
        if lane < 8:
            v = warp_sums[lane]
        offset = 4
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            cuda.atomic.add(out, 0, v)


KERNELS = [(reduce_shuffle, (float32[::1], float32[::1], int64))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": rng.random(size, dtype=np.float32)}


def run(launch, inp):
    a = inp["a"]
    n = a.size
    out = np.zeros(1, dtype=np.float32)
    per_block = BLOCK * ITEMS_PER_THREAD
    launch(reduce_shuffle, max(1, (n + per_block - 1) // per_block), BLOCK, a, out, n)
    return {"sum": out}


def reference(inp):
    return {"sum": np.array([inp["a"].sum(dtype=np.float64)], dtype=np.float32)}
