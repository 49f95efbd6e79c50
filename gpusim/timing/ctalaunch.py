"""A CTA placed on an SM (numba): its CTA slot and warp slots, its warps' state set up, and the event recorder's
samples up to the moment (`sample_to`, which the core's cycle loop takes too). The GigaThread engine
(timing/gigathread.py) decides which CTA goes where and when; `dispatch` does the placing."""
from __future__ import annotations

from gpusim.jit import njit
from gpusim.sm.asyncops import clear_cta, clear_warp
from gpusim.sm.executor import init_cta, init_warp
from gpusim.sm.lsu import warp_reset
from gpusim.sm.scheduler import wake
from gpusim.sm.scoreboard import clear
from gpusim.sm.stalls import DISPATCH_STALL
from gpusim.timing.events import record_cta_start, take_samples
from gpusim.timing.placement import reserve_warp_slots, warp_slot
from gpusim.timing.residency import WARPS_LAUNCHED, free_cta_slot, warps_change


@njit
def sample_to(wstat, ev, s, res, l1, l2, dram, now):
    """The event recorder's intervals that end by `now` (gpusim/timing/events.py)."""
    take_samples(ev, now, wstat, s.next_bound, s.ready_at, s.reason, s.at_barrier, res.sm_warps, l1.mshr_free,
                 l1.mshr_next, l2.counters[0] * 32, dram.counters[0] + dram.counters[1])


@njit
def dispatch(P, M, U, cta, sm, now, age, nthreads, delay):
    """Place CTA number `cta` on SM `sm` (the GigaThread engine decided it fits): its CTA slot, -1 if none.
    Its warps start `delay` cycles later than the CTA launch latency (the engine's turn for it)."""
    res, s = U.residency, U.sched
    c = free_cta_slot(res, sm)
    nwarps = (nthreads + 31) // 32
    if c < 0:
        return -1
    r = reserve_warp_slots(s, M.wstat, sm, nwarps)    # the H100's slots for its warps (timing/placement.py)
    if r < 0:
        return -1
    if U.events.on != 0:
        if now >= U.events.next_at[0]:
            sample_to(M.wstat, U.events, s, res, U.l1, U.l2, U.dram, now)
        record_cta_start(U.events, cta, sm, c, now)
    ncx, ncy = M.geom[3], M.geom[4]
    init_cta(M, c, cta % ncx, (cta // ncx) % ncy, cta // (ncx * ncy), sm, nthreads, nwarps)
    clear_cta(U.asyncu, c)
    res.cta_warps_left[c] = nwarps
    res.sm_ctas[sm] += 1
    start = now + res.cta_launch_latency + delay
    for k in range(nwarps):
        w = warp_slot(s, k, nwarps, r)
        init_warp(M, w, c, k, nthreads)
        s.accounted_until[w] = start
        s.age[w] = age * 64 + k
        s.at_barrier[w] = 0
        wake(s, w, start, DISPATCH_STALL)
        warp_reset(U.lsu, w)
        U.fetch.warp_line[w] = -1
        clear(U.scoreboard, w)
        clear_warp(U.asyncu, w)
        res.counters[WARPS_LAUNCHED] += 1
        warps_change(res, sm, 1, now)
        # a warp is in flight (sm__warps_active) from its launch on the SM, not while its CTA's slot
        # waits for the engine's turn and the launch latency (clocks read in the H100's first
        # instructions agree: validation/probes/cta_refill.py)
        res.warp_area[sm] -= start - now
    return c
