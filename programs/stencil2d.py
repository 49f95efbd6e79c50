"""stencil2d: one Jacobi-style 5-point stencil step on a 2-D float32 grid.

size: the grid is size x size. out[i, j] = center * a[i, j] + side * (a[i-1, j] + a[i+1, j] + a[i, j-1]
+ a[i, j+1]) on interior points; boundary points are copied. block = (16, 16) threads, one per point;
grid = (ceil(size/16), ceil(size/16)). Each input element is loaded by up to 5 threads (cache reuse).
"""
import numpy as np
from numba import cuda, float32

NAME = "stencil2d"
DESCRIPTION = "5-point 2-D stencil (one Jacobi step), one thread per grid point"
DEFAULT_SIZE = 1024
SMALL_SIZE = 64
RTOL = 1e-5
ATOL = 1e-6
BLOCK = (16, 16)


def stencil2d(a, out, center, side):
    j, i = cuda.grid(2)  # j: column, i: row
    rows = a.shape[0]
    cols = a.shape[1]
    if i < rows and j < cols:
        if i == 0 or j == 0 or i == rows - 1 or j == cols - 1:
            out[i, j] = a[i, j]
        else:
            around = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]
            out[i, j] = center * a[i, j] + side * around


KERNELS = [(stencil2d, (float32[:, ::1], float32[:, ::1], float32, float32))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.random((size, size), dtype=np.float32)
    return {"a": a, "center": np.float32(0.6), "side": np.float32(0.1)}


def run(launch, inp):
    a = inp["a"]
    out = np.zeros_like(a)
    grid = ((a.shape[1] + BLOCK[0] - 1) // BLOCK[0], (a.shape[0] + BLOCK[1] - 1) // BLOCK[1])
    launch(stencil2d, grid, BLOCK, a, out, np.float32(inp["center"]), np.float32(inp["side"]))
    return {"out": out}


def reference(inp):
    a = inp["a"].astype(np.float64)
    out = a.copy()
    around = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
    out[1:-1, 1:-1] = float(inp["center"]) * a[1:-1, 1:-1] + float(inp["side"]) * around
    return {"out": out.astype(np.float32)}
