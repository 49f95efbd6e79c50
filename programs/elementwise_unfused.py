"""elementwise_unfused: y = relu(x * a + b) * c as three kernels, each a full pass over memory.

size: number of elements. Each kernel: block = 256 threads, grid = ceil(size / 256).
scale_shift writes t = x * a + b, relu writes r = max(t, 0), scale writes y = r * c: 3 loads and
3 stores per element against elementwise_fused's 1 and 1. Same result as elementwise_fused.
"""
import numpy as np
from numba import cuda, float32, int64

NAME = "elementwise_unfused"
DESCRIPTION = "y = relu(x*a + b) * c as three kernels (compare elementwise_fused)"
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 2048
RTOL = 1e-6
ATOL = 1e-6
BLOCK = 256
A, B, C = 1.5, -0.25, 2.0


def scale_shift(x, a, b, t, n):
    i = cuda.grid(1)
    if i < n:
        t[i] = x[i] * a + b


def relu(t, r, n):
    i = cuda.grid(1)
    if i < n:
        r[i] = max(t[i], float32(0.0))


def scale(r, c, y, n):
    i = cuda.grid(1)
    if i < n:
        y[i] = r[i] * c


VEC = float32[::1]
KERNELS = [
    (scale_shift, (VEC, float32, float32, VEC, int64)),
    (relu, (VEC, VEC, int64)),
    (scale, (VEC, float32, VEC, int64)),
]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size).astype(np.float32)
    return {"x": x, "a": np.float32(A), "b": np.float32(B), "c": np.float32(C)}


def run(launch, inp):
    x = inp["x"]
    n = x.size
    grid = (n + BLOCK - 1) // BLOCK
    t, r, y = (np.zeros_like(x) for _ in range(3))
    launch(scale_shift, grid, BLOCK, x, np.float32(inp["a"]), np.float32(inp["b"]), t, n)
    launch(relu, grid, BLOCK, t, r, n)
    launch(scale, grid, BLOCK, r, np.float32(inp["c"]), y, n)
    return {"y": y}


def reference(inp):
    a, b, c = (float(np.float32(inp[k])) for k in "abc")
    y = np.maximum(inp["x"].astype(np.float64) * a + b, 0.0) * c
    return {"y": y.astype(np.float32)}
