"""reduce_shared: sum of a float32 vector: a shared-memory tree in each block, then one atomic add per block.

size: number of elements. block = 256 threads, one element per thread; grid = ceil(size / 256).
Each block halves its active threads every step (128, 64, ..., 1) with a __syncthreads between steps;
thread 0 adds the block's partial sum to out[0] with a float atomic.
"""
import numpy as np
from numba import cuda, float32, int64

NAME = "reduce_shared"
DESCRIPTION = "sum reduction: 256-thread shared-memory tree per block, atomicAdd of block partials"
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 1024
RTOL = 1e-5
ATOL = 1e-5
BLOCK = 256


def reduce_shared(a, out, n):
    buf = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < n:
        v = a[i]
    buf[t] = v
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(out, 0, buf[0])


KERNELS = [(reduce_shared, (float32[::1], float32[::1], int64))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": rng.random(size, dtype=np.float32)}


def run(launch, inp):
    a = inp["a"]
    n = a.size
    out = np.zeros(1, dtype=np.float32)
    launch(reduce_shared, (n + BLOCK - 1) // BLOCK, BLOCK, a, out, n)
    return {"sum": out}


def reference(inp):
    return {"sum": np.array([inp["a"].sum(dtype=np.float64)], dtype=np.float32)}
