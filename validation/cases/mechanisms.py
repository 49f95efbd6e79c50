"""Mechanism microbenchmarks for the H100 fitting set: one GPU mechanism per family (GROUP).

All are single launches with integer data or exact small-integer float32 arithmetic, so every check
is bit-exact (RTOL = ATOL = 0). Sizes aim at 3-300 us on an H100 and under a minute of gpusim
timing-mode simulation each (on a 2-core machine). `small_cases()` gives small variants of every
kernel for numba's CUDA simulator (validation/smoke.py) and for quick gpusim functional checks.

- gatomics: contended GLOBAL int32 atomics (cuda.atomic.add, result unused: atom.global.add.u32 in
  PTX, REDG in the driver's SASS as for atomics.py; Triton's offline ptxas 12.9 keeps ATOMG for both).
  528 x 256 threads. The bin of each atomic comes from an in-kernel integer hash of (thread, rep,
  seed), so no index array is loaded and only the atomics move data. Reps per thread are kept low
  enough that a per-address (or per-line) serialising L2 stays under ~250 us.
    gatomic_bins256       256 bins (8 lines of 128 B), uniform random bin per atomic, 8 per thread
    gatomic_bins256_skew  the same, but half of the atomics (hash bit 0) go to bin 0; 2 per thread
                          (bin 0 alone receives ~135 k adds, ~16 lanes of every warp RED)
    gatomic_per_cta       one address per CTA (counters[blockIdx], 528 contiguous words), 8 per thread
    gatomic_bins4096      4096 bins (128 lines), uniform, 8 per thread
    gatomic_strided       one address per thread, 32 words (128 B) apart: every warp RED touches 32
                          lines (32 sectors), no two lanes share one; 8 per thread
- dispatch: CTA launch rate with CTAs too short to matter. Thread 0 of every CTA records %smid and
  its start %clock64; `derive` gives per-SM CTA counts and the intervals between CTA starts on one
  SM (%clock64 compared only within an SM).
    dispatch_c32     65536 CTAs x 32 threads, each thread writes one word
    dispatch_c256    16384 CTAs x 256 threads, each thread writes one word
    dispatch_fma128  16384 CTAs x 128 threads, 48 dependent FMAs (~200 cycles) then one store
- local: a 64-word cuda.local.array per thread (st.local/ld.local; LDL/STL), initialised (16
  st.local.v4) then walked by a data-dependent chain of 96 steps: each step loads loc[j] (ld.local),
  writes loc[j] + 64 back (st.local), and the next index is (value + step) & 63. Indices are
  warp-uniform (values differ per lane only above bit 6), so each warp access is one 128 B line of
  the lane-interleaved local space (4 sectors). 256 B of local data per thread: 64 KiB per SM at 8
  warps/SM (fits the L1), 512 KiB per SM at 64 warps/SM (does not: local traffic misses to the L2).
  `derive`: cycles per step per warp.
    local_w8      132 x 256 (1 CTA = 8 warps per SM)
    local_w64     1056 x 256 (8 CTAs = 64 warps per SM: full occupancy at <= 32 registers, which
                  Triton's ptxas 12.9 gives: 32)
- mlp: memory-level parallelism of one warp. Grid-stride int32 sum over 66 MiB (264 x 256 threads,
  256 elements each), as 1, 2 or 4 independent chains per thread: the address of a chain's next
  load depends on the value of its previous one (+ (v >> 8), always 0 since v < 8), so neither LLVM
  nor ptxas can batch loads across iterations and exactly L loads per thread are in flight. Same
  bytes, same grid. `derive`: cycles per dependent round per warp.
    mlp_l1, mlp_l2, mlp_l4
- smem_pipe: shared-memory throughput per wavefront, conflict-free, full occupancy (1056 x 256,
  16 KiB of shared memory per CTA; 30-32 registers with ptxas 12.9). Each thread runs 24
  iterations x 8 independent accesses of 32, 64 or 128 bits per lane (loads into 8 float32
  accumulators, 4 for 64-bit; stores of 8 rows): a 16-byte aligned shared array (numba's
  `alignment=16`) lets LLVM merge 2 or 4 adjacent words into ld/st.shared.v2/v4 (LDS.64/128), so
  1, 2 and 4 wavefronts per warp access. Loads sum float32 copies of small integers (exact); stores
  write each word's own index (all warps of a CTA write the same value to a word, so the final
  contents are order-independent) and are checked by reading the array back after the loop. Lane 0
  of each warp records %smid and its loop's %clock64 bounds; `derive` gives SM cycles per warp
  access (accesses issued on the SM / its span), valid whatever the occupancy turns out to be.
    smem_ld32, smem_ld64, smem_ld128, smem_st32, smem_st64, smem_st128
- exposed: exposed global-load latency with few warps, an SGEMM-like loop: per iteration each thread
  loads one tile element from global into shared, __syncthreads, 16 dependent FMAs reading the
  tile from shared (16-thread groups share a row: 2 addresses per warp, conflict-free),
  __syncthreads; 64 iterations, 132 CTAs (1 per SM). No prefetching, so every iteration waits for
  its load. `derive`: cycles per iteration (thread 0's %clock64).
    exposed_b64   132 x 64  (2 warps per SM)
    exposed_b256  132 x 256 (8 warps per SM)
"""
from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda import config

from validation.cases._case import make_case, poison
from validation.cases._intrinsics import clock64, smid

# numba's CUDA simulator refuses shared-array alignment; on the GPU (and in gpusim) 16-byte alignment
# is what lets LLVM's load/store vectorizer merge adjacent words into v2/v4 shared accesses.
ALIGN = None if config.ENABLE_CUDASIM else 16
MASK32 = 0xFFFFFFFF
HASH_MUL = 0x45D9F3B


# ----------------------------------------------------------------------------------------------
# gatomics: contended global atomics
# ----------------------------------------------------------------------------------------------

GA_GRID, GA_BLOCK = 528, 256


def gatomic_hash(seed, mask, skew, reps, counters):
    t = cuda.grid(1)
    for k in range(reps):
        x = (t * reps + k) ^ seed
        x = ((x ^ (x >> 16)) * HASH_MUL) & MASK32
        x = ((x ^ (x >> 16)) * HASH_MUL) & MASK32
        x = x ^ (x >> 16)
        b = (x >> 8) & mask
        if x & skew:
            b = 0
        cuda.atomic.add(counters, b, 1)


def gatomic_fixed(shift, stride, reps, counters):
    t = cuda.grid(1)
    idx = (t >> shift) * stride
    for _ in range(reps):
        cuda.atomic.add(counters, idx, 1)


def _hash_np(t, k, reps, seed):
    x = (t * reps + k) ^ seed
    x = ((x ^ (x >> 16)) * HASH_MUL) & MASK32
    x = ((x ^ (x >> 16)) * HASH_MUL) & MASK32
    return x ^ (x >> 16)


def _seed(seed):
    return np.int64((0x2545F491 + 0x9E3779B1 * int(seed)) & 0x7FFFFFFF)


def _ga_hash_case(name, desc, bins, skew, reps, grid=GA_GRID, block=GA_BLOCK):
    nth = grid * block

    def inputs(seed=0):
        return {"seed": _seed(seed), "mask": np.int64(bins - 1), "skew": np.int64(skew),
                "reps": np.int64(reps), "counters": np.zeros(bins, np.int32)}

    def bins_of(inp):
        t = np.arange(nth, dtype=np.int64)[:, None]
        k = np.arange(reps, dtype=np.int64)[None, :]
        x = _hash_np(t, k, reps, int(inp["seed"]))
        b = (x >> 8) & (bins - 1)
        return np.where(x & skew, 0, b)

    def reference(inp):
        return {"counters": np.bincount(bins_of(inp).ravel(), minlength=bins).astype(np.int32)}

    def derive(out, inp):
        b = bins_of(inp)                                   # (threads, reps)
        per_warp = b.reshape(nth // 32, 32, reps).transpose(0, 2, 1)   # (warps, reps, lanes)
        distinct = np.array([[np.unique(r).size for r in w] for w in per_warp[:64]])
        c = np.asarray(out["counters"], np.int64)
        return {"atomics_total": nth * reps, "warp_instructions": nth // 32 * reps, "bins": bins,
                "hot_bin_share": float(c.max()) / (nth * reps),
                "distinct_addresses_per_warp_instr_mean": float(distinct.mean()),
                "lines_touched_total": -(-bins * 4 // 128)}

    return make_case(name, desc, "gatomics", gatomic_hash, grid, block, inputs, reference,
                     ("seed", "mask", "skew", "reps", "counters"), ("counters",), derive=derive)


def _ga_fixed_case(name, desc, shift, stride, reps, grid=GA_GRID, block=GA_BLOCK):
    nth = grid * block
    size = ((nth - 1) >> shift) * stride + 1

    def inputs(seed=0):
        return {"shift": np.int64(shift), "stride": np.int64(stride), "reps": np.int64(reps),
                "counters": np.zeros(size, np.int32)}

    def reference(inp):
        idx = (np.arange(nth) >> shift) * stride
        return {"counters": (np.bincount(idx, minlength=size) * reps).astype(np.int32)}

    def derive(out, inp):
        idx = (np.arange(nth) >> shift) * stride
        return {"atomics_total": nth * reps, "warp_instructions": nth // 32 * reps,
                "distinct_addresses": int(np.unique(idx).size),
                "lines_per_warp_instr": int(np.unique(idx[:32] * 4 // 128).size)}

    return make_case(name, desc, "gatomics", gatomic_fixed, grid, block, inputs, reference,
                     ("shift", "stride", "reps", "counters"), ("counters",), derive=derive)


def gatomics_cases(grid=GA_GRID, block=GA_BLOCK, reps=8, skew_reps=2):
    nth = grid * block
    cta_shift = int(block).bit_length() - 1
    assert 1 << cta_shift == block
    return [
        _ga_hash_case("gatomic_bins256", f"{nth * reps} global int32 atomic adds to 256 bins, uniform "
                      "random bin per atomic", 256, 0, reps, grid, block),
        _ga_hash_case("gatomic_bins256_skew", f"{nth * skew_reps} global atomic adds to 256 bins, half of "
                      "them to bin 0 (hot address), the rest uniform", 256, 1, skew_reps, grid, block),
        _ga_fixed_case("gatomic_per_cta", f"{nth * reps} global atomic adds, one address per CTA "
                       f"({grid} contiguous words)", cta_shift, 1, reps, grid, block),
        _ga_hash_case("gatomic_bins4096", f"{nth * reps} global atomic adds to 4096 bins, uniform random "
                      "bin per atomic", 4096, 0, reps, grid, block),
        _ga_fixed_case("gatomic_strided", f"{nth * reps} global atomic adds, one address per thread "
                       "32 words apart (32 lines per warp RED)", 0, 32, reps, grid, block),
    ]


# ----------------------------------------------------------------------------------------------
# dispatch: CTA launch rate
# ----------------------------------------------------------------------------------------------

DISPATCH_FMA_ITERS = 6  # x 8 dependent FMAs = 48 FMAs, ~200 cycles at ~4.25 cycles/FMA


def dispatch_store(out, sm, c_start):
    t0 = clock64()
    t = cuda.grid(1)
    out[t] = t
    if cuda.threadIdx.x == 0:
        b = cuda.blockIdx.x
        c_start[b] = t0
        sm[b] = smid()


def dispatch_fma(iters, c_in, out, sm, c_start):
    t0 = clock64()
    t = cuda.grid(1)
    c = c_in[0]
    a = np.float32(t & 1023)
    for _ in range(iters):
        a = cuda.fma(a, np.float32(1), c)
        a = cuda.fma(a, np.float32(1), c)
        a = cuda.fma(a, np.float32(1), c)
        a = cuda.fma(a, np.float32(1), c)
        a = cuda.fma(a, np.float32(1), c)
        a = cuda.fma(a, np.float32(1), c)
        a = cuda.fma(a, np.float32(1), c)
        a = cuda.fma(a, np.float32(1), c)
    out[t] = a
    if cuda.threadIdx.x == 0:
        b = cuda.blockIdx.x
        c_start[b] = t0
        sm[b] = smid()


def dispatch_structure(sm, c_start) -> dict:
    """Per-SM CTA counts and start intervals from each CTA's %smid and start %clock64 (clocks are
    compared only within one SM)."""
    sm = np.asarray(sm)
    c_start = np.asarray(c_start, np.int64)
    counts, med_gap, steady, first32 = [], [], [], []
    for s in np.unique(sm):
        st = np.sort(c_start[sm == s])
        counts.append(st.size)
        if st.size > 1:
            gaps = np.diff(st)
            med_gap.append(float(np.median(gaps)))
            steady.append(float(st[-1] - st[0]) / (st.size - 1))
            first32.append(float(st[min(31, st.size - 1)] - st[0]))
    counts = np.asarray(counts)

    def med(v):
        return float(np.median(v)) if v else None

    return {"sms_used": int(counts.size), "ctas_per_sm_min": int(counts.min()),
            "ctas_per_sm_max": int(counts.max()), "ctas_per_sm_median": float(np.median(counts)),
            "start_gap_cycles_median": med(med_gap), "start_interval_cycles_per_sm_median": med(steady),
            "first_32_starts_span_cycles_median": med(first32),
            "span_cycles_max": int(max(int(np.ptp(c_start[sm == s])) for s in np.unique(sm)))}


def _dispatch_case(name, desc, grid, block, fma_iters=None):
    nth = grid * block

    def common(inp):
        inp.update({"sm": np.full(grid, -1, np.int32), "c_start": np.full(grid, -1, np.int64)})
        return inp

    if fma_iters is None:
        def inputs(seed=0):
            return common({"out": poison(nth, np.int32)})

        def reference(inp):
            return {"out": np.arange(nth, dtype=np.int32)}

        kernel, args = dispatch_store, ("out", "sm", "c_start")
    else:
        def inputs(seed=0):
            return common({"iters": np.int64(fma_iters), "c_in": np.full(1, 0.25, np.float32),
                           "out": poison(nth, np.float32)})

        def reference(inp):
            n = 8 * int(inp["iters"])
            return {"out": ((np.arange(nth) & 1023) + n * float(inp["c_in"][0])).astype(np.float32)}

        kernel, args = dispatch_fma, ("iters", "c_in", "out", "sm", "c_start")

    def derive(out, inp):
        return {"ctas": grid, **dispatch_structure(out["sm"], out["c_start"])}

    return make_case(name, desc, "dispatch", kernel, grid, block, inputs, reference, args,
                     ("out", "sm", "c_start"), derive=derive)


def dispatch_cases(scale=1):
    return [
        _dispatch_case("dispatch_c32", f"{65536 // scale} CTAs x 32 threads each writing one word: CTA "
                       "dispatch rate", 65536 // scale, 32),
        _dispatch_case("dispatch_c256", f"{16384 // scale} CTAs x 256 threads each writing one word",
                       16384 // scale, 256),
        _dispatch_case("dispatch_fma128", f"{16384 // scale} CTAs x 128 threads, 48 dependent FMAs "
                       "(~200 cycles) then one store", 16384 // scale, 128, DISPATCH_FMA_ITERS),
    ]


# ----------------------------------------------------------------------------------------------
# local: thread-local array in local memory
# ----------------------------------------------------------------------------------------------

LOCAL_WORDS, LOCAL_ITERS = 64, 96


def local_walk(start, tag, iters, out, cycles):
    t = cuda.grid(1)
    loc = cuda.local.array(LOCAL_WORDS, np.int32)
    j = start[t >> 5]
    hi = tag[t] << 6
    for i in range(LOCAL_WORDS):
        loc[i] = ((i * 5 + j) & 63) + hi
    s = 0
    t0 = clock64()
    for k in range(iters):
        v = loc[j]
        loc[j] = v + 64
        s += v
        j = (v + k) & 63
    out[t] = s
    t1 = clock64()
    if t & 31 == 0:
        cycles[t >> 5] = t1 - t0


def _local_case(name, desc, grid, block=256, iters=LOCAL_ITERS):
    nth = grid * block
    nw = nth // 32

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"start": rng.integers(0, LOCAL_WORDS, nw, dtype=np.int32),
                "tag": rng.integers(0, 1 << 16, nth, dtype=np.int32), "iters": np.int64(iters),
                "out": poison(nth, np.int64), "cycles": np.full(nw, -1, np.int64)}

    def reference(inp):
        # the walk is warp-uniform: simulate the low 6 bits per warp, the rest per thread
        j = inp["start"].astype(np.int64)
        low = (np.arange(LOCAL_WORDS)[None, :] * 5 + j[:, None]) & 63          # (warps, 64)
        bumps = np.zeros((nw, LOCAL_WORDS), np.int64)                           # +64s so far
        rows = np.arange(nw)
        s_low = np.zeros(nw, np.int64)
        for k in range(int(inp["iters"])):
            v_low = low[rows, j] + 64 * bumps[rows, j]
            bumps[rows, j] += 1
            s_low += v_low
            j = (v_low + k) & 63
        hi = inp["tag"].astype(np.int64) << 6
        return {"out": np.repeat(s_low, 32) + int(inp["iters"]) * hi}

    def derive(out, inp):
        cyc = np.asarray(out["cycles"], np.float64)
        n = int(inp["iters"])
        return {"steps": n, "cycles_per_step_median": float(np.median(cyc)) / n,
                "cycles_per_step_min": float(cyc.min()) / n, "cycles_per_step_max": float(cyc.max()) / n,
                "local_bytes_per_thread": 4 * LOCAL_WORDS,
                "local_kib_per_sm": nth * 4 * LOCAL_WORDS / 132 / 1024}

    return make_case(name, desc, "local", local_walk, grid, block, inputs, reference,
                     ("start", "tag", "iters", "out", "cycles"), ("out", "cycles"), derive=derive)


def local_cases(iters=LOCAL_ITERS):
    return [
        _local_case("local_w8", "64-word local array, dependent ld.local/st.local walk, 8 warps per SM "
                    "(64 KiB of local data per SM: L1 hits)", 132, iters=iters),
        _local_case("local_w64", "64-word local array, dependent ld.local/st.local walk, 64 warps per SM "
                    "(512 KiB of local data per SM: L1 misses)", 1056, iters=iters),
    ]


# ----------------------------------------------------------------------------------------------
# mlp: independent loads in flight per warp
# ----------------------------------------------------------------------------------------------

MLP_GRID, MLP_BLOCK, MLP_PER_THREAD = 264, 256, 256


def mlp_1(a, iters, out, cycles):
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    i0 = t
    s0 = 0
    t0 = clock64()
    for _ in range(iters):
        v0 = a[i0]
        s0 += v0
        i0 += nth + (v0 >> 8)
    out[t] = s0
    t1 = clock64()
    if t & 31 == 0:
        cycles[t >> 5] = t1 - t0


def mlp_2(a, iters, out, cycles):
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    i0 = t
    i1 = t + nth
    s0 = 0
    s1 = 0
    t0 = clock64()
    for _ in range(iters):
        v0 = a[i0]
        v1 = a[i1]
        s0 += v0
        s1 += v1
        i0 += 2 * nth + (v0 >> 8)
        i1 += 2 * nth + (v1 >> 8)
    out[t] = s0 + s1
    t1 = clock64()
    if t & 31 == 0:
        cycles[t >> 5] = t1 - t0


def mlp_4(a, iters, out, cycles):
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    i0 = t
    i1 = t + nth
    i2 = t + 2 * nth
    i3 = t + 3 * nth
    s0 = 0
    s1 = 0
    s2 = 0
    s3 = 0
    t0 = clock64()
    for _ in range(iters):
        v0 = a[i0]
        v1 = a[i1]
        v2 = a[i2]
        v3 = a[i3]
        s0 += v0
        s1 += v1
        s2 += v2
        s3 += v3
        i0 += 4 * nth + (v0 >> 8)
        i1 += 4 * nth + (v1 >> 8)
        i2 += 4 * nth + (v2 >> 8)
        i3 += 4 * nth + (v3 >> 8)
    out[t] = (s0 + s1) + (s2 + s3)
    t1 = clock64()
    if t & 31 == 0:
        cycles[t >> 5] = t1 - t0


MLP_KERNELS = {1: mlp_1, 2: mlp_2, 4: mlp_4}


def _mlp_case(loads, grid=MLP_GRID, block=MLP_BLOCK, per_thread=MLP_PER_THREAD):
    nth = grid * block
    n = nth * per_thread

    def inputs(seed=0):
        a = np.random.default_rng(seed).integers(0, 8, n, dtype=np.int32)
        return {"a": a, "iters": np.int64(per_thread // loads), "out": poison(nth, np.int64),
                "cycles": np.full(nth // 32, -1, np.int64)}

    def reference(inp):
        return {"out": inp["a"].reshape(per_thread, nth).sum(axis=0, dtype=np.int64)}

    def derive(out, inp):
        cyc = np.asarray(out["cycles"], np.float64)
        rounds = int(inp["iters"])
        return {"loads_in_flight_per_thread": loads, "rounds": rounds, "bytes_read": int(inp["a"].nbytes),
                "cycles_per_round_median": float(np.median(cyc)) / rounds,
                "cycles_per_round_min": float(cyc.min()) / rounds,
                "cycles_per_round_max": float(cyc.max()) / rounds}

    return make_case(f"mlp_l{loads}", f"grid-stride int32 sum of {n * 4 / 2**20:.0f} MiB, {loads} "
                     "independent dependent-address load chain(s) per thread", "mlp", MLP_KERNELS[loads],
                     grid, block, inputs, reference, ("a", "iters", "out", "cycles"), ("out", "cycles"),
                     derive=derive)


# ----------------------------------------------------------------------------------------------
# smem_pipe: shared-memory wavefronts per access width
# ----------------------------------------------------------------------------------------------

SM_GRID, SM_BLOCK, SM_ITERS, SM_WORDS, SM_STEP = 1056, 256, 24, 4096, 8


def smem_ld32(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.float32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = np.float32(i)
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.float32(0)
    t0 = clock64()
    for k in range(iters):
        p = ((k * step) & 120) * 32 + lane
        a0 += sh[p]
        a1 += sh[p + 32]
        a2 += sh[p + 64]
        a3 += sh[p + 96]
        a4 += sh[p + 128]
        a5 += sh[p + 160]
        a6 += sh[p + 192]
        a7 += sh[p + 224]
    g = cuda.grid(1)
    out[g] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
    t1 = clock64()
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_ld64(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.float32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = np.float32(i)
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    a0 = a1 = a2 = a3 = np.float32(0)
    t0 = clock64()
    for k in range(iters):
        p = (((k * step) & 56) * 32 + lane) * 2
        a0 += (sh[p + 1] + sh[p]) + (sh[p + 256] + sh[p + 257])
        a1 += (sh[p + 64] + sh[p + 65]) + (sh[p + 320] + sh[p + 321])
        a2 += (sh[p + 128] + sh[p + 129]) + (sh[p + 384] + sh[p + 385])
        a3 += (sh[p + 192] + sh[p + 193]) + (sh[p + 448] + sh[p + 449])
    g = cuda.grid(1)
    out[g] = (a0 + a1) + (a2 + a3)
    t1 = clock64()
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_ld128(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.float32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = np.float32(i)
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.float32(0)
    t0 = clock64()
    for k in range(iters):
        p = (((k * step) & 24) * 32 + lane) * 4
        a0 += (sh[p] + sh[p + 1]) + (sh[p + 2] + sh[p + 3])
        a1 += (sh[p + 128] + sh[p + 129]) + (sh[p + 130] + sh[p + 131])
        a2 += (sh[p + 256] + sh[p + 257]) + (sh[p + 258] + sh[p + 259])
        a3 += (sh[p + 384] + sh[p + 385]) + (sh[p + 386] + sh[p + 387])
        a4 += (sh[p + 512] + sh[p + 513]) + (sh[p + 514] + sh[p + 515])
        a5 += (sh[p + 640] + sh[p + 641]) + (sh[p + 642] + sh[p + 643])
        a6 += (sh[p + 768] + sh[p + 769]) + (sh[p + 770] + sh[p + 771])
        a7 += (sh[p + 896] + sh[p + 897]) + (sh[p + 898] + sh[p + 899])
    g = cuda.grid(1)
    out[g] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
    t1 = clock64()
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_st32(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.int32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = -1
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    t0 = clock64()
    for k in range(iters):
        p = ((k * step) & 120) * 32 + lane
        sh[p] = p
        sh[p + 32] = p + 32
        sh[p + 64] = p + 64
        sh[p + 96] = p + 96
        sh[p + 128] = p + 128
        sh[p + 160] = p + 160
        sh[p + 192] = p + 192
        sh[p + 224] = p + 224
    t1 = clock64()
    cuda.syncthreads()
    s = 0
    i = tid
    while i < SM_WORDS:
        s += sh[i] * (i + 1)
        i += cuda.blockDim.x
    g = cuda.grid(1)
    out[g] = s
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_st64(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.int32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = -1
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    t0 = clock64()
    for k in range(iters):
        p = (((k * step) & 56) * 32 + lane) * 2
        sh[p + 1] = p + 1
        sh[p] = p
        sh[p + 64] = p + 64
        sh[p + 65] = p + 65
        sh[p + 128] = p + 128
        sh[p + 129] = p + 129
        sh[p + 192] = p + 192
        sh[p + 193] = p + 193
        sh[p + 256] = p + 256
        sh[p + 257] = p + 257
        sh[p + 320] = p + 320
        sh[p + 321] = p + 321
        sh[p + 384] = p + 384
        sh[p + 385] = p + 385
        sh[p + 448] = p + 448
        sh[p + 449] = p + 449
    t1 = clock64()
    cuda.syncthreads()
    s = 0
    i = tid
    while i < SM_WORDS:
        s += sh[i] * (i + 1)
        i += cuda.blockDim.x
    g = cuda.grid(1)
    out[g] = s
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


def smem_st128(step, iters, out, sm, t_start, t_end):
    sh = cuda.shared.array(SM_WORDS, np.int32, alignment=ALIGN)
    tid = cuda.threadIdx.x
    i = tid
    while i < SM_WORDS:
        sh[i] = -1
        i += cuda.blockDim.x
    cuda.syncthreads()
    lane = tid & 31
    t0 = clock64()
    for k in range(iters):
        p = (((k * step) & 24) * 32 + lane) * 4
        sh[p] = p
        sh[p + 1] = p + 1
        sh[p + 2] = p + 2
        sh[p + 3] = p + 3
        sh[p + 128] = p + 128
        sh[p + 129] = p + 129
        sh[p + 130] = p + 130
        sh[p + 131] = p + 131
        sh[p + 256] = p + 256
        sh[p + 257] = p + 257
        sh[p + 258] = p + 258
        sh[p + 259] = p + 259
        sh[p + 384] = p + 384
        sh[p + 385] = p + 385
        sh[p + 386] = p + 386
        sh[p + 387] = p + 387
        sh[p + 512] = p + 512
        sh[p + 513] = p + 513
        sh[p + 514] = p + 514
        sh[p + 515] = p + 515
        sh[p + 640] = p + 640
        sh[p + 641] = p + 641
        sh[p + 642] = p + 642
        sh[p + 643] = p + 643
        sh[p + 768] = p + 768
        sh[p + 769] = p + 769
        sh[p + 770] = p + 770
        sh[p + 771] = p + 771
        sh[p + 896] = p + 896
        sh[p + 897] = p + 897
        sh[p + 898] = p + 898
        sh[p + 899] = p + 899
    t1 = clock64()
    cuda.syncthreads()
    s = 0
    i = tid
    while i < SM_WORDS:
        s += sh[i] * (i + 1)
        i += cuda.blockDim.x
    g = cuda.grid(1)
    out[g] = s
    if lane == 0:
        w = g >> 5
        sm[w] = smid()
        t_start[w] = t0
        t_end[w] = t1


# width in 32-bit words -> (load kernel, store kernel, row mask). A "row" is one warp access of
# 32 x width words; iteration k touches rows r .. r+7 with r = (k*step) & row_mask (step = 8).
SMEM_KERNELS = {1: (smem_ld32, smem_st32, 120), 2: (smem_ld64, smem_st64, 56), 4: (smem_ld128, smem_st128, 24)}


def _smem_rows(width, iters, step):
    mask = SMEM_KERNELS[width][2]
    return [((k * step) & mask) for k in range(iters)]


def sm_throughput(sm, t_start, t_end, per_warp) -> dict:
    """Per SM: warp accesses issued / (last warp end - first warp start), from each warp's %smid and
    its loop's %clock64 bounds (valid whatever the occupancy; clocks compared only within an SM)."""
    sm = np.asarray(sm)
    t0, t1 = np.asarray(t_start, np.int64), np.asarray(t_end, np.int64)
    per_sm, warps, loop = [], [], t1 - t0
    for s in np.unique(sm):
        on = sm == s
        span = int(t1[on].max() - t0[on].min())
        warps.append(int(on.sum()))
        per_sm.append(span / (on.sum() * per_warp))
    return {"sm_cycles_per_warp_access_median": float(np.median(per_sm)),
            "sm_cycles_per_warp_access_max": float(np.max(per_sm)), "warps_per_sm_max": int(max(warps)),
            "loop_cycles_per_warp_median": float(np.median(loop))}


def _smem_case(width, store, grid=SM_GRID, block=SM_BLOCK, iters=SM_ITERS):
    nth = grid * block
    kind = "st" if store else "ld"
    row = 32 * width
    lane = np.arange(32)

    def inputs(seed=0):
        nw = nth // 32
        return {"step": np.int64(SM_STEP), "iters": np.int64(iters),
                "out": poison(nth, np.int64 if store else np.float32), "sm": np.full(nw, -1, np.int32),
                "t_start": np.full(nw, -1, np.int64), "t_end": np.full(nw, -1, np.int64)}

    def reference(inp):
        it, step = int(inp["iters"]), int(inp["step"])
        if store:
            written = np.full(SM_WORDS, -1, np.int64)
            for r in _smem_rows(width, it, step):
                for c in range(8):
                    idx = ((r + c) * row + lane[:, None] * width + np.arange(width)[None, :]).ravel()
                    written[idx] = idx
            tid = np.arange(block)
            i = np.arange(SM_WORDS)
            per_tid = np.array([(written[i[t::block]] * (i[t::block] + 1)).sum() for t in tid], np.int64)
            return {"out": np.tile(per_tid, grid)}
        tot = np.zeros(32, np.int64)
        for r in _smem_rows(width, it, step):
            for c in range(8):
                base = (r + c) * row + lane * width
                tot += sum(base + w for w in range(width))
        return {"out": np.tile(np.tile(tot, block // 32), grid).astype(np.float32)}

    def derive(out, inp):
        n = 8 * int(inp["iters"])
        return {"accesses_per_warp": n, "bits_per_lane": 32 * width, "wavefronts_per_access": width,
                **sm_throughput(out["sm"], out["t_start"], out["t_end"], n)}

    ld, st, _ = SMEM_KERNELS[width]
    return make_case(f"smem_{kind}{32 * width}", f"shared {'store' if store else 'load'}s of {32 * width} "
                     f"bits per lane, conflict-free, 8 independent per iteration, full occupancy: {width} "
                     "wavefront(s) per warp access", "smem_pipe", st if store else ld, grid, block, inputs,
                     reference, ("step", "iters", "out", "sm", "t_start", "t_end"), ("out", "sm", "t_start", "t_end"),
                     derive=derive)


def smem_cases(grid=SM_GRID, block=SM_BLOCK, iters=SM_ITERS):
    return [_smem_case(w, s, grid, block, iters) for s in (False, True) for w in (1, 2, 4)]


# ----------------------------------------------------------------------------------------------
# exposed: barrier-separated load -> shared -> FMA loop with few warps
# ----------------------------------------------------------------------------------------------

EX_GRID, EX_ITERS, EX_K = 132, 64, 16


def exposed_loop(a, bvec, iters, out, cycles):
    tile = cuda.shared.array(1024, np.float32)
    tid = cuda.threadIdx.x
    bd = cuda.blockDim.x
    blk = cuda.blockIdx.x
    nb = cuda.gridDim.x
    b0 = bvec[0]
    b1 = bvec[1]
    b2 = bvec[2]
    b3 = bvec[3]
    b4 = bvec[4]
    b5 = bvec[5]
    b6 = bvec[6]
    b7 = bvec[7]
    b8 = bvec[8]
    b9 = bvec[9]
    b10 = bvec[10]
    b11 = bvec[11]
    b12 = bvec[12]
    b13 = bvec[13]
    b14 = bvec[14]
    b15 = bvec[15]
    q = tid & ~15
    acc = np.float32(0)
    t0 = clock64()
    for it in range(iters):
        tile[tid] = a[(it * nb + blk) * bd + tid]
        cuda.syncthreads()
        acc = cuda.fma(tile[q], b0, acc)
        acc = cuda.fma(tile[q + 1], b1, acc)
        acc = cuda.fma(tile[q + 2], b2, acc)
        acc = cuda.fma(tile[q + 3], b3, acc)
        acc = cuda.fma(tile[q + 4], b4, acc)
        acc = cuda.fma(tile[q + 5], b5, acc)
        acc = cuda.fma(tile[q + 6], b6, acc)
        acc = cuda.fma(tile[q + 7], b7, acc)
        acc = cuda.fma(tile[q + 8], b8, acc)
        acc = cuda.fma(tile[q + 9], b9, acc)
        acc = cuda.fma(tile[q + 10], b10, acc)
        acc = cuda.fma(tile[q + 11], b11, acc)
        acc = cuda.fma(tile[q + 12], b12, acc)
        acc = cuda.fma(tile[q + 13], b13, acc)
        acc = cuda.fma(tile[q + 14], b14, acc)
        acc = cuda.fma(tile[q + 15], b15, acc)
        cuda.syncthreads()
    t1 = clock64()
    out[blk * bd + tid] = acc
    if tid == 0:
        cycles[blk] = t1 - t0


def _exposed_case(block, grid=EX_GRID, iters=EX_ITERS):
    nth = grid * block
    assert block % 16 == 0 and block <= 1024

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"a": rng.integers(0, 8, iters * nth).astype(np.float32),
                "bvec": rng.integers(0, 4, EX_K).astype(np.float32), "iters": np.int64(iters),
                "out": poison(nth, np.float32), "cycles": np.full(grid, -1, np.int64)}

    def reference(inp):
        it = int(inp["iters"])
        a = inp["a"][:it * nth].astype(np.int64).reshape(it, grid, block // 16, 16)
        b = inp["bvec"].astype(np.int64)
        per_group = (a * b).sum(axis=(0, 3))                       # (grid, groups): exact integers
        return {"out": np.repeat(per_group, 16, axis=1).ravel().astype(np.float32)}

    def derive(out, inp):
        cyc = np.asarray(out["cycles"], np.float64)
        n = int(inp["iters"])
        return {"iterations": n, "warps_per_sm": block // 32 if block >= 32 else 1,
                "cycles_per_iteration_median": float(np.median(cyc)) / n,
                "cycles_per_iteration_min": float(cyc.min()) / n,
                "cycles_per_iteration_max": float(cyc.max()) / n}

    return make_case(f"exposed_b{block}", f"{iters} iterations of global load -> shared -> barrier -> "
                     f"16 dependent FMAs from shared -> barrier, {grid} x {block} ({max(1, block // 32)} "
                     "warps per SM): exposed load latency", "exposed", exposed_loop, grid, block, inputs,
                     reference, ("a", "bvec", "iters", "out", "cycles"), ("out", "cycles"), derive=derive)


# ----------------------------------------------------------------------------------------------

def small_cases() -> list:
    """Small variants from the same factories and kernels, for numba's CUDA simulator (smoke.py)."""
    out = gatomics_cases(grid=2, block=64, reps=3, skew_reps=2)
    out += [_dispatch_case("dispatch_c32", "", 8, 32), _dispatch_case("dispatch_c256", "", 3, 64),
            _dispatch_case("dispatch_fma128", "", 3, 64, 1)]
    out += [_local_case("local", "", 1, 64, iters=8)]
    out += [_mlp_case(n, grid=2, block=32, per_thread=8) for n in MLP_KERNELS]
    out += smem_cases(grid=1, block=64, iters=2)
    out += [_exposed_case(32, grid=2, iters=2), _exposed_case(64, grid=1, iters=3)]
    return out


CASES = (gatomics_cases() + dispatch_cases() + local_cases() + [_mlp_case(n) for n in MLP_KERNELS]
         + smem_cases() + [_exposed_case(64), _exposed_case(256)])
