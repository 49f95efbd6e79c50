"""Arrival-order service for a unit that works through requests at a fixed rate (an L2 slice, a DRAM channel).

The simulator books a request on such a unit when it computes it, and that is not always when the request
reaches the unit: a load that waited for a free MSHR, or for the LSU, reaches its slice later than loads computed
after it. With one "free at" cycle per unit, such a request books the unit ahead of everything that arrives before
it and makes that wait: a store behind it waits to be accepted and its warp cannot exit (drain). The hardware
serves a request when it arrives.

A `Timeline` is each unit's future cut into buckets of `BUCKET` cycles, each with its own fill pointer: a request
arriving at t starts at the first cycle at or after t that no request booked before it occupies, in t's bucket
or the next one with room; work that runs past its bucket's end fills the next buckets. Requests that arrive in
order get exactly the single free-at cycle's answer (a busy unit's backlog is a run of full buckets, skipped in one
step: `run_lo`, `run_hi`); one booked for later leaves the cycles before it to those that come first.
The ring of `BUCKETS` buckets a unit covers 65,536 cycles past the earliest live one; a bucket still in use by a later
cycle that an earlier request would need counts as full.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.jit import njit

BUCKET = 16          # cycles per bucket
BUCKETS = 4096       # buckets per unit (the ring): 65,536 cycles; fewer where there are many units

Timeline = namedtuple("Timeline", "fill epoch run_lo run_hi")


def make_timeline(units: int) -> Timeline:
    """`units` idle units: no bucket in use (epoch -1), no run of full buckets. At most 2**21 buckets in all
    (32 MiB), and at least 256 a unit."""
    n = max(256, min(BUCKETS, (1 << 21) // max(units, 1)))
    return Timeline(np.zeros((units, n), np.float64), np.full((units, n), -1, np.int64),
                    np.zeros(units, np.int64), np.zeros(units, np.int64))


@njit(inline="always")
def units(tl):
    """How many units the timeline serves."""
    return tl.run_lo.shape[0]


@njit(inline="always")
def _fill(tl, u, b):
    """Bucket b's fill pointer for unit u (a bucket the ring last held for an earlier cycle starts empty);
    -1.0 when a later bucket holds its place in the ring."""
    i = b % tl.fill.shape[1]
    e = tl.epoch[u, i]
    if e == b:
        return tl.fill[u, i]
    if e > b:
        return -1.0
    tl.epoch[u, i] = b
    tl.fill[u, i] = np.float64(b * BUCKET)
    return tl.fill[u, i]


@njit
def _full(tl, u, b):
    """Bucket b of unit u became full: extend the run of full buckets the next request may skip."""
    if tl.run_lo[u] <= b <= tl.run_hi[u]:
        tl.run_hi[u] = max(tl.run_hi[u], b + 1)
    elif b + 1 == tl.run_lo[u]:
        tl.run_lo[u] = b
    elif b > tl.run_hi[u]:
        tl.run_lo[u] = b
        tl.run_hi[u] = b + 1
    while True:      # buckets already filled past the run (work booked for later) join it
        h = tl.run_hi[u]
        f = _fill(tl, u, h)
        if f >= 0.0 and f < (h + 1) * BUCKET:
            return
        tl.run_hi[u] = h + 1


@njit
def free_from(tl, u, t):
    """The cycle a request arriving at t would start on unit u (books nothing)."""
    b = np.int64(t) // BUCKET
    if tl.run_lo[u] <= b < tl.run_hi[u]:
        b = tl.run_hi[u]
    while True:
        f = _fill(tl, u, b)
        if f >= 0.0:
            s = max(np.float64(t), f)
            if s < (b + 1) * BUCKET:
                return s
        b += 1


@njit
def book(tl, u, t, cost):
    """`cost` cycles of unit u's work for a request that arrives at cycle t: the cycle its work starts."""
    s = free_from(tl, u, t)
    b = np.int64(s) // BUCKET
    end = s + cost
    nb = tl.fill.shape[1]
    i = b % nb
    while end > (b + 1) * BUCKET:          # past its bucket: the rest fills the next ones
        tl.fill[u, i] = np.float64((b + 1) * BUCKET)
        _full(tl, u, b)
        b += 1
        f = _fill(tl, u, b)
        while f < 0.0:                     # held by a later cycle: skip it
            b += 1
            f = _fill(tl, u, b)
        end = f + (end - b * BUCKET)       # after what the bucket already holds
        i = b % nb
    tl.fill[u, i] = end
    if end >= (b + 1) * BUCKET:
        _full(tl, u, b)
    return s

