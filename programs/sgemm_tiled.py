"""sgemm_tiled: c = a @ b in float32 with 16x16 shared-memory tiles.

size: a, b and c are size x size. block = (16, 16) threads, one per element of c;
grid = (ceil(size/16), ceil(size/16)). Each block walks the k dimension in steps of 16: every thread
loads one element of the a tile and one of the b tile into shared memory, __syncthreads, 16 fmas,
__syncthreads. Out-of-range tile elements are loaded as 0, so any size works.
"""
import numpy as np
from numba import cuda, float32

NAME = "sgemm_tiled"
DESCRIPTION = "float32 matrix multiply with 16x16 shared-memory tiles"
DEFAULT_SIZE = 256
SMALL_SIZE = 32
RTOL = 1e-5
ATOL = 1e-5
TILE = 16


def sgemm_tiled(a, b, c):
    a_tile = cuda.shared.array((16, 16), float32)
    b_tile = cuda.shared.array((16, 16), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * 16 + ty
    col = cuda.blockIdx.x * 16 + tx
    m = a.shape[0]
    depth = a.shape[1]
    n = b.shape[1]
    acc = float32(0.0)
    for k0 in range(0, depth, 16):
        va = float32(0.0)
        if row < m and k0 + tx < depth:
            va = a[row, k0 + tx]
        a_tile[ty, tx] = va
        vb = float32(0.0)
        if k0 + ty < depth and col < n:
            vb = b[k0 + ty, col]
        b_tile[ty, tx] = vb
        cuda.syncthreads()
        for k in range(16):
            acc += a_tile[ty, k] * b_tile[k, tx]
        cuda.syncthreads()
    if row < m and col < n:
        c[row, col] = acc


KERNELS = [(sgemm_tiled, (float32[:, ::1], float32[:, ::1], float32[:, ::1]))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": rng.random((size, size), dtype=np.float32), "b": rng.random((size, size), dtype=np.float32)}


def run(launch, inp):
    a, b = inp["a"], inp["b"]
    c = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    grid = ((c.shape[1] + TILE - 1) // TILE, (c.shape[0] + TILE - 1) // TILE)
    launch(sgemm_tiled, grid, (TILE, TILE), a, b, c)
    return {"c": c}


def reference(inp):
    return {"c": (inp["a"].astype(np.float64) @ inp["b"].astype(np.float64)).astype(np.float32)}
