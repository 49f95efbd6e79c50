"""vecadd: c = a + b on float32 vectors; one thread per element.

size: number of elements. grid = ceil(size / 256) blocks of 256 threads.
"""
import numpy as np
from numba import cuda, float32, int64

NAME = "vecadd"
DESCRIPTION = "c = a + b, one thread per element (the 'hello world' of memory-bound kernels)"
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 4096
RTOL = 0.0
ATOL = 0.0
BLOCK = 256


def vecadd(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]


KERNELS = [(vecadd, (float32[::1], float32[::1], float32[::1], int64))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": rng.random(size, dtype=np.float32), "b": rng.random(size, dtype=np.float32)}


def run(launch, inp):
    a, b = inp["a"], inp["b"]
    n = a.size
    c = np.zeros_like(a)
    launch(vecadd, (n + BLOCK - 1) // BLOCK, BLOCK, a, b, c, n)
    return {"c": c}


def reference(inp):
    return {"c": inp["a"] + inp["b"]}
