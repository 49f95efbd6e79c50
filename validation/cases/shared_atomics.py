"""Shared-memory atomics: 132 blocks x 256 threads each add 1, `reps` times, to a word of a
1024-word shared array, then the block writes the array out.

- smem_atomic_distinct: thread t to word t (no two lanes share a word or a bank).
- smem_atomic_same:     every lane of a warp to word (warp index): 32 lanes on one word.
- smem_atomic_bank2:    thread t to word 2*t mod 1024: two lanes per bank (2-way bank conflict).
The old value is unused and the increment is the constant 1, as in the histogram program
(programs/histogram.py), so the compiler is free to pick the instruction the hardware prefers.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, int32

from validation.cases._case import make_case

GRID, BLOCK, REPS, WORDS = 132, 256, 256, 1024
MODES = {"smem_atomic_distinct": (1, 0), "smem_atomic_same": (0, 5), "smem_atomic_bank2": (2, 0)}


def shared_atomic(mul, shift, reps, out):
    sh = cuda.shared.array(1024, int32)
    t = cuda.threadIdx.x
    for i in range(t, 1024, cuda.blockDim.x):
        sh[i] = 0
    cuda.syncthreads()
    idx = (t * mul) % 1024 if shift == 0 else t >> shift
    for _ in range(reps):
        cuda.atomic.add(sh, idx, 1)
    cuda.syncthreads()
    base = cuda.blockIdx.x * 1024
    for i in range(t, 1024, cuda.blockDim.x):
        out[base + i] = sh[i]


def _index(mul, shift, nthreads):
    t = np.arange(nthreads)
    return (t * mul) % WORDS if shift == 0 else t >> shift


def _make(name, mul, shift, grid=GRID, block=BLOCK, reps=REPS):
    def inputs(seed=0):
        return {"mul": np.int64(mul), "shift": np.int64(shift), "reps": np.int64(reps),
                "out": np.full(grid * WORDS, -1, np.int32)}

    def reference(inp):
        per_block = (np.bincount(_index(mul, shift, block), minlength=WORDS) * reps).astype(np.int32)
        return {"out": np.tile(per_block, grid)}

    def derive(out, inp):
        idx = _index(mul, shift, 32)
        return {"atomics_per_warp_instruction": 32, "distinct_words_per_warp": int(len(np.unique(idx))),
                "instructions_per_warp": reps}

    return make_case(name, f"shared-memory atomic add, {name.split('_', 2)[2]} words per warp", "shared_atomics",
                     shared_atomic, grid, block, inputs, reference, ("mul", "shift", "reps", "out"), ("out",),
                     derive=derive)


CASES = [_make(n, m, s) for n, (m, s) in MODES.items()]
