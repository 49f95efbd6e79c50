"""Small numba.cuda kernels built to trigger (or not) each advice rule, launched on the `tiny` preset in
timing mode. Each returns the LaunchResult."""
from __future__ import annotations

import math

import numpy as np
from numba import cuda

import gpusim

GPU = "tiny"     # 2 SMs of 16 warps, 4 CTAs each


def run(kernel, grid, block, *args, **kw):
    return gpusim.launch(kernel, grid, block, *args, gpu=GPU, mode="timing", **kw)


@cuda.jit
def copy(x, out):
    i = cuda.grid(1)
    out[i] = x[i]


@cuda.jit
def strided_copy(x, out):
    i = cuda.grid(1)
    out[i] = x[i * 8]


@cuda.jit
def shared_rows(out, stride):
    """Each thread writes and reads shared word tid*stride: stride 32 puts a warp on one bank."""
    sm = cuda.shared.array(2048, dtype=np.float32)
    t = cuda.threadIdx.x
    sm[(t * stride) % 2048] = t
    cuda.syncthreads()
    out[cuda.grid(1)] = sm[(t * stride) % 2048] + 1.0


@cuda.jit
def odd_even(x, out):
    i = cuda.grid(1)
    if cuda.threadIdx.x % 2 == 0:
        out[i] = math.sqrt(x[i]) * 3.0 + 1.0


@cuda.jit
def bounds(x, out, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = x[i] * 2.0


@cuda.jit
def fma_loop(out, n):
    """Register arithmetic only: n dependent FMAs per thread, one store."""
    a = cuda.threadIdx.x * 1.0
    for _ in range(n):
        a = a * 1.0001 + 0.5
    out[cuda.grid(1)] = a


def launch_copy(strided: bool = False):
    n = 256
    x = np.arange(8 * n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    return run(strided_copy if strided else copy, 2, 128, x, out)


def launch_shared(stride: int):
    return run(shared_rows, 1, 64, np.zeros(64, np.float32), np.int64(stride))


def launch_branch(divergent: bool):
    n = 256
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    if divergent:
        return run(odd_even, 2, 128, x, out)
    return run(bounds, 2, 128, x, out, np.int64(n))


def launch_fma(n_iter: int = 64, grid: int = 2, block: int = 64, **kw):
    return run(fma_loop, grid, block, np.zeros(grid * block, np.float32), np.int64(n_iter), **kw)
