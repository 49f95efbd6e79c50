"""transpose_naive: out = a.T, one thread per element, reading rows and writing columns.

size: the matrix is size x size float32. block = (32, 8) threads, grid = (ceil(size/32), ceil(size/8)).
Loads are coalesced, stores are not: a warp writes 32 elements `size` floats apart.
"""
import numpy as np
from numba import cuda, float32

NAME = "transpose_naive"
DESCRIPTION = "matrix transpose, one thread per element (coalesced loads, strided stores)"
DEFAULT_SIZE = 1024
SMALL_SIZE = 64
RTOL = 0.0
ATOL = 0.0
BLOCK = (32, 8)


def transpose_naive(a, out):
    x, y = cuda.grid(2)  # x: column of a, y: row of a
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


KERNELS = [(transpose_naive, (float32[:, ::1], float32[:, ::1]))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": rng.random((size, size), dtype=np.float32)}


def run(launch, inp):
    a = inp["a"]
    rows, cols = a.shape
    out = np.zeros((cols, rows), dtype=np.float32)
    grid = ((cols + BLOCK[0] - 1) // BLOCK[0], (rows + BLOCK[1] - 1) // BLOCK[1])
    launch(transpose_naive, grid, BLOCK, a, out)
    return {"out": out}


def reference(inp):
    return {"out": np.ascontiguousarray(inp["a"].T)}
