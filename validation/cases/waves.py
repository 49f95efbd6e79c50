"""CTA scheduling: fixed-time blocks in waves, and shared memory limiting blocks per SM.

Every thread spins on %clock64 for SPIN cycles (~10 us at 1.98 GHz), so a block's run time is fixed
and independent of how many blocks share its SM: the kernel's duration is (number of waves) x SPIN.
Thread 0 of each block records %smid, its start %clock64 and %globaltimer at start and end, giving
the block -> SM placement and the wave structure (`derive`: waves per SM are counted from the
per-SM %clock64 start times, which are exact within an SM; %globaltimer orders blocks across SMs).
`derive` also returns the raw per-block arrays (times relative to the earliest start). Caution:
%globaltimer is coarse and inconsistent at the 10 us scale on H100/H200 (blocks whose %clock64
starts on one SM were within 200 cycles read %globaltimer values 10 us apart), so use it only to
order blocks across SMs roughly; the per-SM %clock64 starts are exact.

- waves_g132 / g264 / g265 / g528: 1024-thread blocks, so 2 blocks per SM (2048 threads per SM):
  0.5, 1, 1 + one block (a tail wave), and 2 waves on 132 SMs.
- smem_none_g1056: 256-thread blocks, 8 per SM by threads: 1056 blocks = 1 wave.
- smem_48k_g1056: the same with 48 KiB of static shared memory per block (+1 KiB reserved per
  block, 228 KiB per SM): 4 blocks per SM, so 2 waves.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case
from validation.cases._intrinsics import clock64, globaltimer, smid

SPIN = 20000
SMEM_WORDS = 12288  # 48 KiB of int32


def spin(cycles, done, sm, t_start, t_end, c_start):
    tid = cuda.threadIdx.x
    b = cuda.blockIdx.x
    t0 = clock64()
    if tid == 0:
        t_start[b] = globaltimer()
        sm[b] = smid()
        c_start[b] = t0
    while clock64() - t0 < cycles:
        pass
    cuda.syncthreads()
    if tid == 0:
        done[b] = 1
        t_end[b] = globaltimer()


def spin_smem(cycles, done, sm, t_start, t_end, c_start):
    sh = cuda.shared.array(SMEM_WORDS, np.int32)
    tid = cuda.threadIdx.x
    b = cuda.blockIdx.x
    sh[tid] = tid
    t0 = clock64()
    if tid == 0:
        t_start[b] = globaltimer()
        sm[b] = smid()
        c_start[b] = t0
    while clock64() - t0 < cycles:
        pass
    cuda.syncthreads()
    if tid == 0:
        done[b] = sh[cuda.blockDim.x - 1] - cuda.blockDim.x + 2
        t_end[b] = globaltimer()


def wave_structure(sm, t_start, t_end, c_start, spin_cycles):
    """Blocks per SM; per SM the start clusters (waves) from %clock64; raw per-block arrays."""
    sm = np.asarray(sm)
    t_start, t_end = np.asarray(t_start, np.int64), np.asarray(t_end, np.int64)
    c_start = np.asarray(c_start, np.int64)
    patterns: dict = {}
    waves, widest = 0, 0
    for s in np.unique(sm):
        starts = np.sort(c_start[sm == s])
        cuts = np.flatnonzero(np.diff(starts) > spin_cycles // 2)
        sizes = np.diff(np.concatenate(([0], cuts + 1, [starts.size])))
        waves, widest = max(waves, sizes.size), max(widest, int(sizes.max()))
        key = ",".join(map(str, sizes))
        patterns[key] = patterns.get(key, 0) + 1
    per_sm = np.bincount(sm)
    t0 = int(t_start.min())
    return {"sms_used": int(np.unique(sm).size), "blocks_per_sm_max": int(per_sm.max()),
            "blocks_per_sm_min": int(per_sm[per_sm > 0].min()), "waves_observed": waves,
            "concurrent_per_sm_max": widest, "start_clusters_per_sm": patterns,
            "span_ns": int(t_end.max() - t0), "block_ns_median": float(np.median(t_end - t_start)),
            "raw": {"sm": sm.tolist(), "start_ns": (t_start - t0).tolist(),
                    "end_ns": (t_end - t0).tolist(),
                    "start_cycles_rel_sm": [int(c - c_start[sm == s].min()) for c, s in zip(c_start, sm,
                                                                                           strict=True)]}}


def _make(name, desc, kernel, grid, block, cycles=SPIN):
    def inputs(seed=0):
        return {"cycles": np.int64(cycles), "done": np.zeros(grid, np.int32),
                "sm": np.full(grid, -1, np.int32), "t_start": np.zeros(grid, np.int64),
                "t_end": np.zeros(grid, np.int64), "c_start": np.zeros(grid, np.int64)}

    def reference(inp):
        return {"done": np.ones(grid, np.int32)}

    def derive(out, inp):
        return wave_structure(out["sm"], out["t_start"], out["t_end"], out["c_start"], cycles)

    return make_case(name, desc, "waves", kernel, grid, block, inputs, reference,
                     ("cycles", "done", "sm", "t_start", "t_end", "c_start"),
                     ("done", "sm", "t_start", "t_end", "c_start"), derive=derive)


CASES = [
    _make("waves_g132", "132 fixed-time 1024-thread blocks: half a wave (1 per SM)", spin, 132, 1024),
    _make("waves_g264", "264 fixed-time 1024-thread blocks: one full wave (2 per SM)", spin, 264, 1024),
    _make("waves_g265", "265 fixed-time 1024-thread blocks: one wave plus a one-block tail",
          spin, 265, 1024),
    _make("waves_g528", "528 fixed-time 1024-thread blocks: two full waves", spin, 528, 1024),
    _make("smem_none_g1056", "1056 fixed-time 256-thread blocks, no shared memory: 8 per SM, 1 wave",
          spin, 1056, 256),
    _make("smem_48k_g1056", "1056 fixed-time 256-thread blocks with 48 KiB static shared memory: "
          "4 per SM, 2 waves", spin_smem, 1056, 256),
]
