"""Atomic contention: 528 blocks x 256 threads each add 1 four times to an int32 counter.

- atomic_one_address: every thread to counters[0] (all 540672 adds serialize at one L2 address).
- atomic_per_warp:    thread t to counters[t // 32] (32 same-address lanes per instruction).
- atomic_spread:      thread t to counters[t] (no two threads share an address; coalesced).
The result is unused, so the compiler emits reductions (RED) rather than ATOM.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case

GRID, BLOCK, REPS = 528, 256, 4
MODES = {"atomic_one_address": (0, 0), "atomic_per_warp": (5, -1), "atomic_spread": (0, -1)}


def atomic_add(shift, mask, reps, counters):
    t = cuda.grid(1)
    idx = (t >> shift) & mask
    for _ in range(reps):
        cuda.atomic.add(counters, idx, 1)


def _make(name, shift, mask, grid=GRID, block=BLOCK, reps=REPS):
    nth = grid * block

    def inputs(seed=0):
        return {"shift": np.int64(shift), "mask": np.int64(mask), "reps": np.int64(reps),
                "counters": np.zeros(nth, np.int32)}

    def reference(inp):
        idx = (np.arange(nth) >> shift) & mask
        return {"counters": (np.bincount(idx, minlength=nth) * reps).astype(np.int32)}

    def derive(out, inp):
        return {"atomics_total": nth * reps, "distinct_addresses": int(len(np.unique(
            (np.arange(nth) >> shift) & mask)))}

    return make_case(name, f"{nth * reps} atomic adds, {name.split('_', 1)[1].replace('_', ' ')}",
                     "atomics", atomic_add, grid, block, inputs, reference,
                     ("shift", "mask", "reps", "counters"), ("counters",), derive=derive)


CASES = [_make(n, s, m) for n, (s, m) in MODES.items()]
