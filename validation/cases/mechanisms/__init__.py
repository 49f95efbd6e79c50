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
    gatomic_f32_per_cta   gatomic_per_cta with float32 adds of 1.0 (exact: 2048 per address)
    gatomic_f32_per_warp  one float32 address per warp (4224 contiguous words), 8 per thread
    gatomic_f32_spread    one float32 address per thread, consecutive words, 8 per thread
    gatomic_per_warp8     one int32 address per warp, 8 per thread (the int twin of f32_per_warp)
    gatomic_lane0_one     lane 0 of every warp adds 1 to one int32 address, 8 times (33,792 one-lane REDs)
    gatomic_lane0_one_f32 the same in float32 (the tail of a float reduction: prog_reduce_shared)
    gatomic_lane0_per_warp lane 0 of every warp, one address per warp: one-lane requests without a chain
    gatomic_wrap32        thread t adds 1 to word t % 32, 8 times: every warp RED to the same line,
                          32 distinct addresses (4 sectors); all the grid's REDs at one atomic unit
    gatomic_wrap256       thread t to word t % 256 (1 KiB): coalesced REDs into a small array, the
                          merge at the end of a privatized 256-bin histogram
    gatomic_wrap2048      thread t to word t % 2048 (8 KiB, 64 lines)
  (the float32 four and the three lane-0 cases were added after the first recording: float atomics
  at one address are the end of many reductions, and their L2 cost need not be the integer one; the
  three wrap cases were added 2026-11-27: coalesced REDs of distinct addresses into a small array, a
  different unit workload from one address per warp)
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
- burst (added 2026-11-27): the whole grid asks DRAM for 8.6 MB at once: each thread sums 8 coalesced
  int32 loads, stores the sum and waits at one __syncthreads. Lane 0 of each warp records %clock64 at its
  start, after its store (its data is in) and after the barrier; `derive` gives the mean wait at the
  barrier per warp (how much later the CTA's last warp got its data), the spread of a CTA's arrivals
  and the arrival median / 90th percentile. The pattern of tri_sum and the grid-stride reductions'
  barriers, where the H100 waits at the barrier 4-12x longer than gpusim did.
    burst_w4        2112 x 128  (16 CTAs of 4 warps per SM)
    burst_w8        1056 x 256  (8 CTAs of 8 warps per SM)
    burst_w32       264 x 1024  (2 CTAs of 32 warps per SM)
    burst_w8_light  132 x 256   (1 CTA per SM, 1.1 MB: the same with little queueing)
"""
from __future__ import annotations

from validation.cases.mechanisms.burst import burst_cases, burst_small_cases
from validation.cases.mechanisms.dispatch import _dispatch_case, dispatch_cases
from validation.cases.mechanisms.exposed import _exposed_case
from validation.cases.mechanisms.gatomics import gatomics_cases
from validation.cases.mechanisms.local_mem import _local_case, local_cases
from validation.cases.mechanisms.mlp import MLP_KERNELS, _mlp_case
from validation.cases.mechanisms.smem_pipe import smem_cases


def small_cases() -> list:
    """Small variants from the same factories and kernels, for numba's CUDA simulator (smoke.py)."""
    out = gatomics_cases(grid=2, block=64, reps=3, skew_reps=2)
    out += [_dispatch_case("dispatch_c32", "", 8, 32), _dispatch_case("dispatch_c256", "", 3, 64),
            _dispatch_case("dispatch_fma128", "", 3, 64, 1)]
    out += [_local_case("local", "", 1, 64, iters=8)]
    out += [_mlp_case(n, grid=2, block=32, per_thread=8) for n in MLP_KERNELS]
    out += smem_cases(grid=1, block=64, iters=2)
    out += [_exposed_case(32, grid=2, iters=2), _exposed_case(64, grid=1, iters=3)]
    out += burst_small_cases()
    return out


CASES = (gatomics_cases() + dispatch_cases() + local_cases() + [_mlp_case(n) for n in MLP_KERNELS]
         + smem_cases() + [_exposed_case(64), _exposed_case(256)] + burst_cases())
