"""histogram: 256-bin histogram of int32 values in [0, 256), privatized per block in shared memory.

size: number of values. block = 256 threads (one per bin); grid = ceil(size / 1024), each thread
visiting about 4 values in a grid-stride loop. Each block counts into a shared int32[256] with shared
atomics, then adds its non-zero bins to the global histogram with global atomics. The values are a
clipped normal around 128, so a few bins are hot and their atomics contend.
"""
import numpy as np
from numba import cuda, int32, int64

NAME = "histogram"
DESCRIPTION = "256-bin histogram: shared-memory privatized counts (shared atomics), then global atomics"
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 4096
RTOL = 0.0
ATOL = 0.0
BINS = 256
BLOCK = 256
ITEMS_PER_THREAD = 4


def histogram(data, hist, n):
    local = cuda.shared.array(256, int32)
    t = cuda.threadIdx.x
    local[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < n:
        cuda.atomic.add(local, data[i], 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    count = local[t]
    if count > 0:
        cuda.atomic.add(hist, t, count)


KERNELS = [(histogram, (int32[::1], int32[::1], int64))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(size) * 40.0 + 128.0
    return {"data": np.clip(values, 0, BINS - 1).astype(np.int32)}


def run(launch, inp):
    data = inp["data"]
    n = data.size
    hist = np.zeros(BINS, dtype=np.int32)
    per_block = BLOCK * ITEMS_PER_THREAD
    launch(histogram, max(1, (n + per_block - 1) // per_block), BLOCK, data, hist, n)
    return {"hist": hist}


def reference(inp):
    return {"hist": np.bincount(inp["data"], minlength=BINS).astype(np.int32)}
