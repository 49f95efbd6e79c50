"""The scoreboard: per warp and register, the cycle its pending value is written and what kind of
producer writes it (0: a fixed-latency pipe -> `wait`; 1: shared memory or SFU -> short_scoreboard;
2: global/local memory -> long_scoreboard). A warp may issue an instruction once every register it
reads or writes is ready. It has no parameters of its own: each producer's latency comes from its
pipeline or memory unit.
"""
from __future__ import annotations

from numba import njit

from gpusim.timing.state_index import R_LONG, R_SHORT, R_WAIT


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _reason(kind):
    if kind == 1:
        return R_SHORT
    if kind == 2:
        return R_LONG
    return R_WAIT


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def operands_ready(T, w, pc, t, reason):
    """(cycle, stall reason): no earlier than t, and not before every register of `pc` is ready."""
    for k in range(10):
        r = T.srcregs[pc, k]
        if r < 0:
            break
        if T.reg_ready[w, r] > t:
            t = T.reg_ready[w, r]
            reason = _reason(T.reg_kind[w, r])
    for k in range(4):
        r = T.dstregs[pc, k]
        if r >= 0 and T.reg_ready[w, r] > t:
            t = T.reg_ready[w, r]
            reason = _reason(T.reg_kind[w, r])
    return t, reason


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def mark_written(T, w, pc, ready, kind):
    """The registers `pc` writes are pending until `ready`, produced by a unit of `kind`."""
    for k in range(4):
        d = T.dstregs[pc, k]
        if d >= 0:
            T.reg_ready[w, d] = ready
            T.reg_kind[w, d] = kind
