"""relu_matmul: c = relu(a @ b) in float32, naive: one thread per output, k loop over global memory.

size: a, b and c are size x size; inputs are standard normal, so about half of c is clamped to 0.
block = (16, 16) threads, grid = (ceil(size/16), ceil(size/16)). No shared memory: every thread
reads a row of a and a column of b straight from global memory (compare sgemm_tiled).
"""
import numpy as np
from numba import cuda, float32

NAME = "relu_matmul"
DESCRIPTION = "relu(a @ b), naive matmul (no shared memory) with a fused relu epilogue"
DEFAULT_SIZE = 256
SMALL_SIZE = 32
RTOL = 1e-4
ATOL = 1e-4
BLOCK = (16, 16)


def relu_matmul(a, b, c):
    col, row = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        acc = float32(0.0)
        for k in range(a.shape[1]):
            acc += a[row, k] * b[k, col]
        c[row, col] = max(acc, float32(0.0))


KERNELS = [(relu_matmul, (float32[:, ::1], float32[:, ::1], float32[:, ::1]))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "a": rng.standard_normal((size, size)).astype(np.float32),
        "b": rng.standard_normal((size, size)).astype(np.float32),
    }


def run(launch, inp):
    a, b = inp["a"], inp["b"]
    c = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    grid = ((c.shape[1] + BLOCK[0] - 1) // BLOCK[0], (c.shape[0] + BLOCK[1] - 1) // BLOCK[1])
    launch(relu_matmul, grid, BLOCK, a, b, c)
    return {"c": c}


def reference(inp):
    prod = inp["a"].astype(np.float64) @ inp["b"].astype(np.float64)
    return {"c": np.maximum(prod, 0.0).astype(np.float32)}
