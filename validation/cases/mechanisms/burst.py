"""Mechanism microbenchmarks: burst: how far apart the warps of one CTA get their DRAM data when the whole
grid asks for it at once.

The family and its cases are described in validation/cases/mechanisms/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case, poison
from validation.cases._intrinsics import clock64

BU_PER_THREAD = 8       # independent coalesced int32 loads per thread (the loads below are written out)


def burst_barrier(a, out, stamps):
    tid = cuda.threadIdx.x
    bd = cuda.blockDim.x
    blk = cuda.blockIdx.x
    base = blk * bd * 8 + tid
    t0 = clock64()
    s = (a[base] + a[base + bd] + a[base + 2 * bd] + a[base + 3 * bd] + a[base + 4 * bd] + a[base + 5 * bd]
         + a[base + 6 * bd] + a[base + 7 * bd])
    out[blk * bd + tid] = s          # the store waits for all eight loads; the clock is read after it
    t1 = clock64()
    cuda.syncthreads()
    t2 = clock64()
    if tid & 31 == 0:
        w = (blk * bd + tid) >> 5
        stamps[3 * w] = t0
        stamps[3 * w + 1] = t1
        stamps[3 * w + 2] = t2


def _burst_case(name, grid, block, note):
    nth = grid * block
    warps = block // 32

    def inputs(seed=0):
        rng = np.random.default_rng(seed)
        return {"a": rng.integers(0, 1 << 20, nth * BU_PER_THREAD, dtype=np.int32), "out": poison(nth, np.int32),
                "stamps": np.full(3 * (nth // 32), -1, np.int64)}

    def reference(inp):
        a = inp["a"].astype(np.int64).reshape(grid, BU_PER_THREAD, block)
        return {"out": a.sum(axis=1).astype(np.int32).ravel()}

    def derive(out, inp):
        st = np.asarray(out["stamps"], np.float64).reshape(grid, warps, 3)
        t0, t1 = st[..., 0], st[..., 1]
        # a warp waits at the barrier until the CTA's last warp has its data. Not t2 - t1: BAR.SYNC.DEFER_BLOCKING
        # does not hold the clock read that follows it (2 cycles on every warp of the H100)
        wait = t1.max(axis=1, keepdims=True) - t1
        arrive = t1 - t0.min(axis=1, keepdims=True)
        return {"warps_per_cta": warps,
                "barrier_wait_mean": float(wait.mean()),
                "arrival_spread_mean": float((arrive.max(axis=1) - arrive.min(axis=1)).mean()),
                "arrival_median": float(np.median(arrive)),
                "arrival_p90": float(np.percentile(arrive, 90))}

    return make_case(name, f"{grid} x {block}: each thread sums {BU_PER_THREAD} coalesced int32 DRAM loads, "
                     f"stores the sum and waits at one barrier ({warps} warps per CTA; {note}): how far apart a "
                     "CTA's warps get their data", "burst", burst_barrier, grid, block, inputs, reference,
                     ("a", "out", "stamps"), ("out", "stamps"), derive=derive)


def burst_cases() -> list:
    return [_burst_case("burst_w4", 2112, 128, "16 CTAs per SM, 8.6 MB at once"),
            _burst_case("burst_w8", 1056, 256, "8 CTAs per SM, 8.6 MB at once"),
            _burst_case("burst_w32", 264, 1024, "2 CTAs per SM, 8.6 MB at once"),
            _burst_case("burst_w8_light", 132, 256, "1 CTA per SM, 1.1 MB: little queueing")]


def burst_small_cases() -> list:
    return [_burst_case("burst_w4", 4, 64, "small"), _burst_case("burst_w32", 2, 128, "small")]
