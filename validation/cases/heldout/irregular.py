"""Held-out kernels: irregular access (diagonal transpose, CSR SpMV, gather).

Sources and the suite are described in validation/cases/heldout/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, float32

from validation.cases._case import make_case, poison
from validation.cases.heldout._common import FULL_MASK, GROUP, _small_float_ints

# ---------------------------------------------------------------------------------------------------
# 17. Transpose with diagonal block reordering. Source: CUDA samples transpose (Samples/6_Performance/
# transpose, transpose.cu): transposeDiagonal, TILE_DIM 16, BLOCK_ROWS 16, tile padded to 16x17;
# blocks are remapped along diagonals to spread the accesses over memory partitions.
TR_TILE = 16


def transpose_diagonal(odata, idata, width, height):
    tile = cuda.shared.array((16, 17), float32)
    if width == height:
        bid_y = cuda.blockIdx.x
        bid_x = (cuda.blockIdx.x + cuda.blockIdx.y) % cuda.gridDim.x
    else:
        bid = cuda.blockIdx.x + cuda.gridDim.x * cuda.blockIdx.y
        bid_y = bid % cuda.gridDim.y
        bid_x = ((bid // cuda.gridDim.y) + bid_y) % cuda.gridDim.x
    x_index = bid_x * 16 + cuda.threadIdx.x
    y_index = bid_y * 16 + cuda.threadIdx.y
    index_in = x_index + y_index * width
    x_index = bid_y * 16 + cuda.threadIdx.x
    y_index = bid_x * 16 + cuda.threadIdx.y
    index_out = x_index + y_index * height
    for i in range(0, 16, 16):               # BLOCK_ROWS = TILE_DIM in the sample: one row per thread
        tile[cuda.threadIdx.y + i, cuda.threadIdx.x] = idata[index_in + i * width]
    cuda.syncthreads()
    for i in range(0, 16, 16):
        odata[index_out + i * height] = tile[cuda.threadIdx.x, cuda.threadIdx.y + i]


def _transpose_diag_case(w=2048, h=1024, name="ho_transpose_diagonal"):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"odata": poison(w * h, np.float32), "idata": rng.random(w * h, dtype=np.float32),
                "width": np.int64(w), "height": np.int64(h)}

    def reference(inp):
        return {"odata": np.ascontiguousarray(inp["idata"].reshape(h, w).T).ravel()}

    return make_case(name, f"transpose of a {h}x{w} float32 matrix, 16x16 tiles (16x17 in shared memory), "
                     "blocks reordered along diagonals; CUDA samples transpose transposeDiagonal", GROUP,
                     transpose_diagonal, (w // TR_TILE, h // TR_TILE), (TR_TILE, TR_TILE), inputs, reference,
                     ("odata", "idata", "width", "height"), ("odata",))


# ---------------------------------------------------------------------------------------------------
# 18, 19. CSR sparse matrix-vector product y += A x. Source: N. Bell and M. Garland, "Efficient Sparse
# Matrix-Vector Multiplication on CUDA" (NVIDIA Technical Report NVR-2008-004), spmv_csr_scalar_kernel
# (one thread per row) and spmv_csr_vector_kernel (one warp per row; its warp-synchronous shared-memory
# reduction is written with shfl_down_sync, the Volta-safe form). Same random matrix for both:
# 65536 x 65536, 0..63 nonzeros per row (2.1 M), small-integer values.
def spmv_csr_scalar(num_rows, ptr, indices, data, x, y):
    row = cuda.blockDim.x * cuda.blockIdx.x + cuda.threadIdx.x
    if row < num_rows:
        dot = float32(0.0)
        row_start = ptr[row]
        row_end = ptr[row + 1]
        for jj in range(row_start, row_end):
            dot += data[jj] * x[indices[jj]]
        y[row] += dot


def spmv_csr_vector(num_rows, ptr, indices, data, x, y):
    thread_id = cuda.blockDim.x * cuda.blockIdx.x + cuda.threadIdx.x
    warp_id = thread_id // 32
    lane = thread_id & 31
    row = warp_id
    if row < num_rows:
        row_start = ptr[row]
        row_end = ptr[row + 1]
        v = float32(0.0)
        for jj in range(row_start + lane, row_end, 32):
            v += data[jj] * x[indices[jj]]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            y[row] += v


def _spmv_case(name, vector, rows=1 << 16, max_nnz=64, block=256):
    grid = (rows * (32 if vector else 1) + block - 1) // block

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        counts = rng.integers(0, max_nnz, rows)
        ptr = np.zeros(rows + 1, np.int32)
        ptr[1:] = np.cumsum(counts)
        nnz = int(ptr[-1])
        indices = _sorted_random_columns(rng, counts, rows)
        return {"num_rows": np.int64(rows), "ptr": ptr, "indices": indices,
                "data": _small_float_ints(rng, nnz), "x": _small_float_ints(rng, rows),
                "y": _small_float_ints(rng, rows, -100, 100)}

    def reference(inp):
        ptr, idx = inp["ptr"], inp["indices"]
        prod = inp["data"].astype(np.float64) * inp["x"].astype(np.float64)[idx]
        row_of = np.repeat(np.arange(rows), np.diff(ptr))
        dots = np.bincount(row_of, weights=prod, minlength=rows)  # exact: small integers
        return {"y": (inp["y"].astype(np.float64) + dots).astype(np.float32)}

    return make_case(name, f"CSR SpMV y += A x, {rows} rows with 0..{max_nnz - 1} nonzeros each, "
                     f"{'one warp per row (csr vector)' if vector else 'one thread per row (csr scalar)'}; "
                     "Bell & Garland NVR-2008-004", GROUP, spmv_csr_vector if vector else spmv_csr_scalar,
                     grid, block, inputs, reference, ("num_rows", "ptr", "indices", "data", "x", "y"), ("y",))


def _sorted_random_columns(rng, counts, ncols) -> np.ndarray:
    """Column indices of each row, sorted: row r takes the columns (start + k * step) mod ncols, k < counts[r],
    with a random start and an odd step (distinct: ncols is a power of two, counts[r] <= ncols)."""
    starts = rng.integers(0, ncols, counts.size)
    steps = 2 * rng.integers(0, max(1, ncols // 128), counts.size) + 1
    rows = np.repeat(np.arange(counts.size), counts)
    k = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    cols = (starts[rows] + k * steps[rows]) % ncols
    return (np.sort(rows * ncols + cols) % ncols).astype(np.int32)


# ---------------------------------------------------------------------------------------------------
# 21. Random gather out[i] = src[idx[i]]. Source: the textbook gather (e.g. the gather/scatter patterns of
# McCool, Robison & Reinders, "Structured Parallel Programming", ch. 6): coalesced index loads and
# stores, one 4-byte load per 32-byte sector from a random permutation.
def gather(src, idx, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = src[idx[i]]


def _gather_case(n=1 << 22, block=256, name="ho_gather_random"):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"src": rng.integers(-(1 << 30), 1 << 30, n, dtype=np.int32),
                "idx": rng.permutation(n).astype(np.int32), "out": poison(n, np.int32)}

    def reference(inp):
        return {"out": inp["src"][inp["idx"]]}

    return make_case(name, f"random gather out[i] = src[perm[i]] over {n} int32 (structured parallel "
                     "programming gather pattern)", GROUP, gather, (n + block - 1) // block, block, inputs,
                     reference, ("src", "idx", "out"), ("out",))
