"""Thread-block clusters (sm_90): the cluster barrier and distributed shared-memory addresses (numba).

A cluster's CTAs are resident together; `Mach.clslot[c]` lists the CTA slot of each rank of slot c's
cluster (columns 0..15), the cluster's size (CL_SIZE) and slot c's own rank (CL_RANK). Functional mode
runs a cluster's CTAs together (executor.py `run_grid`); the timing model's GigaThread engine places a
whole cluster at once on SMs of one GPC (timing/gigathread.py).

Distributed shared memory: a `.shared::cluster` address is the target CTA's offset with its rank + 1
in the bits from CLUSTER_SHIFT up (gpusim/isa/spaces.py); an address without them is the issuing CTA's
own, as every `.shared::cta` address is. `mapa` makes such an address (generic: inside the shared
window), `getctarank` reads the rank back; `ld/st/atom/red` and the mbarrier and bulk-copy instructions
reach another CTA through `memory/access.py` (`locate` checks the rank, `smem_slot` picks the slot).

barrier.cluster: `arrive` counts the arriving threads in the cluster's phase (kept in column NBAR of
the barrier arrays of the rank-0 CTA's slot: arrivals in bar_arrived, completed phases in bar_expect);
the warp remembers the phase its arrival completes (`wcl`). When every non-exited thread of the cluster
has arrived, the phase completes. `wait` holds the warp until the phase its last arrival belongs to has
completed (a wait with no arrival before it does not wait, as the ISA leaves that undefined). Threads
that exit count as arrived, so an exit may complete a phase (`cluster_exited`).
"""
from __future__ import annotations

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import popc64
from gpusim.isa.spaces import CLUSTER_SHIFT, SHARED_WINDOW, SMEM_OFFSET_MASK, WINDOW_SIZE
from gpusim.jit import njit
from gpusim.memory.access import fault
from gpusim.sm.operands import bits, put
from gpusim.sm.state import CL_RANK, CL_SIZE, NBAR, W_BARRIER, W_READY


@njit(no_cpython_wrapper=True)
def _live(M, c):
    n = 0
    for r in range(M.clslot[c, CL_SIZE]):
        n += M.cta_live[M.clslot[c, r]]
    return n


@njit(no_cpython_wrapper=True)
def _complete_phase(M, c):
    """Every live thread of slot c's cluster has arrived: the phase completes, its waiters go on."""
    lead = M.clslot[c, 0]
    M.bar_arrived[lead, NBAR] = 0
    M.bar_expect[lead, NBAR] += 1
    phase = M.bar_expect[lead, NBAR]
    for r in range(M.clslot[c, CL_SIZE]):
        x = M.clslot[c, r]
        for w in range(M.wstat.shape[0]):
            if M.wcta[w] == x and M.wstat[w] == W_BARRIER and M.wbar[w] == NBAR and M.wcl[w] <= phase:
                M.wstat[w] = W_READY
                M.spc[w, M.sp[w] - 1] += 1


@njit(no_cpython_wrapper=True)
def cluster_barrier(M, w, emask, wait):
    """barrier.cluster.arrive (wait False) or .wait for the lanes of emask; True when the warp must wait
    (it is then W_BARRIER on barrier NBAR and the caller leaves its pc at the wait)."""
    c = M.wcta[w]
    lead = M.clslot[c, 0]
    if not wait:
        M.bar_arrived[lead, NBAR] += popc64(emask)
        M.wcl[w] = M.bar_expect[lead, NBAR] + 1
        if M.bar_arrived[lead, NBAR] >= _live(M, c):
            _complete_phase(M, c)
        return False
    if M.wcl[w] <= M.bar_expect[lead, NBAR]:
        return False
    M.wstat[w] = W_BARRIER
    M.wbar[w] = NBAR
    return True


@njit(no_cpython_wrapper=True)
def cluster_exited(M, c):
    """Threads of slot c exited: the cluster's phase completes if every remaining thread has arrived."""
    lead = M.clslot[c, 0]
    if M.clslot[c, CL_SIZE] > 1 and M.bar_arrived[lead, NBAR] > 0 and M.bar_arrived[lead, NBAR] >= _live(M, c):
        _complete_phase(M, c)


@njit(no_cpython_wrapper=True)
def exec_mapa(P, M, i, w, emask, pc):
    """mapa{.shared::cluster}.u32/.u64 d, a, rank: the address of a's location in the CTA of that rank."""
    generic = P.ins[i, oc.F_SPACE] != oc.SP_SHARED
    c = M.wcta[w]
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        a = bits(P, M, i, oc.S0, w, l)
        rank = bits(P, M, i, oc.S0 + 1, w, l) & 0xFFFFFFFF
        off = a
        if generic:
            if not (SHARED_WINDOW <= a < SHARED_WINDOW + WINDOW_SIZE):
                fault(M, oc.E_OOB, w, l, pc, a, 1, oc.SP_SHARED)     # not a shared-memory address
                return
            off = a - SHARED_WINDOW
        if rank >= M.clslot[c, CL_SIZE]:
            fault(M, oc.E_OOB, w, l, pc, a, 1, oc.SP_SHARED)         # no CTA of that rank in the cluster
            return
        d = ((rank + 1) << CLUSTER_SHIFT) | (off & SMEM_OFFSET_MASK)
        put(P, M, i, oc.D0, w, l, d + SHARED_WINDOW if generic else d)


@njit(no_cpython_wrapper=True)
def exec_getctarank(P, M, i, w, emask):
    """getctarank{.shared::cluster}.u32 d, a: the rank of the CTA whose shared memory a addresses."""
    generic = P.ins[i, oc.F_SPACE] != oc.SP_SHARED
    own = M.clslot[M.wcta[w], CL_RANK]
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        a = bits(P, M, i, oc.S0, w, l)
        if generic:
            a -= SHARED_WINDOW
        rank = ((a >> CLUSTER_SHIFT) & 0xFF) - 1
        put(P, M, i, oc.D0, w, l, own if rank < 0 else rank)
