"""transpose_tiled: out = a.T through a 32x33 shared-memory tile (the +1 column avoids bank conflicts).

size: the matrix is size x size float32. block = (32, 8) threads, each handling 4 rows of a 32x32 tile;
grid = (ceil(size/32), ceil(size/32)). Both loads and stores are coalesced.
"""
import numpy as np
from numba import cuda, float32

NAME = "transpose_tiled"
DESCRIPTION = "matrix transpose through a padded 32x33 shared tile (coalesced loads and stores)"
DEFAULT_SIZE = 1024
SMALL_SIZE = 64
RTOL = 0.0
ATOL = 0.0
TILE = 32
BLOCK = (32, 8)


def transpose_tiled(a, out):
    tile = cuda.shared.array((32, 33), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows = a.shape[0]
    cols = a.shape[1]
    x = cuda.blockIdx.x * 32 + tx
    y = cuda.blockIdx.y * 32 + ty
    for j in range(0, 32, 8):
        if x < cols and y + j < rows:
            tile[ty + j, tx] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * 32 + tx  # column of out = row of a
    y = cuda.blockIdx.x * 32 + ty  # row of out = column of a
    for j in range(0, 32, 8):
        if x < rows and y + j < cols:
            out[y + j, x] = tile[tx, ty + j]


KERNELS = [(transpose_tiled, (float32[:, ::1], float32[:, ::1]))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": rng.random((size, size), dtype=np.float32)}


def run(launch, inp):
    a = inp["a"]
    rows, cols = a.shape
    out = np.zeros((cols, rows), dtype=np.float32)
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    launch(transpose_tiled, grid, BLOCK, a, out)
    return {"out": out}


def reference(inp):
    return {"out": np.ascontiguousarray(inp["a"].T)}
