"""saxpy: y = alpha * x + y on float32 vectors; one thread per element.

size: number of elements. grid = ceil(size / 256) blocks of 256 threads.
The compiler contracts alpha * x + y into one fma, so results may differ from numpy's
two-rounding float32 result by an ulp.
"""
import numpy as np
from numba import cuda, float32, int64

NAME = "saxpy"
DESCRIPTION = "y = alpha * x + y (BLAS level 1), one thread per element"
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 4096
RTOL = 1e-6
ATOL = 1e-6
BLOCK = 256


def saxpy(alpha, x, y, n):
    i = cuda.grid(1)
    if i < n:
        y[i] = alpha * x[i] + y[i]


KERNELS = [(saxpy, (float32, float32[::1], float32[::1], int64))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "alpha": np.float32(2.5),
        "x": rng.standard_normal(size).astype(np.float32),
        "y": rng.standard_normal(size).astype(np.float32),
    }


def run(launch, inp):
    x = inp["x"]
    y = inp["y"].copy()
    n = x.size
    launch(saxpy, (n + BLOCK - 1) // BLOCK, BLOCK, np.float32(inp["alpha"]), x, y, n)
    return {"y": y}


def reference(inp):
    y = np.float64(inp["alpha"]) * inp["x"].astype(np.float64) + inp["y"]
    return {"y": y.astype(np.float32)}
