"""Which warp slots of an SM a new CTA's warps take (numba), as the H100 places them.

A CTA takes the SM's first free warp slots; within each four of them its warps start one sub-partition
further on than the previous CTA's did. The H100's %warpid of a CTA's warp k is its 8-slot group's
base + 4 * (k // 4) + (k + r) % 4, r one more with each CTA the SM takes (validation/probes/cta_phases.py):
so a CTA's warp with extra work (stencil halo loads, a reduction's last step) lands on each sub-partition
in turn rather than always on the first.

When a CTA's last warp retires (`retire_warp`), all its slots are free again at once.

State is the scheduler's (sm/scheduler.py): `cta_turn` (per SM, the CTAs it has taken) and `free_slots`
(scratch, the slots of the CTA being placed).
"""
from __future__ import annotations

from gpusim.jit import njit
from gpusim.sm.state import W_DONE, W_FREE
from gpusim.timing.residency import warp_retired, warps_change


@njit
def reserve_warp_slots(s, wstat, sm, nwarps):
    """Reserve SM sm's first `nwarps` free warp slots for a new CTA: its rotation r (0 .. subpartitions-1)
    for `warp_slot`, or -1 when fewer slots are free (nothing is then changed)."""
    n_free = 0
    for w in range(sm * s.warps_per_sm, (sm + 1) * s.warps_per_sm):
        if n_free == nwarps:
            break
        if wstat[w] == W_FREE:
            s.free_slots[n_free] = w
            n_free += 1
    if n_free < nwarps:
        return -1
    r = s.cta_turn[sm] % s.subpartitions
    s.cta_turn[sm] += 1
    return r


@njit(inline="always")
def warp_slot(s, k, nwarps, r):
    """The warp slot of the CTA's warp k (after `reserve_warp_slots` gave rotation r): rotated by r within each
    full four of its slots; a last partial four keeps its order."""
    nsub = s.subpartitions
    j = k - k % nsub + (k % nsub + r) % nsub
    return s.free_slots[j if j < nwarps - nwarps % nsub else k]


@njit(no_cpython_wrapper=True)
def retire_warp(M, s, res, w, now):
    """Warp slot w's warp exited: the SM has one warp fewer; when it was its CTA's last, the CTA's slots are free."""
    sm = w // s.warps_per_sm
    warps_change(res, sm, -1, now)
    c = M.wcta[w]
    if warp_retired(res, c, sm):
        for x in range(sm * s.warps_per_sm, (sm + 1) * s.warps_per_sm):
            if M.wcta[x] == c and M.wstat[x] == W_DONE:
                M.wstat[x] = W_FREE
