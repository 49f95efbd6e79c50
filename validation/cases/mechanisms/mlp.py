"""Mechanism microbenchmarks: mlp: independent loads in flight per warp.

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
