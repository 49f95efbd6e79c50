"""Held-out kernels: local memory and register spills.

Sources and the suite are described in validation/cases/heldout/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, float32, int32

from validation.cases._case import make_case, poison
from validation.cases.heldout._common import GROUP, _small_float_ints

# ---------------------------------------------------------------------------------------------------
# 1. Thread-private histogram in local memory (ld.local/st.local at data-dependent indices).
# Source: the privatization pattern of Kirk & Hwu, "Programming Massively Parallel Processors" ch. 9,
# taken down to one private copy per thread, as the CUDA samples' histogram64 keeps per-thread
# sub-histograms (there in shared memory; here in a cuda.local.array, which the data-dependent index
# keeps out of registers). Each thread counts its values into 128 private bins, then writes the mode.
LH_BINS = 128


def local_hist_mode(x, per_thread, mode, count):
    h = cuda.local.array(128, int32)
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    for b in range(128):
        h[b] = 0
    for k in range(per_thread):
        h[x[k * nth + t] & 127] += 1
    best = 0
    top = h[0]
    for b in range(1, 128):
        c = h[b]
        if c > top:
            top = c
            best = b
    mode[t] = best
    count[t] = top


def _local_hist_case(grid=264, block=256, per_thread=64, name="ho_local_hist_mode"):
    nth = grid * block

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"x": rng.integers(0, 1 << 20, nth * per_thread, dtype=np.int32),
                "per_thread": np.int64(per_thread), "mode": poison(nth, np.int32), "count": poison(nth, np.int32)}

    def reference(inp):
        v = (inp["x"].reshape(per_thread, nth) & (LH_BINS - 1)).astype(np.int64)
        keys = np.arange(nth)[None, :] * LH_BINS + v
        h = np.bincount(keys.ravel(), minlength=nth * LH_BINS).reshape(nth, LH_BINS)
        return {"mode": h.argmax(axis=1).astype(np.int32), "count": h.max(axis=1).astype(np.int32)}

    return make_case(name, f"thread-private 128-bin histogram in a cuda.local.array indexed by the data "
                     f"(local memory), then its mode; {per_thread} int32 values per thread (privatization, "
                     "PMPP ch. 9 / CUDA samples histogram64's per-thread sub-histograms)", GROUP,
                     local_hist_mode, grid, block, inputs, reference, ("x", "per_thread", "mode", "count"),
                     ("mode", "count"))


# ---------------------------------------------------------------------------------------------------
# 2. Register-blocked SGEMM with a 16x16 result tile per thread: 256 accumulators + 32 operands, more than
# sm_90's 255 registers, so ptxas spills. Source: Simon Boehm, SGEMM_CUDA, kernel 5 "2D blocktiling"
# (github.com/siboehm/SGEMM_CUDA, src/kernels/5_kernel_2D_blocktiling.cuh), with TM = TN = 16 instead of
# 8 (64 threads per 128x128 block tile), alpha = 1, beta = 0, and the tile loads strided over the
# flattened tile so that 64 threads fill it.
RT_BM, RT_BN, RT_BK, RT_TM, RT_TN = 128, 128, 8, 16, 16
RT_THREADS = (RT_BM // RT_TM) * (RT_BN // RT_TN)


def sgemm_2d_blocktiling(m, n, k, a, b, c):
    a_s = cuda.shared.array(1024, float32)   # RT_BM * RT_BK
    b_s = cuda.shared.array(1024, float32)   # RT_BK * RT_BN
    c_row = cuda.blockIdx.y
    c_col = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    thread_col = tid % 8                     # RT_BN // RT_TN
    thread_row = tid // 8
    results = cuda.local.array(256, float32)  # RT_TM * RT_TN
    reg_m = cuda.local.array(16, float32)
    reg_n = cuda.local.array(16, float32)
    for i in range(256):
        results[i] = 0.0
    a_base = c_row * 128 * k
    b_base = c_col * 128
    for bk in range(0, k, 8):
        for e in range(tid, 1024, 64):       # a tile: 128 rows x 8 columns
            a_s[e] = a[a_base + (e // 8) * k + bk + e % 8]
        for e in range(tid, 1024, 64):       # b tile: 8 rows x 128 columns
            b_s[e] = b[(bk + e // 128) * n + b_base + e % 128]
        cuda.syncthreads()
        for dot in range(8):
            for i in range(16):
                reg_m[i] = a_s[(thread_row * 16 + i) * 8 + dot]
            for i in range(16):
                reg_n[i] = b_s[dot * 128 + thread_col * 16 + i]
            for rm in range(16):
                for rn in range(16):
                    results[rm * 16 + rn] += reg_m[rm] * reg_n[rn]
        cuda.syncthreads()
    c_base = c_row * 128 * n + c_col * 128
    for rm in range(16):
        for rn in range(16):
            c[c_base + (thread_row * 16 + rm) * n + thread_col * 16 + rn] = results[rm * 16 + rn]


def _regtile_case(m=1024, n=1024, k=64, name="ho_sgemm_regtile16"):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"m": np.int64(m), "n": np.int64(n), "k": np.int64(k),
                "a": _small_float_ints(rng, m * k), "b": _small_float_ints(rng, k * n),
                "c": poison(m * n, np.float32)}

    def reference(inp):
        a = inp["a"].reshape(m, k).astype(np.float64)
        b = inp["b"].reshape(k, n).astype(np.float64)
        return {"c": (a @ b).astype(np.float32).ravel()}

    return make_case(name, f"SGEMM {m}x{n}x{k}, 128x128 block tiles, a 16x16 register tile per thread (256 "
                     "accumulators: spills on sm_90); siboehm/SGEMM_CUDA kernel 5 (2D blocktiling) with TM=TN=16",
                     GROUP, sgemm_2d_blocktiling, (n // RT_BN, m // RT_BM), RT_THREADS, inputs, reference,
                     ("m", "n", "k", "a", "b", "c"), ("c",))
