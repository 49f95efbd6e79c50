"""Timing of Hopper's asynchronous units: the warpgroup tensor core (wgmma), the TMA unit (bulk
copies) and mbarrier waits (numba). The functional effect of each instruction happens at issue
(wgmma.py, bulkcopy.py, mbarrier.py); this unit decides when a warp waiting for one may go on.

- wgmma.mma_async: each warp's 16-row part (see wgmma.py) runs on its sub-partition's tensor core,
  `gmma_fma_per_cycle` multiply-adds per cycle, behind the previous ones; it completes
  `gmma_latency` cycles after its last step. The warp does not wait at issue (its D registers are
  not on the scoreboard): commit_group closes a group of the warp's wgmma, wait_group N holds the
  warp (stall reason `gmma`) until all but its newest N committed groups are complete.
- cp.async.bulk: one TMA unit per SM issues the copy's 32-byte sector requests to the L2 (and, on a
  miss, DRAM: memory/l2.py `l2_access`, so the slices' and DRAM's bandwidth limit a stream of copies),
  `tma_bytes_per_cycle` bytes per cycle, copies one after another; the data is in place `tma_latency`
  cycles after its last sector is back (a tensor copy's box is requested as contiguous bytes from its
  first element on). A global -> shared copy records
  that cycle against its mbarrier (per CTA slot, the last `MBAR_SLOTS` mbarriers used): a try_wait or
  test_wait on that mbarrier does not issue before it (stall reason `barrier`). Shared -> global
  copies belong to the warp's bulk group: cp.async.bulk.wait_group N holds the warp (stall reason
  `membar`) like wgmma.wait_group.
- A try_wait/test_wait that finds the phase incomplete suspends its warp `try_wait_suspend` cycles
  (stall reason `barrier`) before the program's loop tries again. A phase that an arrive completes is
  seen by waits `mbar_phase_latency` cycles later (the arrival travels to the barrier's shared word).
Seeded from published peak rates (H100: 1024 dense f16 multiply-adds per SM cycle... per sub-
partition 512), not calibrated against measurements.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.spaces import SHARED_WINDOW, WINDOW_SIZE
from gpusim.jit import njit
from gpusim.memory.l2 import l2_access
from gpusim.sm.memops import address
from gpusim.sm.stalls import BARRIER, MEMBAR
from gpusim.spec import MAX_CYCLES, param

RING = 8            # committed groups remembered per warp (wait_group N for N < 8)
MBAR_SLOTS = 8      # mbarriers with a pending TMA completion remembered per CTA slot
GMMA_WARP_INST, TMA_COPIES, TMA_BYTES = range(3)
OP_WGMMA, OP_CPBULK, OP_MBARRIER = oc.OP["wgmma"], oc.OP["cpbulk"], oc.OP["mbarrier"]
WG_COMMIT, WG_WAIT = oc.WGMMA["commit_group"], oc.WGMMA["wait_group"]
CB_COMMIT, CB_WAIT, CB_S2G = oc.CPBULK["commit_group"], oc.CPBULK["wait_group"], oc.CPBULK["s2g"]
CB_TS2G = oc.CPBULK["tensor_s2g"]
MB_TRY, MB_TEST = oc.MBAR["try_wait"], oc.MBAR["test_wait"]


@dataclass(frozen=True)
class AsyncSpec:
    """The warpgroup tensor cores, the TMA unit and mbarrier waits of an SM."""
    gmma_fma_per_cycle: int = param(512, "FMA/cycle", "dense f16/bf16 multiply-adds per cycle of one sub-partition's "
                                                      "tensor core (H100: 989 TFLOPS / 132 SMs / 1.83 GHz / 4)",
                                    (1, 1 << 20))
    gmma_latency: int = param(32, "cycles", "from a wgmma part's last step to its D registers written", (0, MAX_CYCLES))
    tma_bytes_per_cycle: int = param(64, "bytes/cycle", "bulk-copy bytes the SM's TMA unit moves per cycle",
                                     (1, 1 << 20))
    tma_latency: int = param(40, "cycles", "from a bulk copy's last sector back from the L2 to its data in place "
                                           "and its mbarrier updated", (0, MAX_CYCLES))
    try_wait_suspend: int = param(20, "cycles", "a try_wait/test_wait that finds its phase incomplete suspends "
                                                "the warp this long", (1, MAX_CYCLES))
    mbar_phase_latency: int = param(48, "cycles", "from the arrive that completes an mbarrier phase to a try_wait/"
                                                  "test_wait seeing it (fitted: mbarrier_rt, 90 cycles per "
                                                  "arrive + try_wait round trip for 32 or 128 threads)",
                                    (0, MAX_CYCLES))


Async = namedtuple("Async", "gmma_free pending groups ngroups bulk_pending bulk_groups nbulk tma_free mbar_off "
                            "mbar_ready mbar_next fma_per_cycle gmma_latency tma_bpc tma_latency suspend phase_latency "
                            "counters")


def make_state(spec: AsyncSpec, n_subpartitions: int, n_warps: int, n_sm: int, n_cta_slots: int) -> Async:
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    return Async(z(n_subpartitions), z(n_warps), z(n_warps, RING), z(n_warps), z(n_warps), z(n_warps, RING),
                 z(n_warps), z(n_sm), np.full((n_cta_slots, MBAR_SLOTS), -1, np.int64), z(n_cta_slots, MBAR_SLOTS),
                 z(n_cta_slots), np.int64(spec.gmma_fma_per_cycle), np.int64(spec.gmma_latency),
                 np.int64(spec.tma_bytes_per_cycle), np.int64(spec.tma_latency), np.int64(spec.try_wait_suspend),
                 np.int64(spec.mbar_phase_latency),
                 z(3))


def counters(a: Async) -> dict:
    return {"gpusim__gmma_warp_instructions.sum": int(a.counters[GMMA_WARP_INST]),
            "gpusim__tma_copies.sum": int(a.counters[TMA_COPIES]),
            "gpusim__tma_bytes.sum": int(a.counters[TMA_BYTES])}


@njit(no_cpython_wrapper=True)
def clear_warp(a, w):
    a.pending[w] = 0
    a.ngroups[w] = 0
    a.bulk_pending[w] = 0
    a.nbulk[w] = 0


@njit(no_cpython_wrapper=True)
def clear_cta(a, c):
    for k in range(MBAR_SLOTS):
        a.mbar_off[c, k] = -1
        a.mbar_ready[c, k] = 0


@njit(no_cpython_wrapper=True, inline="always")
def _wait_until(ring, count, w, keep):
    """The cycle all but the newest `keep` committed groups of warp w are complete."""
    t = np.int64(0)
    for j in range(max(count - RING, 0), count - keep):
        if ring[w, j % RING] > t:
            t = ring[w, j % RING]
    return t


@njit(no_cpython_wrapper=True)
def _mbar_ready(a, c, off):
    for k in range(MBAR_SLOTS):
        if a.mbar_off[c, k] == off:
            return a.mbar_ready[c, k]
    return np.int64(0)


@njit(no_cpython_wrapper=True)
def async_ready(P, M, a, w, pc, t, reason):
    """(cycle, reason): when warp w's wait instruction at pc (class sync) may issue, no earlier than t."""
    op = P.ins[pc, oc.F_OP]
    sub = P.ins[pc, oc.F_MOD]
    if op == OP_WGMMA and sub == WG_WAIT:
        e = _wait_until(a.groups, a.ngroups[w], w, P.opv[pc, oc.S0])
        if e > t:       # WARPGROUP.DEPBAR: the H100 samples its wait as barrier (gmma stays ~0 there)
            return e, BARRIER
    elif op == OP_CPBULK and sub == CB_WAIT:
        e = _wait_until(a.bulk_groups, a.nbulk[w], w, P.opv[pc, oc.S0])
        if e > t:
            return e, MEMBAR
    elif op == OP_MBARRIER and (sub == MB_TRY or sub == MB_TEST):
        live = M.smask[w, M.sp[w] - 1] & ~M.exited[w]
        for l in range(32):
            if (live >> l) & 1:
                off = address(P, M, pc, oc.S0, w, l)
                if SHARED_WINDOW <= off < SHARED_WINDOW + WINDOW_SIZE:
                    off -= SHARED_WINDOW
                e = _mbar_ready(a, M.wcta[w], off)
                if e > t:
                    return e, BARRIER
                break
    return t, reason


@njit(no_cpython_wrapper=True)
def gmma_issue(a, sp, w, n, now):
    """A warp's part of wgmma.mma_async m64nNk16 issued at `now` on sub-partition sp."""
    start = max(now, a.gmma_free[sp])
    busy = max((256 * n) // a.fma_per_cycle, 1)
    a.gmma_free[sp] = start + busy
    a.pending[w] = max(a.pending[w], start + busy + a.gmma_latency)
    a.counters[GMMA_WARP_INST] += 1


@njit(no_cpython_wrapper=True)
def tma_requests(a, l2, noc, dram, sm, gaddr, nbytes, s2g, now):
    """The sector requests of a bulk copy of nbytes from global offset gaddr on SM sm's TMA unit: the
    cycle its last sector is back (a write's acknowledgement for shared -> global)."""
    start = max(now, a.tma_free[sm])
    a.tma_free[sm] = start + (nbytes + a.tma_bpc - 1) // a.tma_bpc
    if gaddr < 0:
        return a.tma_free[sm]
    done = start
    first = gaddr >> 5
    n = ((gaddr + nbytes - 1) >> 5) - first + 1
    for k in range(n):
        t = l2_access(l2, noc, dram, sm, first + k, start + (k * 32) // a.tma_bpc, s2g)
        if t > done:
            done = t
    return max(done, a.tma_free[sm])


@njit(no_cpython_wrapper=True)
def tma_issue(a, sm, c, w, nbytes, mbar, s2g, back):
    """A bulk copy of nbytes whose sectors are back at `back` (tma_requests); a global -> shared copy
    completes on mbarrier `mbar`."""
    done = back + a.tma_latency
    a.counters[TMA_COPIES] += 1
    a.counters[TMA_BYTES] += nbytes
    if s2g:
        a.bulk_pending[w] = max(a.bulk_pending[w], done)
        return
    if mbar >= 0:
        _mark_ready(a, c, mbar, done)


@njit(no_cpython_wrapper=True)
def _mark_ready(a, c, mbar, done):
    """The mbarrier at shared offset mbar of CTA slot c has a phase that completes at `done`."""
    for k in range(MBAR_SLOTS):
        if a.mbar_off[c, k] == mbar:
            a.mbar_ready[c, k] = max(a.mbar_ready[c, k], done)
            return
    k = a.mbar_next[c] % MBAR_SLOTS
    a.mbar_next[c] += 1
    a.mbar_off[c, k] = mbar
    a.mbar_ready[c, k] = done


@njit(no_cpython_wrapper=True)
def after_issue(P, a, w, pc, sm, sp, c, nbytes, mbar, wait_failed, now, back, phase_done):
    """Time warp w's Hopper instruction at pc, just executed. Returns the cycle the warp may issue
    again if it must be suspended (a failed mbarrier wait), else 0. back: a bulk copy's last sector
    back from memory (tma_requests); phase_done: the instruction (an mbarrier arrive) completed the phase
    of the mbarrier at mbar, which waits see `phase_latency` cycles later."""
    op = P.ins[pc, oc.F_OP]
    sub = P.ins[pc, oc.F_MOD]
    cls = P.ins[pc, oc.F_CLASS]
    if cls == oc.C_GMMA:
        gmma_issue(a, sp, w, P.ins[pc, oc.F_MOD2] & oc.WG_N_MASK, now)
    elif cls == oc.C_TMA:
        tma_issue(a, sm, c, w, nbytes, mbar, sub == CB_S2G or sub == CB_TS2G, back)
    elif op == OP_WGMMA and sub == WG_COMMIT:
        a.groups[w, a.ngroups[w] % RING] = a.pending[w]
        a.ngroups[w] += 1
        a.pending[w] = 0
    elif op == OP_CPBULK and sub == CB_COMMIT:
        a.bulk_groups[w, a.nbulk[w] % RING] = a.bulk_pending[w]
        a.nbulk[w] += 1
        a.bulk_pending[w] = 0
    elif op == OP_MBARRIER and phase_done:
        _mark_ready(a, c, mbar, now + a.phase_latency)
    elif wait_failed:
        return now + a.suspend
    return np.int64(0)
