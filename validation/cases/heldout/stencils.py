"""Held-out kernels: stencils and separable convolution.

Sources and the suite are described in validation/cases/heldout/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, float32, int32

from validation.cases._case import make_case, poison
from validation.cases.heldout._common import GROUP, _small_float_ints

# ---------------------------------------------------------------------------------------------------
# 15, 16. Separable convolution, row and column passes. Source: CUDA samples convolutionSeparable
# (Samples/2_Concepts_and_Techniques/convolutionSeparable, convolutionSeparable.cu): KERNEL_RADIUS 8,
# the filter in constant memory (c_Kernel), rows: 16x4 threads, 8 result steps, 1 halo step;
# columns: 16x8 threads, 8 result steps, 1 halo step, shared tile padded by one column. Integer-valued
# image and filter (the sample's are random floats): every sum is exact.
CONV_RADIUS = 8
CONV_FILTER = np.array([1, -2, 3, 0, -1, 2, 1, -3, 4, -3, 1, 2, -1, 0, 3, -2, 1], np.float32)
ROWS_BX, ROWS_BY, ROWS_STEPS, ROWS_HALO = 16, 4, 8, 1
COLS_BX, COLS_BY, COLS_STEPS, COLS_HALO = 16, 8, 8, 1


def convolution_rows(d_dst, d_src, image_w, image_h, pitch):
    c_kernel = cuda.const.array_like(CONV_FILTER)
    s_data = cuda.shared.array((4, 160), float32)   # ROWS_BY x (STEPS + 2 * HALO) * ROWS_BX
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    base_x = (cuda.blockIdx.x * 8 - 1) * 16 + tx
    base_y = cuda.blockIdx.y * 4 + ty
    off = base_y * pitch + base_x
    for i in range(1, 9):                   # main data
        s_data[ty, tx + i * 16] = d_src[off + i * 16]
    for i in range(0, 1):                   # left halo
        s_data[ty, tx + i * 16] = d_src[off + i * 16] if base_x >= -i * 16 else float32(0.0)
    for i in range(9, 10):                  # right halo
        s_data[ty, tx + i * 16] = d_src[off + i * 16] if image_w - base_x > i * 16 else float32(0.0)
    cuda.syncthreads()
    for i in range(1, 9):
        acc = float32(0.0)
        for j in range(-8, 9):
            acc += c_kernel[8 - j] * s_data[ty, tx + i * 16 + j]
        d_dst[off + i * 16] = acc


def convolution_columns(d_dst, d_src, image_w, image_h, pitch):
    c_kernel = cuda.const.array_like(CONV_FILTER)
    s_data = cuda.shared.array((16, 81), float32)   # COLS_BX x (STEPS + 2 * HALO) * COLS_BY + 1
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    base_x = cuda.blockIdx.x * 16 + tx
    base_y = (cuda.blockIdx.y * 8 - 1) * 8 + ty
    off = base_y * pitch + base_x
    for i in range(1, 9):                   # main data
        s_data[tx, ty + i * 8] = d_src[off + i * 8 * pitch]
    for i in range(0, 1):                   # upper halo
        s_data[tx, ty + i * 8] = d_src[off + i * 8 * pitch] if base_y >= -i * 8 else float32(0.0)
    for i in range(9, 10):                  # lower halo
        s_data[tx, ty + i * 8] = d_src[off + i * 8 * pitch] if image_h - base_y > i * 8 else float32(0.0)
    cuda.syncthreads()
    for i in range(1, 9):
        acc = float32(0.0)
        for j in range(-8, 9):
            acc += c_kernel[8 - j] * s_data[tx, ty + i * 8 + j]
        d_dst[off + i * 8 * pitch] = acc


def _conv_reference(src: np.ndarray, axis: int) -> np.ndarray:
    """dst[x] = sum_j filter[R - j] * src[x + j], zero outside the image, along `axis`."""
    pad = [(0, 0), (0, 0)]
    pad[axis] = (CONV_RADIUS, CONV_RADIUS)
    p = np.pad(src.astype(np.float64), pad)
    n = src.shape[axis]
    out = np.zeros(src.shape, np.float64)
    for j in range(-CONV_RADIUS, CONV_RADIUS + 1):
        sl = [slice(None), slice(None)]
        sl[axis] = slice(CONV_RADIUS + j, CONV_RADIUS + j + n)
        out += float(CONV_FILTER[CONV_RADIUS - j]) * p[tuple(sl)]
    return out.astype(np.float32)


def _conv_case(name, rows, w=1024, h=1024):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"d_dst": poison(w * h, np.float32), "d_src": _small_float_ints(rng, w * h, 0, 15),
                "image_w": np.int64(w), "image_h": np.int64(h), "pitch": np.int64(w)}

    def reference(inp):
        return {"d_dst": _conv_reference(inp["d_src"].reshape(h, w), 1 if rows else 0).ravel()}

    if rows:
        grid, block, kern = (w // (ROWS_STEPS * ROWS_BX), h // ROWS_BY), (ROWS_BX, ROWS_BY), convolution_rows
    else:
        grid, block, kern = (w // COLS_BX, h // (COLS_STEPS * COLS_BY)), (COLS_BX, COLS_BY), convolution_columns
    return make_case(name, f"separable convolution, {'row' if rows else 'column'} pass, radius 8, {w}x{h} "
                     f"float32, filter in constant memory; CUDA samples convolutionSeparable "
                     f"convolution{'Rows' if rows else 'Columns'}Kernel", GROUP, kern, grid, block, inputs,
                     reference, ("d_dst", "d_src", "image_w", "image_h", "pitch"), ("d_dst",))


# ---------------------------------------------------------------------------------------------------
# 20. 1-D stencil with a shared-memory halo. Source: NVIDIA, "CUDA C/C++ Basics" (Supercomputing 2011
# tutorial, C. Zeller), stencil_1d: RADIUS 3, BLOCK_SIZE 256, each block stages BLOCK_SIZE + 2*RADIUS
# inputs in shared memory (the first RADIUS threads load the halos) and sums 7 neighbours. `inp` is
# padded by RADIUS on both sides, as in the tutorial (in + RADIUS).
ST_RADIUS, ST_BLOCK = 3, 256


def stencil_1d(inp, out):
    temp = cuda.shared.array(262, int32)   # BLOCK_SIZE + 2 * RADIUS
    gindex = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x + 3  # in + RADIUS
    lindex = cuda.threadIdx.x + 3
    temp[lindex] = inp[gindex]
    if cuda.threadIdx.x < 3:
        temp[lindex - 3] = inp[gindex - 3]
        temp[lindex + 256] = inp[gindex + 256]
    cuda.syncthreads()
    result = 0
    for offset in range(-3, 4):
        result += temp[lindex + offset]
    out[gindex - 3] = result


def _stencil_case(n=1 << 22, name="ho_stencil1d"):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"inp": rng.integers(-(1 << 20), 1 << 20, n + 2 * ST_RADIUS, dtype=np.int32),
                "out": poison(n, np.int32)}

    def reference(inp):
        a = inp["inp"].astype(np.int64)
        out = sum(a[ST_RADIUS + o:ST_RADIUS + o + n] for o in range(-ST_RADIUS, ST_RADIUS + 1))
        return {"out": out.astype(np.int32)}

    return make_case(name, f"1-D stencil, radius 3, over {n} int32 with a shared-memory halo; NVIDIA "
                     "'CUDA C/C++ Basics' stencil_1d", GROUP, stencil_1d, n // ST_BLOCK, ST_BLOCK, inputs,
                     reference, ("inp", "out"), ("out",))
