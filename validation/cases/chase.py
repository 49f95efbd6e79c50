"""Pointer-chase latency: one thread follows a random single-cycle chain, next = arr[next].

Each load's address depends on the previous load's value, so the time per step is the load-to-use
latency of the level that holds the chain (plus the index arithmetic: one mul.wide and one add for
global, one shl/add for shared). The chain is laid out with a node every STRIDE bytes, visited in a
random order, so no two consecutive steps share a cache line and hardware prefetching cannot help.
Cycles are read with %clock64 before and after the timed steps; `derive` gives cycles per step.

- chase_l1:   16 KiB footprint, 128 nodes 128 B apart, warmed by 2 passes: L1 hits.
- chase_l2:   4 MiB footprint (> L1, << 50 MB L2), 32768 nodes 128 B apart, warmed by one full pass;
              the chain is one cycle through all nodes, so with LRU-like L1 every step misses L1.
- chase_dram: 512 MiB footprint, 8192 nodes 64 KiB apart, 4096 steps touch each node once; with the
              L2 flushed before the launch every step misses L2 (and often the TLBs). Without a flush,
              repeated launches find the 4096 lines in L2: read the 'l2_flushed' clock figures.
- chase_shared: a 16 KiB shared-memory array (4096 words, random cycle), one thread chasing.
- chase_dram_4m: 4 MiB footprint (two 2-MiB pages), 32768 nodes 128 B apart, random order, 4096 steps
              with the L2 flushed: DRAM latency without the TLB misses chase_dram's 512 MiB may take.
- chase_dram_seq: the same 4 MiB, the nodes visited in address order (each step the next 128-B line; the
              4096 steps walk its first 512 KiB): DRAM latency when consecutive misses fall in the same rows.
- chase_dram_seq1k: 64 MiB, nodes 1 KiB apart in address order (the 4096 steps walk 4 MiB of it).
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case
from validation.cases._intrinsics import clock64


def chase_global(arr, start, warm, steps, out):
    if cuda.threadIdx.x == 0 and cuda.blockIdx.x == 0:
        j = start
        for _ in range(warm):
            j = arr[j]
        t0 = clock64()
        for _ in range(steps):
            j = arr[j]
        out[1] = j
        t1 = clock64()
        out[0] = t1 - t0


SHARED_WORDS = 4096


def chase_shared(arr, start, warm, steps, out):
    sh = cuda.shared.array(SHARED_WORDS, np.uint32)
    for i in range(cuda.threadIdx.x, SHARED_WORDS, cuda.blockDim.x):
        sh[i] = arr[i]
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        j = start
        for _ in range(warm):
            j = sh[j]
        t0 = clock64()
        for _ in range(steps):
            j = sh[j]
        out[1] = j
        t1 = clock64()
        out[0] = t1 - t0


def _chain(footprint_bytes: int, stride_bytes: int, seed: int, ordered: bool = False):
    """uint32 array of footprint_bytes/4 with a one-cycle chain through nodes stride apart: in a random
    order, or (ordered) in address order."""
    n = footprint_bytes // 4
    step = stride_bytes // 4
    nodes = np.arange(0, n, step, dtype=np.int64)
    order = nodes if ordered else nodes[np.random.default_rng(seed).permutation(nodes.size)]
    arr = np.zeros(n, np.uint32)
    arr[order] = np.roll(order, -1).astype(np.uint32)
    return arr, order


def _make(name, desc, kernel, footprint, stride, warm, steps, block=32, ordered=False):
    def inputs(seed=0):
        arr, order = _chain(footprint, stride, seed, ordered)
        return {"arr": arr, "start": np.uint32(order[0]), "warm": np.int64(warm),
                "steps": np.int64(steps), "out": np.full(2, -1, np.int64),
                "_order": order}

    def reference(inp):
        order = inp["_order"]
        final = order[(int(inp["warm"]) + int(inp["steps"])) % order.size]
        return {"final": np.array([final], np.int64)}

    def derive(out, inp):
        cycles = int(out["out"][0])
        return {"cycles": cycles, "steps": int(inp["steps"]),
                "cycles_per_step": cycles / int(inp["steps"])}

    case = make_case(name, desc, "chase", kernel, 1, block, inputs, reference,
                     ("arr", "start", "warm", "steps", "out"), ("out",), derive=derive)
    base_run = case.run

    def run(launch, inp):
        out = base_run(launch, inp)
        out["final"] = out["out"][1:2].copy()
        return out

    case.run = run
    return case


CASES = [
    _make("chase_l1", "pointer chase, 16 KiB footprint, 128 B stride: L1 hit latency",
          chase_global, 16 << 10, 128, 256, 4096),
    _make("chase_l2", "pointer chase, 4 MiB footprint, 128 B stride, random cycle: L2 hit latency",
          chase_global, 4 << 20, 128, 32768, 8192),
    _make("chase_dram", "pointer chase, 512 MiB footprint, 64 KiB stride, each node once: DRAM latency",
          chase_global, 512 << 20, 64 << 10, 0, 4096),
    _make("chase_shared", "pointer chase in a 16 KiB shared array, one thread: shared-memory latency",
          chase_shared, SHARED_WORDS * 4, 4, 0, 4096),
    _make("chase_dram_4m", "pointer chase, 4 MiB footprint, 128 B stride, random order, L2 flushed: DRAM "
          "latency within two pages", chase_global, 4 << 20, 128, 0, 4096),
    _make("chase_dram_seq", "pointer chase, 4 MiB footprint, 128 B stride in address order, L2 flushed: "
          "DRAM latency on consecutive lines", chase_global, 4 << 20, 128, 0, 4096, ordered=True),
    _make("chase_dram_seq1k", "pointer chase, 64 MiB footprint, 1 KiB stride in address order, L2 flushed",
          chase_global, 64 << 20, 1024, 0, 4096, ordered=True),
]
