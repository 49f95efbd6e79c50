"""mbarrier: arrival and transaction counting barriers in shared memory (numba).

An mbarrier is its 8 bytes of shared memory; gpusim's layout of them (the hardware's is opaque):
  bits  0..19  pending arrivals of the current phase
  bits 20..39  expected arrivals per phase (the init count, less arrive_drop's)
  bits 40..60  tx-count, 21-bit two's complement (expect_tx adds, complete_tx subtracts)
  bit  63      the current phase's parity (0 after init)
The current phase completes when its pending arrivals and its tx-count are both zero: the parity
flips, pending arrivals are reset to the expected count. Lanes act one after another in lane
order, so arrivals of one warp on one barrier count one by one (as the hardware's atomics do).

The state `arrive` returns: bit 63 the parity of the phase arrived at, bits 0..19 the pending
arrivals left in that phase by this arrival (what `pending_count` reads back). test_wait/try_wait
with a state: complete once the barrier's parity differs from the state's; with `.parity p`:
complete once the phase of parity p has completed, i.e. the current parity is not p. A wait never
blocks here: it writes false and the program's loop tries again (try_wait's suspend-time hint is
not modelled in functional mode; the timing model suspends the warp, see gpusim/sm/asyncops.py).
Each failed wait counts in `cnt[CNT_MBAR_FAIL]`, each phase an arrive completes in `cnt[CNT_MBAR_PHASE]`
(with the barrier's offset in tr_addr[0]); the timing model reads both.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.memory.access import fault, load, locate, store
from gpusim.sm.memops import address
from gpusim.sm.operands import bits, put

M20 = (1 << 20) - 1
M21 = (1 << 21) - 1
MB = oc.MBAR
MB_INIT, MB_ARRIVE, MB_DROP, MB_EXPECT, MB_COMPLETE = MB["init"], MB["arrive"], MB["arrive_drop"], \
    MB["expect_tx"], MB["complete_tx"]
MB_TRY, MB_TEST, MB_PENDING, MB_INVAL, MB_CPARRIVE = MB["try_wait"], MB["test_wait"], MB["pending_count"], \
    MB["inval"], MB["cparrive"]


@njit(no_cpython_wrapper=True, inline="always")
def pack(pend, expect, tx, parity):
    return (pend & M20) | ((expect & M20) << 20) | ((tx & M21) << 40) | ((parity & 1) << 63)


@njit(no_cpython_wrapper=True, inline="always")
def unpack(v):
    tx = (v >> 40) & M21
    if tx > M20:
        tx -= 1 << 21
    return v & M20, (v >> 20) & M20, tx, (v >> 63) & 1


@njit(no_cpython_wrapper=True)
def update(v, arrivals, drops, dtx):
    """The barrier value v after `arrivals` arrivals (`drops` of them arrive_drop) and a tx-count change;
    completes the phase when nothing is pending."""
    pend, expect, tx, parity = unpack(v)
    pend -= arrivals
    expect -= drops
    tx += dtx
    if pend <= 0 and tx == 0:
        parity ^= 1
        pend = expect
    return pack(max(pend, 0), expect, tx, parity)


@njit(no_cpython_wrapper=True)
def mbar_offset(M, space, a, w, l, pc):
    """Shared-memory offset of the mbarrier at address a (-1 after a fault)."""
    sp, off = locate(M, space, a, 8, w, l, pc)
    if sp < 0:
        return -1
    if sp != oc.SP_SHARED:
        fault(M, oc.E_OOB, w, l, pc, a, 8, sp)
        return -1
    return off


@njit(no_cpython_wrapper=True)
def complete_tx(M, off, w, nbytes):
    """An asynchronous copy's completion: tx-count -= nbytes on the mbarrier at shared offset `off`."""
    v = load(M, oc.SP_SHARED, off, 8, w, 0)
    store(M, oc.SP_SHARED, off, 8, w, 0, update(v, 0, 0, -nbytes))


@njit(no_cpython_wrapper=True)
def exec_mbarrier(P, M, cnt, i, w, emask, pc):
    """One mbarrier instruction for the lanes of emask (M: MemLanes), in lane order."""
    sub = P.ins[i, oc.F_MOD]
    flags = P.ins[i, oc.F_MOD2]
    space = P.ins[i, oc.F_SPACE]
    nsrc = P.ins[i, oc.F_NSRC]
    failed = False
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        if sub == MB_PENDING:
            put(P, M, i, oc.D0, w, l, bits(P, M, i, oc.S0, w, l) & M20)
            continue
        off = mbar_offset(M, space, address(P, M, i, oc.S0, w, l), w, l, pc)
        if off < 0:
            return
        v = load(M, oc.SP_SHARED, off, 8, w, l)
        operand = bits(P, M, i, oc.S0 + 1, w, l) & 0xFFFFFFFF if nsrc > 1 else 1
        if sub == MB_INIT:
            v = pack(operand, operand, 0, 0)
        elif sub == MB_INVAL:
            v = 0
        elif sub == MB_ARRIVE or sub == MB_DROP:
            count, dtx = operand, 0
            if flags & oc.MB_EXPECT_TX:
                count, dtx = 1, operand
            parity = (v >> 63) & 1
            v = update(v, 0, 0, dtx)
            pend = (v & M20) - count
            put(P, M, i, oc.D0, w, l, (parity << 63) | max(pend, 0))
            v = update(v, count, count if sub == MB_DROP else 0, 0)
            if ((v >> 63) & 1) != parity:       # this arrival completed the phase (timing: asyncops.py)
                cnt[oc.CNT_MBAR_PHASE] += 1
                M.tr_addr[0] = off
        elif sub == MB_EXPECT:
            v = update(v, 0, 0, operand)
        elif sub == MB_COMPLETE:
            v = update(v, 0, 0, -operand)
        elif sub == MB_TRY or sub == MB_TEST:
            state = bits(P, M, i, oc.S0 + 1, w, l)
            want = state & 1 if flags & oc.MB_PARITY else (state >> 63) & 1
            done = ((v >> 63) & 1) != want
            put(P, M, i, oc.D0, w, l, np.int64(1) if done else np.int64(0))
            failed = failed or not done
            continue
        elif sub == MB_CPARRIVE:
            if flags & oc.MB_NOINC:
                v = update(v, 1, 0, 0)      # without .noinc: +1 pending, then the (immediate) arrival
        store(M, oc.SP_SHARED, off, 8, w, l, v)
    if failed:
        cnt[oc.CNT_MBAR_FAIL] += 1
