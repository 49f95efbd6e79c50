"""Held-out kernels: shared-memory kernels (pointer chase, scan, bitonic sort, tiled matrixMul).

Sources and the suite are described in validation/cases/heldout/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, float32, int32, uint32

from validation.cases._case import make_case, poison
from validation.cases.heldout._common import GROUP, _small_float_ints

# ---------------------------------------------------------------------------------------------------
# 9. Shared-memory pointer chase over a random permutation. Source: the pointer-chasing latency
# benchmarks of Saavedra-Barrera and of Wong et al., "Demystifying GPU Microarchitecture through
# Microbenchmarking" (ISPASS 2010), as a whole kernel: the block copies a random permutation of 4096
# words into shared memory, then every thread (4 warps) follows its own chain from its own start.
SC_WORDS = 4096


def smem_chase(perm, steps, out_idx, out_sum):
    sh = cuda.shared.array(4096, int32)
    t = cuda.threadIdx.x
    for i in range(t, 4096, cuda.blockDim.x):
        sh[i] = perm[i]
    cuda.syncthreads()
    j = (t * 31) & 4095
    acc = 0
    for _ in range(steps):
        j = sh[j]
        acc += j
    out_idx[t] = j
    out_sum[t] = acc


def _smem_chase_case(block=128, steps=4096, name="ho_smem_chase"):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"perm": rng.permutation(SC_WORDS).astype(np.int32), "steps": np.int64(steps),
                "out_idx": poison(block, np.int32), "out_sum": poison(block, np.int32)}

    def reference(inp):
        perm = inp["perm"].astype(np.int64)
        j = (np.arange(block) * 31) & (SC_WORDS - 1)
        acc = np.zeros(block, np.int64)
        for _ in range(steps):
            j = perm[j]
            acc += j
        return {"out_idx": j.astype(np.int32), "out_sum": acc.astype(np.int32)}

    return make_case(name, f"shared-memory pointer chase: {block} threads each follow a random permutation of "
                     f"{SC_WORDS} words for {steps} dependent steps (Wong et al. ISPASS 2010-style chase)",
                     GROUP, smem_chase, 1, block, inputs, reference, ("perm", "steps", "out_idx", "out_sum"),
                     ("out_idx", "out_sum"))


# ---------------------------------------------------------------------------------------------------
# 10. Exclusive scan of 1024-element segments. Source: CUDA samples scan (Samples/2_Concepts_and_Techniques/
# scan, scan.cu): scanExclusiveShared with THREADBLOCK_SIZE 256, size 1024: each thread loads a uint4,
# scans it locally (scan4Inclusive), scan1Inclusive over the block's 256 totals in a 2 x 256 shared
# buffer (Hillis-Steele, zero padding, two barriers per step), and writes the exclusive scan.
SCAN_TB = 256


def scan_exclusive_shared(d_dst, d_src, size):
    s_data = cuda.shared.array(512, uint32)   # 2 * THREADBLOCK_SIZE
    tid = cuda.threadIdx.x
    pos = cuda.blockIdx.x * cuda.blockDim.x + tid
    x0 = d_src[pos, 0]
    x1 = d_src[pos, 1]
    x2 = d_src[pos, 2]
    x3 = d_src[pos, 3]
    # scan4Inclusive: local inclusive scan of the four
    y1 = uint32(x1 + x0)
    y2 = uint32(x2 + y1)
    y3 = uint32(x3 + y2)
    # scan1Exclusive(y3, s_data, size / 4) = scan1Inclusive(y3) - y3
    sz = size // 4
    p = 2 * tid - (tid & (sz - 1))
    s_data[p] = 0
    p += sz
    s_data[p] = y3
    offset = 1
    while offset < sz:
        cuda.syncthreads()
        t = uint32(s_data[p] + s_data[p - offset])
        cuda.syncthreads()
        s_data[p] = t
        offset <<= 1
    oval = uint32(s_data[p] - y3)
    # inclusive results minus the inputs: the exclusive scan
    d_dst[pos, 0] = oval
    d_dst[pos, 1] = uint32(oval + x0)
    d_dst[pos, 2] = uint32(oval + y1)
    d_dst[pos, 3] = uint32(oval + y2)


def _scan_case(n=1 << 22, name="ho_scan_exclusive"):
    seg = 4 * SCAN_TB

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"d_dst": np.full((n // 4, 4), 0xFFFFFFFF, np.uint32),
                "d_src": rng.integers(0, 1024, (n // 4, 4), dtype=np.uint32), "size": np.int64(seg)}

    def reference(inp):
        s = inp["d_src"].reshape(-1, seg).astype(np.int64)
        ex = np.cumsum(s, axis=1) - s
        return {"d_dst": ex.astype(np.uint32).reshape(n // 4, 4)}

    return make_case(name, f"exclusive scan of {n} uint32 in 1024-element segments; CUDA samples scan "
                     "scanExclusiveShared (uint4 per thread, Hillis-Steele over 256 in shared memory)",
                     GROUP, scan_exclusive_shared, n // seg, SCAN_TB, inputs, reference,
                     ("d_dst", "d_src", "size"), ("d_dst",))


# ---------------------------------------------------------------------------------------------------
# 11. Bitonic sort of 1024-key segments in shared memory. Source: CUDA samples sortingNetworks
# (Samples/2_Concepts_and_Techniques/sortingNetworks, bitonicSort.cu): bitonicSortShared with
# SHARED_SIZE_LIMIT 1024 (512 threads, two keys each), key + value, Comparator inlined.
def bitonic_sort_shared(d_dst_key, d_dst_val, d_src_key, d_src_val, array_length, direction):
    s_key = cuda.shared.array(1024, uint32)
    s_val = cuda.shared.array(1024, uint32)
    tid = cuda.threadIdx.x
    base = cuda.blockIdx.x * 1024 + tid
    s_key[tid] = d_src_key[base]
    s_val[tid] = d_src_val[base]
    s_key[tid + 512] = d_src_key[base + 512]
    s_val[tid + 512] = d_src_val[base + 512]
    size = 2
    while size < array_length:
        ddd = direction ^ (1 if (tid & (size // 2)) != 0 else 0)
        stride = size // 2
        while stride > 0:
            cuda.syncthreads()
            pos = 2 * tid - (tid & (stride - 1))
            key_a = s_key[pos]
            key_b = s_key[pos + stride]
            if (key_a > key_b) == (ddd != 0):
                val_a = s_val[pos]
                s_key[pos] = key_b
                s_key[pos + stride] = key_a
                s_val[pos] = s_val[pos + stride]
                s_val[pos + stride] = val_a
            stride >>= 1
        size <<= 1
    stride = array_length // 2
    while stride > 0:
        cuda.syncthreads()
        pos = 2 * tid - (tid & (stride - 1))
        key_a = s_key[pos]
        key_b = s_key[pos + stride]
        if (key_a > key_b) == (direction != 0):
            val_a = s_val[pos]
            s_key[pos] = key_b
            s_key[pos + stride] = key_a
            s_val[pos] = s_val[pos + stride]
            s_val[pos + stride] = val_a
        stride >>= 1
    cuda.syncthreads()
    d_dst_key[base] = s_key[tid]
    d_dst_val[base] = s_val[tid]
    d_dst_key[base + 512] = s_key[tid + 512]
    d_dst_val[base + 512] = s_val[tid + 512]


def _bitonic_case(n=1 << 18, name="ho_bitonic_sort_shared"):
    seg = 1024

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        # distinct keys (an odd multiplier is a bijection mod 2^32), so the sorted values are unique
        keys = (rng.permutation(n).astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
        return {"d_dst_key": np.full(n, 0xFFFFFFFF, np.uint32), "d_dst_val": np.full(n, 0xFFFFFFFF, np.uint32),
                "d_src_key": keys.astype(np.uint32), "d_src_val": np.arange(n, dtype=np.uint32),
                "array_length": np.int64(seg), "direction": np.int64(1)}

    def reference(inp):
        k = inp["d_src_key"].reshape(-1, seg)
        order = np.argsort(k, axis=1, kind="stable")
        vals = inp["d_src_val"].reshape(-1, seg)
        return {"d_dst_key": np.take_along_axis(k, order, 1).ravel(),
                "d_dst_val": np.take_along_axis(vals, order, 1).ravel()}

    return make_case(name, f"bitonic sort of {n} uint32 keys + values in 1024-key segments in shared memory; "
                     "CUDA samples sortingNetworks bitonicSortShared (512 threads)", GROUP, bitonic_sort_shared,
                     n // seg, 512, inputs, reference,
                     ("d_dst_key", "d_dst_val", "d_src_key", "d_src_val", "array_length", "direction"),
                     ("d_dst_key", "d_dst_val"))


# ---------------------------------------------------------------------------------------------------
# 12. Tiled matrix multiply with 32x32 tiles. Source: CUDA samples matrixMul (Samples/0_Introduction/
# matrixMul, matrixMul.cu): MatrixMulCUDA<32> at the sample's default sizes, A 320x320, B 320x640
# (dimsA = 5*2*block_size square, dimsB = 5*4*block_size x 5*2*block_size), grid (20, 10) x (32, 32).
MM_BS = 32


def matrix_mul_32(c, a, b, w_a, w_b):
    a_s = cuda.shared.array((32, 32), float32)
    b_s = cuda.shared.array((32, 32), float32)
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    a_begin = w_a * 32 * by
    a_end = a_begin + w_a - 1
    b_step = 32 * w_b
    c_sub = float32(0.0)
    ia = a_begin
    ib = 32 * bx
    while ia <= a_end:
        a_s[ty, tx] = a[ia + w_a * ty + tx]
        b_s[ty, tx] = b[ib + w_b * ty + tx]
        cuda.syncthreads()
        for kk in range(32):
            c_sub += a_s[ty, kk] * b_s[kk, tx]
        cuda.syncthreads()
        ia += 32
        ib += b_step
    cc = w_b * 32 * by + 32 * bx
    c[cc + w_b * ty + tx] = c_sub


def _matmul32_case(h_a=320, w_a=320, w_b=640, name="ho_matmul_tile32"):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"c": poison(h_a * w_b, np.float32), "a": _small_float_ints(rng, h_a * w_a),
                "b": _small_float_ints(rng, w_a * w_b), "w_a": np.int64(w_a), "w_b": np.int64(w_b)}

    def reference(inp):
        a = inp["a"].reshape(h_a, w_a).astype(np.float64)
        b = inp["b"].reshape(w_a, w_b).astype(np.float64)
        return {"c": (a @ b).astype(np.float32).ravel()}

    return make_case(name, f"C = A B, A {h_a}x{w_a}, B {w_a}x{w_b}, 32x32 shared-memory tiles; CUDA samples "
                     "matrixMul MatrixMulCUDA<32> at its default sizes", GROUP, matrix_mul_32,
                     (w_b // MM_BS, h_a // MM_BS), (MM_BS, MM_BS), inputs, reference,
                     ("c", "a", "b", "w_a", "w_b"), ("c",))
