"""Held-out whole kernels ported from public code (none written for this project), as validation cases.

Like `programs.py`, these are never used for fitting the preset: they measure how well gpusim predicts
code it was not tuned on. Each case names its source in DESCRIPTION and in the comment above its kernel:
the NVIDIA CUDA samples (scan, sortingNetworks, matrixMul, convolutionSeparable, transpose, reduction),
Mark Harris's "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), Sanders & Kandrot's "CUDA by
Example" (histogram with global atomics), NVIDIA developer-blog kernels (warp-aggregated atomics;
Volta-safe warp-synchronous code), Bell & Garland's CSR SpMV kernels (NVIDIA NVR-2008-004), the
stencil_1d of NVIDIA's "CUDA C/C++ Basics" tutorial, Simon Boehm's SGEMM_CUDA 2-D block tiling, and
textbook patterns (thread-private histograms, pointer chases, gathers).

Rules every case follows:
- one kernel launch; every check is bit-exact (RTOL = ATOL = 0). Float cases use small integers stored
  as float32, so every partial sum is exact and the result does not depend on the summation order or on
  NVVM contracting a*b+c into fma (the validation suite compiles with contraction on, as the GPU does).
  Kernels whose float results depend on libdevice or on rounding order (BlackScholes, n-body,
  Mandelbrot, Monte Carlo) are left out for that reason.
- no float atomics; integer atomics only where their result is order-independent, or the check is
  (stream compaction: `run` sorts the compacted prefix before it is compared).
- the recorder relaunches a case's kernel on the same device arrays for its timings, so no kernel may
  index out of bounds on a relaunch: the compaction kernels write their output modulo its (power-of-two)
  capacity.

`small_cases()` builds small variants of every case (same kernels) for numba's CUDA simulator and for
the fast functional test in tests/timing/test_heldout_cases.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, float32, int32, int64, uint32

from validation.cases._case import Case, dim3, make_case, poison, single_launch

GROUP = "programs"
FULL_MASK = 0xFFFFFFFF


def _small_float_ints(rng, shape, lo=-4, hi=4) -> np.ndarray:
    """float32 values that are small integers: every product and partial sum of the cases is exact."""
    return rng.integers(lo, hi + 1, size=shape).astype(np.float32)


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


# ---------------------------------------------------------------------------------------------------
# 3, 4. 256-bin histogram with GLOBAL atomics. Source: Sanders & Kandrot, "CUDA by Example" (2010),
# chapter 9, histo_kernel (global-memory atomics version): a grid-stride loop of
# atomicAdd(&histo[buffer[i]], 1) over an unsigned char buffer, launched with 2 blocks per SM x 256.
def histo_global(buffer, size, histo):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    stride = cuda.blockDim.x * cuda.gridDim.x
    while i < size:
        cuda.atomic.add(histo, buffer[i], 1)
        i += stride


def _histo_case(name, skewed, n, grid=264, block=256):
    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        if skewed:  # geometric: half the values are 0, a quarter 1, ...
            v = np.minimum(rng.geometric(0.5, n) - 1, 255).astype(np.uint8)
        else:
            v = rng.integers(0, 256, n, dtype=np.uint8)
        return {"buffer": v, "size": np.int64(n), "histo": np.zeros(256, np.uint32)}

    def reference(inp):
        return {"histo": np.bincount(inp["buffer"], minlength=256).astype(np.uint32)}

    what = "geometric data, ~50% in bin 0" if skewed else "uniform data"
    return make_case(name, f"256-bin histogram of {n} uint8 with global atomicAdd per element, {what}; "
                     "CUDA by Example ch. 9 histo_kernel (global atomics)", GROUP, histo_global, grid, block,
                     inputs, reference, ("buffer", "size", "histo"), ("histo",))


# ---------------------------------------------------------------------------------------------------
# 5, 6. Stream compaction through a global atomic counter. Source: A. Adinets, "CUDA Pro Tip: Optimized
# Filtering with Warp-Aggregated Atomics" (NVIDIA developer blog, 2014): filter_k, one atomicAdd per kept
# element (naive), and the warp-aggregated version, where one lane adds the warp's count and broadcasts
# the base with a shuffle. Here each lane's rank comes from a shfl_up scan of the predicate instead of
# ballot/popc (numba's CUDA simulator has no ballot). The output index is taken modulo the power-of-two
# capacity (`mask`) so that the recorder's relaunches, whose counter keeps growing, stay in bounds; the
# first launch never wraps. The order of the kept elements depends on the atomics' order, so `run` sorts
# the compacted prefix and the check compares it and the count.
def filter_naive(src, n, mask, dst, nres):
    i = cuda.grid(1)
    if i < n:
        v = src[i]
        if v > 0:
            dst[cuda.atomic.add(nres, 0, 1) & mask] = v


def filter_warp_aggregated(src, n, mask, dst, nres):
    i = cuda.grid(1)
    lane = cuda.threadIdx.x & 31
    v = 0
    if i < n:
        v = src[i]
    p = int32(1) if v > 0 else int32(0)
    rank = p  # inclusive scan of p over the warp
    d = 1
    while d < 32:
        y = cuda.shfl_up_sync(FULL_MASK, rank, d)
        if lane >= d:
            rank = int32(rank + y)
        d *= 2
    total = cuda.shfl_sync(FULL_MASK, rank, 31)
    base = int32(0)
    if lane == 0 and total > 0:
        base = cuda.atomic.add(nres, 0, total)
    base = cuda.shfl_sync(FULL_MASK, base, 0)
    if p:
        dst[(base + rank - 1) & mask] = v


def _compact_case(name, kernel, n, block=256):
    grid = (n + block - 1) // block
    cap = 1 << max(0, (n - 1).bit_length())
    launch_once = single_launch(kernel, dim3(grid), dim3(block), ("src", "n", "mask", "dst", "nres"),
                                ("dst", "nres"))

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"src": rng.integers(-3 * (1 << 20), 1 << 20, n, dtype=np.int32), "n": np.int64(n),
                "mask": np.int64(cap - 1), "dst": poison(cap, np.int32), "nres": np.zeros(1, np.int32)}

    def run(launch, inp):
        out = launch_once(launch, inp)
        count = int(out["nres"][0])
        if 0 <= count <= cap:
            out["dst"][:count] = np.sort(out["dst"][:count])
        return out

    def reference(inp):
        kept = np.sort(inp["src"][inp["src"] > 0])
        dst = np.array(inp["dst"], copy=True)
        dst[:kept.size] = kept
        return {"dst": dst, "nres": np.array([kept.size], np.int32)}

    how = "one atomicAdd per kept element" if kernel is filter_naive else \
        "warp-aggregated: one atomicAdd per warp, ranks by a shfl_up scan"
    return Case(NAME=name, DESCRIPTION=f"stream compaction of {n} int32 (keep > 0, ~25%) through a global atomic "
                f"counter, {how}; NVIDIA blog 'Optimized Filtering with Warp-Aggregated Atomics' filter_k. "
                "Checked order-independently: sorted kept prefix and count", GROUP=GROUP, kernel=kernel,
                GRID=dim3(grid), BLOCK=dim3(block), inputs=inputs, run=run, reference=reference,
                ARGS=("src", "n", "mask", "dst", "nres"), OUTPUTS=("dst", "nres"))


# ---------------------------------------------------------------------------------------------------
# 7, 8. Grid-stride sum reduction with two independent global loads per iteration, and its one-load twin.
# Source: the CUDA samples' reduction (Samples/2_Concepts_and_Techniques/reduction, reduction_kernel.cu)
# reduce6 = Harris's kernel #7: `mySum += g_idata[i]; mySum += g_idata[i + blockSize]; i += gridSize`
# with gridSize = 2 * blockSize * gridDim (n a power of two), then the shared tree down to 64 and a
# warp-shuffle finish (cg tiled_partition shfl_down), one per-block partial written to g_odata. int32 data
# summed in int64, partials reduced on the host: bit-exact. The twin loads one element per iteration
# with gridSize = blockSize * gridDim (twice the iterations, same data and finish).
RD_BLOCK = 256


def reduce_gs_two_loads(g_idata, n, g_odata):
    sdata = cuda.shared.array(256, int64)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * (256 * 2) + tid
    grid_size = 256 * 2 * cuda.gridDim.x
    my_sum = int64(0)
    while i < n:
        my_sum += g_idata[i]
        my_sum += g_idata[i + 256]
        i += grid_size
    sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 128:
        my_sum += sdata[tid + 128]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 64:
        my_sum += sdata[tid + 64]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 32:
        my_sum += sdata[tid + 32]
        offset = 16
        while offset > 0:
            my_sum += cuda.shfl_down_sync(FULL_MASK, my_sum, offset)
            offset //= 2
    if tid == 0:
        g_odata[cuda.blockIdx.x] = my_sum


def reduce_gs_one_load(g_idata, n, g_odata):
    sdata = cuda.shared.array(256, int64)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * 256 + tid
    grid_size = 256 * cuda.gridDim.x
    my_sum = int64(0)
    while i < n:
        my_sum += g_idata[i]
        i += grid_size
    sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 128:
        my_sum += sdata[tid + 128]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 64:
        my_sum += sdata[tid + 64]
        sdata[tid] = my_sum
    cuda.syncthreads()
    if tid < 32:
        my_sum += sdata[tid + 32]
        offset = 16
        while offset > 0:
            my_sum += cuda.shfl_down_sync(FULL_MASK, my_sum, offset)
            offset //= 2
    if tid == 0:
        g_odata[cuda.blockIdx.x] = my_sum


def _reduce_gs_case(name, two, n=1 << 24, grid=1024):
    per_iter = 2 * RD_BLOCK if two else RD_BLOCK
    assert n % (per_iter * grid) == 0

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"g_idata": rng.integers(0, 1 << 20, n, dtype=np.int32), "n": np.int64(n),
                "g_odata": poison(grid, np.int64)}

    def reference(inp):
        # element j belongs to block (j // per_iter) % grid in both layouts; exact int64 sums
        a = inp["g_idata"].astype(np.int64).reshape(-1, grid, per_iter)
        return {"g_odata": a.sum(axis=(0, 2))}

    loads = "two independent loads (i, i + blockSize)" if two else "one load"
    return make_case(name, f"grid-stride int32 sum of {n} elements, {loads} per iteration, shared tree + "
                     "shfl_down finish, one int64 partial per block; CUDA samples reduction reduce6 (Harris #7)"
                     + ("" if two else ", one-load twin"), GROUP,
                     reduce_gs_two_loads if two else reduce_gs_one_load, grid, RD_BLOCK, inputs, reference,
                     ("g_idata", "n", "g_odata"), ("g_odata",))


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


# ---------------------------------------------------------------------------------------------------
# 13, 14. Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernels #4 (first add during
# global load, sequential addressing) and #6 (completely unrolled for blockSize 256, last warp unrolled).
# The last warp of #6 is written the Volta-safe way of Lin & Grover, "Using CUDA Warp-Level Primitives"
# (NVIDIA blog, 2018): read, __syncwarp, write, __syncwarp per step, instead of a volatile pointer.
# int32 data, one int32 partial per block (512 elements < 2^16 each: no overflow).
def reduce4_first_add(g_idata, g_odata):
    sdata = cuda.shared.array(256, int32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * (cuda.blockDim.x * 2) + tid
    sdata[tid] = g_idata[i] + g_idata[i + cuda.blockDim.x]
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sdata[tid] += sdata[tid + s]
        cuda.syncthreads()
        s >>= 1
    if tid == 0:
        g_odata[cuda.blockIdx.x] = sdata[0]


def reduce6_unrolled(g_idata, g_odata):
    sdata = cuda.shared.array(256, int32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * (256 * 2) + tid
    sdata[tid] = g_idata[i] + g_idata[i + 256]
    cuda.syncthreads()
    if tid < 128:
        sdata[tid] += sdata[tid + 128]
    cuda.syncthreads()
    if tid < 64:
        sdata[tid] += sdata[tid + 64]
    cuda.syncthreads()
    if tid < 32:
        v = sdata[tid] + sdata[tid + 32]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 16]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 8]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 4]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 2]
        cuda.syncwarp()
        sdata[tid] = v
        cuda.syncwarp()
        v += sdata[tid + 1]
        if tid == 0:
            g_odata[cuda.blockIdx.x] = v


def _harris_case(name, kernel, n=1 << 22):
    grid = n // (2 * RD_BLOCK)

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"g_idata": rng.integers(0, 1 << 16, n, dtype=np.int32), "g_odata": poison(grid, np.int32)}

    def reference(inp):
        return {"g_odata": inp["g_idata"].astype(np.int64).reshape(grid, 2 * RD_BLOCK).sum(1).astype(np.int32)}

    which = "#4 first add during load, sequential addressing" if kernel is reduce4_first_add else \
        "#6 completely unrolled, last warp with __syncwarp"
    return make_case(name, f"block sums of {n} int32, 512 per block: Harris 'Optimizing Parallel Reduction' "
                     f"{which}", GROUP, kernel, grid, RD_BLOCK, inputs, reference, ("g_idata", "g_odata"),
                     ("g_odata",))


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


# ---------------------------------------------------------------------------------------------------
def _all(small: bool) -> list[Case]:
    s = small
    return [
        _local_hist_case(*((2, 64, 8) if s else ())),
        _regtile_case(*((128, 128, 16) if s else ())),
        _histo_case("ho_hist256_global_uniform", False, 4096 if s else 1 << 21, *((2, 64) if s else ())),
        _histo_case("ho_hist256_global_skewed", True, 4096 if s else 1 << 19, *((2, 64) if s else ())),
        _compact_case("ho_compact_atomic_naive", filter_naive, 1000 if s else 1 << 20, *((64,) if s else ())),
        _compact_case("ho_compact_warp_aggregated", filter_warp_aggregated, 1000 if s else 1 << 22,
                      *((64,) if s else ())),
        _reduce_gs_case("ho_reduce_gs_two_loads", True, *((1 << 13, 4) if s else ())),
        _reduce_gs_case("ho_reduce_gs_one_load", False, *((1 << 13, 4) if s else ())),
        _smem_chase_case(*((64, 32) if s else ())),
        _scan_case(*((1 << 12,) if s else ())),
        _bitonic_case(*((1 << 11,) if s else ())),
        _matmul32_case(*((64, 64, 96) if s else ())),
        _harris_case("ho_reduce4_first_add", reduce4_first_add, *((1 << 11,) if s else ())),
        _harris_case("ho_reduce6_unrolled", reduce6_unrolled, *((1 << 11,) if s else ())),
        _conv_case("ho_convsep_rows", True, *((256, 16) if s else ())),
        _conv_case("ho_convsep_cols", False, *((32, 128) if s else ())),
        _transpose_diag_case(*((64, 32) if s else ())),
        _spmv_case("ho_spmv_csr_scalar", False, *((512, 64, 64) if s else ())),
        _spmv_case("ho_spmv_csr_vector", True, *((64, 64, 64) if s else ())),
        _stencil_case(*((1 << 11,) if s else ())),
        _gather_case(*((1 << 11,) if s else ())),
    ]


def small_cases() -> list[Case]:
    """Small variants of every case (same kernels, same names) for numba's simulator and fast tests."""
    return _all(small=True)


CASES = _all(small=False)
