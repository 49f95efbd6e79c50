"""cp.async groups of each warp (the timing model): when a warp's committed copies have landed in shared
memory, so that `cp.async.wait_group N` holds it until all but its newest N groups have (gpusim/sm/asynccopy.py
runs the copies; the LSU times their global reads and owns this state as `lsu.groups`).

Per warp: `open` the latest landing cycle of copies not yet committed, `ring` that of the newest GROUP_RING
committed groups (group k in slot k % GROUP_RING), `count` the groups committed, `old` the latest landing
cycle of the groups that left the ring.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit

AsyncGroups = namedtuple("AsyncGroups", "open ring count old")
GROUP_RING = 8


def make_state(n_warps: int) -> AsyncGroups:
    return AsyncGroups(np.zeros(n_warps, np.int64), np.zeros((n_warps, GROUP_RING), np.int64),
                       np.zeros(n_warps, np.int64), np.zeros(n_warps, np.int64))


@njit
def warp_reset(g, w):
    """A new warp in slot w: no copies in flight."""
    g.open[w] = 0
    g.count[w] = 0
    g.old[w] = 0


@njit
def copy_issued(g, w, lands):
    """A cp.async of warp w whose bytes are in shared memory at cycle `lands`."""
    g.open[w] = max(g.open[w], lands)


@njit
def _commit(g, w):
    k = g.count[w]
    slot = k % GROUP_RING
    if k >= GROUP_RING:
        g.old[w] = max(g.old[w], g.ring[w, slot])
    g.ring[w, slot] = g.open[w]
    g.count[w] = k + 1
    g.open[w] = 0


@njit
def group_op(g, w, sub, n):
    """cp.async.commit_group / wait_group n / wait_all of warp w: the cycle before which the warp may
    not issue again (0: no wait). wait_all commits the open copies and waits for every group."""
    if sub == oc.CP_COMMIT or sub == oc.CP_WAIT_ALL:
        _commit(g, w)
        if sub == oc.CP_COMMIT:
            return np.int64(0)
        n = 0
    k = g.count[w]
    if n >= k:
        return np.int64(0)
    until = g.old[w] if k - n > 0 else np.int64(0)
    for j in range(max(0, k - GROUP_RING), k - n):
        until = max(until, g.ring[w, j % GROUP_RING])
    return until
