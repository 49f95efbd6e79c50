"""Mechanism microbenchmarks: local: thread-local array in local memory.

The family and its cases are described in validation/cases/mechanisms/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda import config

from validation.cases._case import make_case, poison
from validation.cases._intrinsics import clock64

# is what lets LLVM's load/store vectorizer merge adjacent words into v2/v4 shared accesses.
ALIGN = None if config.ENABLE_CUDASIM else 16
MASK32 = 0xFFFFFFFF
HASH_MUL = 0x45D9F3B



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
