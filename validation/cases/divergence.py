"""Branch-divergence sweep: 1, 2, 4, 8, 16, 32 distinct paths per warp.

Thread t takes path k = paths[t] (loaded from memory, so the compiler cannot know it). The kernel
loops q over 0..npaths-1 and runs a 128-FMA dependent chain with constant c = q+1 only where k == q.
With k = lane % P (divergent cases) a warp runs the chain P times, each time with 32/P lanes
active: time and smsp__inst_executed grow ~P-fold while smsp__thread_inst_executed stays ~flat.
The control `divergence_uniform32` loops over 32 paths too, but k = warp % 32 is warp-uniform, so
each warp runs the chain once: same instruction stream, no divergence.
132 blocks x 256 threads; exact float32 results (acc = 128 * (k+1)).
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case, poison

GRID, BLOCK, WORK = 132, 256, 128
PATHS = (1, 2, 4, 8, 16, 32)


def diverge(paths, npaths, work, b_in, out):
    t = cuda.grid(1)
    k = paths[t]
    b = b_in[0]
    acc = np.float32(0)
    for q in range(npaths):
        if k == q:
            c = np.float32(q + 1)
            for _ in range(work):
                acc = cuda.fma(acc, b, c)
    out[t] = acc


def _make(npaths, uniform=False, grid=GRID, block=BLOCK, work=WORK):
    nth = grid * block
    name = "divergence_uniform32" if uniform else f"divergence_p{npaths:02d}"

    def inputs(seed=0):
        t = np.arange(nth)
        k = (t >> 5) % npaths if uniform else (t & 31) % npaths
        return {"paths": k.astype(np.int32), "npaths": np.int64(npaths), "work": np.int64(work),
                "b_in": np.ones(1, np.float32), "out": poison(nth, np.float32)}

    def reference(inp):
        return {"out": (work * (inp["paths"].astype(np.float64) + 1)).astype(np.float32)}

    def derive(out, inp):
        return {"paths_per_warp": 1 if uniform else npaths, "loop_trips": npaths}

    desc = (f"{npaths} warp-uniform paths (control: no divergence)" if uniform
            else f"{npaths} distinct paths per warp: branch divergence serializes them")
    return make_case(name, desc, "divergence", diverge, grid, block, inputs, reference,
                     ("paths", "npaths", "work", "b_in", "out"), ("out",), derive=derive)


CASES = [_make(p) for p in PATHS] + [_make(32, uniform=True)]
