"""elementwise_fused: y = relu(x * a + b) * c in one kernel: one load and one store per element.

size: number of elements. block = 256 threads, grid = ceil(size / 256).
The same chain as elementwise_unfused, which runs it as three kernels through two temporaries.
"""
import numpy as np
from numba import cuda, float32, int64

NAME = "elementwise_fused"
DESCRIPTION = "y = relu(x*a + b) * c fused into one kernel (compare elementwise_unfused)"
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 2048
RTOL = 1e-6
ATOL = 1e-6
BLOCK = 256
A, B, C = 1.5, -0.25, 2.0


def fused_relu_affine(x, a, b, c, y, n):
    i = cuda.grid(1)
    if i < n:
        y[i] = max(x[i] * a + b, float32(0.0)) * c


KERNELS = [(fused_relu_affine, (float32[::1], float32, float32, float32, float32[::1], int64))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size).astype(np.float32)
    return {"x": x, "a": np.float32(A), "b": np.float32(B), "c": np.float32(C)}


def run(launch, inp):
    x = inp["x"]
    n = x.size
    y = np.zeros_like(x)
    a, b, c = (np.float32(inp[k]) for k in "abc")
    launch(fused_relu_affine, (n + BLOCK - 1) // BLOCK, BLOCK, x, a, b, c, y, n)
    return {"y": y}


def reference(inp):
    a, b, c = (float(np.float32(inp[k])) for k in "abc")
    y = np.maximum(inp["x"].astype(np.float64) * a + b, 0.0) * c
    return {"y": y.astype(np.float32)}
