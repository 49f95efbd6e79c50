"""softmax: row-wise softmax of a float32 matrix, one block per row.

size: number of rows; each row has max(size, 128) columns (so size 1024 is 1024 x 1024 and size 4 is
4 x 128). block = 128 threads, grid = rows. Each thread strides over the row's columns; the block
finds the row max with a shared-memory tree reduction, then the sum of exp(x - max) with a second
one, then writes exp(x - max) / sum.
"""
import math

import numpy as np
from numba import cuda, float32

NAME = "softmax"
DESCRIPTION = "row softmax: one block per row, shared-memory max and sum reductions, expf"
DEFAULT_SIZE = 1024
SMALL_SIZE = 4
RTOL = 1e-5
ATOL = 1e-7
BLOCK = 128
MIN_COLS = 128


def softmax(x, out):
    buf = cuda.shared.array(128, float32)  # one slot per thread (BLOCK)
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]

    m = float32(-math.inf)
    for c in range(t, cols, 128):
        m = max(m, x[row, c])
    buf[t] = m
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            buf[t] = max(buf[t], buf[t + step])
        cuda.syncthreads()
        step //= 2
    m = buf[0]
    cuda.syncthreads()  # everyone has read the max before buf is reused

    s = float32(0.0)
    for c in range(t, cols, 128):
        s += math.exp(x[row, c] - m)
    buf[t] = s
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        cuda.syncthreads()
        step //= 2
    inv = float32(1.0) / buf[0]

    for c in range(t, cols, 128):
        out[row, c] = math.exp(x[row, c] - m) * inv


KERNELS = [(softmax, (float32[:, ::1], float32[:, ::1]))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((size, max(size, MIN_COLS))).astype(np.float32)}


def run(launch, inp):
    x = inp["x"]
    out = np.zeros_like(x)
    launch(softmax, x.shape[0], BLOCK, x, out)
    return {"out": out}


def reference(inp):
    x = inp["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"out": (e / e.sum(axis=1, keepdims=True)).astype(np.float32)}
