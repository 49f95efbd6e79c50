"""Mechanism microbenchmarks: dispatch: CTA launch rate.

The family and its cases are described in validation/cases/mechanisms/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda import config

from validation.cases._case import make_case, poison
from validation.cases._intrinsics import clock64, smid

# is what lets LLVM's load/store vectorizer merge adjacent words into v2/v4 shared accesses.
ALIGN = None if config.ENABLE_CUDASIM else 16
MASK32 = 0xFFFFFFFF
HASH_MUL = 0x45D9F3B



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
