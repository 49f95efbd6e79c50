"""The cycle-level SM core (numba): sub-partition schedulers (gpusim/sm/scheduler.py) issue into the
functional executor; instruction fetch (sm/fetch.py), the scoreboard (sm/scoreboard.py) and the
pipelines (sm/pipelines.py) decide when a warp may issue; the LSU (sm/lsu.py) times memory.
Cycles in which no sub-partition can issue are skipped: each sub-partition records the next cycle
anything can happen in it (sp_next).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gpusim.isa import opcodes as oc
from gpusim.sm.executor import S_BARRIER, S_DONE, S_FAULT, init_cta, init_warp, step
from gpusim.sm.fetch import fetch_ready
from gpusim.sm.lsu import memory_timing
from gpusim.sm.pipelines import pipe_of
from gpusim.sm.scheduler import better
from gpusim.sm.scoreboard import mark_written, operands_ready
from gpusim.sm.simt import settle
from gpusim.sm.state import TI_MASK, W_DONE, W_FREE, W_READY
from gpusim.timing.state_index import (
    C_BAR_LAT,
    C_CTA_LAT,
    C_DIV_LAT,
    C_II0,
    C_LAT0,
    C_LSU_QUEUE,
    C_MAXW,
    C_MIO_QUEUE,
    C_NSM,
    C_POLICY,
    K_DIVERGED,
    K_ISSUED,
    K_WARPS,
    R_BARRIER,
    R_BRANCH,
    R_DISPATCH,
    R_DRAIN,
    R_LG,
    R_MATH,
    R_MEMBAR,
    R_MIO,
    R_NOINST,
    R_NOTSEL,
    R_SELECTED,
    R_WAIT,
)

INF = np.int64(1) << 62
OP_MEMBAR, OP_EXIT, OP_RET = oc.OP["membar"], oc.OP["exit"], oc.OP["ret"]
A_IDLE, A_CTA_DONE, A_FAULT = 0, 1, 2
DIVERGENT = oc.CNT_DIVERGENT


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def sm_of(T, w):
    return w // T.cfg[C_MAXW]


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def sp_of(T, w):
    maxw = T.cfg[C_MAXW]
    return (w // maxw) * 4 + (w % maxw) % 4


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def earliest(P, M, T, w, now):
    """Earliest cycle warp w can issue its next instruction, and the reason it cannot before."""
    t = T.ready_at[w]
    reason = T.rreason[w]
    if settle(M, w) == 0:
        return t, reason, -1
    pc = M.spc[w, M.sp[w] - 1]
    sm = sm_of(T, w)
    f = fetch_ready(T, sm, w, pc, now)
    if f > t:
        t, reason = f, R_NOINST
    t, reason = operands_ready(T, w, pc, t, reason)
    cls = P.ins[pc, oc.F_CLASS]
    if cls == oc.C_LDST or cls == oc.C_ATOMIC:
        if P.ins[pc, oc.F_SPACE] == oc.SP_SHARED:
            free = T.mio_free[sm] - T.cfg[C_MIO_QUEUE]
            if free > t:
                t, reason = free, R_MIO
        else:
            free = T.lsu_free[sm] - T.cfg[C_LSU_QUEUE]
            if free > t:
                t, reason = free, R_LG
    else:
        free = T.pipe_free[sp_of(T, w), pipe_of(cls)]
        if free > t:
            t, reason = free, R_MATH
    return t, reason, pc


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _account(T, w, pc, now, e, reason, issued):
    """Attribute the cycles since the warp's last issue: waiting for `reason` until e, then not selected."""
    t0 = T.t_last[w]
    a = min(max(e, t0), now)
    if a > t0:
        T.stall[reason] += a - t0
        T.pc_stall[pc, reason] += a - t0
    if now > a:
        T.stall[R_NOTSEL] += now - a
        T.pc_stall[pc, R_NOTSEL] += now - a
    if issued:
        T.stall[R_SELECTED] += 1
        T.pc_stall[pc, R_SELECTED] += 1
    T.t_last[w] = now + 1


@njit(cache=True, _nrt=False, error_model="numpy")
def _sm_warps_change(T, sm, delta, now):
    T.sm_area[sm] += T.sm_warps[sm] * (now - T.sm_tchange[sm])
    T.sm_tchange[sm] = now
    if T.sm_warps[sm] == 0 and delta > 0:
        T.sm_busy_since[sm] = now
    T.sm_warps[sm] += delta
    if T.sm_warps[sm] == 0:
        T.sm_active[sm] += now - T.sm_busy_since[sm]


@njit(cache=True, _nrt=False, error_model="numpy")
def _wake_released(M, T, c, now):
    """Warps of CTA c that were waiting at a barrier and are ready again."""
    maxw = T.cfg[C_MAXW]
    sm = c // (T.cta_warps_left.shape[0] // T.cfg[C_NSM])
    for w in range(sm * maxw, (sm + 1) * maxw):
        if T.wbar_wait[w] == 1 and M.wcta[w] == c and M.wstat[w] == W_READY:
            T.wbar_wait[w] = 0
            T.wnext[w] = 0
            T.ready_at[w] = now + T.cfg[C_BAR_LAT]
            T.rreason[w] = R_BARRIER
            sp = sp_of(T, w)
            T.sp_next[sp] = min(T.sp_next[sp], T.ready_at[w])


@njit(cache=True, _nrt=False, error_model="numpy")
def _retire_warp(M, T, w, now):
    sm = sm_of(T, w)
    _sm_warps_change(T, sm, -1, now)
    c = M.wcta[w]
    T.cta_warps_left[c] -= 1
    if T.cta_warps_left[c] == 0:
        T.done_ctas[T.ndone[0]] = c
        T.ndone[0] += 1
        T.sm_ctas[sm] -= 1
        maxw = T.cfg[C_MAXW]
        for x in range(sm * maxw, (sm + 1) * maxw):
            if M.wcta[x] == c and M.wstat[x] == W_DONE:
                M.wstat[x] = W_FREE


@njit(cache=True, _nrt=False, error_model="numpy")
def issue(P, M, T, w, pc, now):
    sm = sm_of(T, w)
    sp = sp_of(T, w)
    cls = P.ins[pc, oc.F_CLASS]
    op = P.ins[pc, oc.F_OP]
    T.wnext[w] = 0
    diverged = M.cnt[DIVERGENT]
    r = step(P, M, w)
    if r == S_FAULT:
        return r
    T.cnt[K_ISSUED] += 1
    T.ready_at[w] = now + 1
    T.rreason[w] = R_WAIT
    lat = T.cfg[C_LAT0 + cls]
    kind = 0
    if cls == oc.C_LDST or cls == oc.C_ATOMIC:
        if M.tr_info[TI_MASK] != 0:
            done, kind = memory_timing(T, M, sm, pc, now, w)
            lat = done - now
        else:
            lat = 1
    else:
        T.pipe_free[sp, pipe_of(cls)] = now + T.cfg[C_II0 + cls]
        if cls == oc.C_SFU:
            kind = 1
        if cls == oc.C_BRANCH:
            T.ready_at[w] = now + lat
            T.rreason[w] = R_BRANCH
            if M.cnt[DIVERGENT] != diverged:       # set up the reconvergence point, split the paths
                T.cnt[K_DIVERGED] += 1
                T.ready_at[w] += T.cfg[C_DIV_LAT]
        elif op == OP_MEMBAR:
            T.ready_at[w] = now + lat
            T.rreason[w] = R_MEMBAR
    mark_written(T, w, pc, now + lat, kind)
    if cls == oc.C_BARRIER or op == OP_EXIT or op == OP_RET:
        if r == S_BARRIER:
            T.wbar_wait[w] = 1
        _wake_released(M, T, M.wcta[w], now)
    if r == S_DONE or M.wstat[w] == W_DONE:
        if T.wdrain[w] > now + 1:
            # the warp has exited but its stores and reductions are still in flight: it keeps its
            # slot (and its CTA's) until they are acknowledged
            M.wstat[w] = W_READY
            T.ready_at[w] = T.wdrain[w]
            T.rreason[w] = R_DRAIN
        else:
            _retire_warp(M, T, w, now)
    return r


@njit(cache=True, _nrt=False, error_model="numpy")
def issue_smsp(P, M, T, sp, now):
    """One scheduler cycle of sub-partition sp: issue the chosen eligible warp, or sleep until one can."""
    maxw = T.cfg[C_MAXW]
    sm = sp // 4
    k = sp % 4
    nslots = maxw // 4
    policy = T.cfg[C_POLICY]
    best, best_pos, best_pc = -1, 0, 0
    best_e, best_reason = np.int64(0), 0
    nxt = INF
    last = T.sp_last[sp]
    last_pos = (last % maxw) // 4 if last >= 0 else -1
    for j in range(nslots):
        w = sm * maxw + j * 4 + k
        if M.wstat[w] != W_READY:
            continue
        if T.wnext[w] > now:
            # cached bound: only this warp's own issue, a barrier release or a dispatch can make it
            # earlier (and they reset it); pipes and queues only move later
            if T.wnext[w] < nxt:
                nxt = T.wnext[w]
            continue
        e, reason, pc = earliest(P, M, T, w, now)
        T.wnext[w] = e
        if e <= now:
            if better(policy, w, j, best, best_pos, last, last_pos, nslots, T.wage):
                best, best_pos, best_pc, best_e, best_reason = w, j, pc, e, reason
        elif e < nxt:
            nxt = e
    if best < 0:
        T.sp_next[sp] = nxt
        return 0
    _account(T, best, best_pc, now, best_e, best_reason, best_pc >= 0)
    T.sp_last[sp] = best
    if best_pc < 0:     # finished warp (stack emptied, stores drained): retire it
        M.wstat[best] = W_DONE
        _retire_warp(M, T, best, now)
        T.sp_next[sp] = now + 1
        return 0
    r = issue(P, M, T, best, best_pc, now)
    T.sp_next[sp] = now + 1
    return r


@njit(cache=True, _nrt=False, error_model="numpy")
def advance(P, M, T, now):
    """Run cycles until a CTA completes (A_CTA_DONE), nothing is resident (A_IDLE) or a fault."""
    nsp = T.sp_next.shape[0]
    while True:
        t = INF
        for sp in range(nsp):
            if T.sp_next[sp] < t:
                t = T.sp_next[sp]
        if t >= INF:
            return now, A_IDLE
        if t > now:
            now = t
        M.clock[0] = now
        for sp in range(nsp):
            if T.sp_next[sp] <= now:
                if issue_smsp(P, M, T, sp, now) == S_FAULT:
                    return now, A_FAULT
        if T.ndone[0] > 0:
            return now + 1, A_CTA_DONE
        now += 1


@njit(cache=True, _nrt=False, error_model="numpy")
def dispatch(P, M, T, cta, sm, now, age, nthreads):
    """Place CTA number `cta` on SM `sm` (the GigaThread engine decided it fits). Returns False if no slot."""
    ncta_sm = T.cta_warps_left.shape[0] // T.cfg[C_NSM]
    maxw = T.cfg[C_MAXW]
    nwarps = (nthreads + 31) // 32
    c = -1
    for x in range(sm * ncta_sm, (sm + 1) * ncta_sm):
        if T.cta_warps_left[x] == 0:
            c = x
            break
    if c < 0:
        return False
    ncx, ncy = M.geom[3], M.geom[4]
    init_cta(M, c, cta % ncx, (cta // ncx) % ncy, cta // (ncx * ncy), sm, nthreads, nwarps)
    T.cta_warps_left[c] = nwarps
    T.sm_ctas[sm] += 1
    placed = 0
    start = now + T.cfg[C_CTA_LAT]
    for w in range(sm * maxw, (sm + 1) * maxw):
        if placed == nwarps:
            break
        if M.wstat[w] == W_FREE:
            init_warp(M, w, c, placed, nthreads)
            T.ready_at[w] = start
            T.t_last[w] = start
            T.wstart[w] = start
            T.rreason[w] = R_DISPATCH
            T.wage[w] = age * 64 + placed
            T.wbar_wait[w] = 0
            T.wnext[w] = 0
            T.wdrain[w] = 0
            T.wline[w] = -1
            T.cnt[K_WARPS] += 1
            for r in range(T.reg_ready.shape[1]):
                T.reg_ready[w, r] = 0
            _sm_warps_change(T, sm, 1, now)
            sp = sp_of(T, w)
            T.sp_next[sp] = min(T.sp_next[sp], start)
            placed += 1
    return placed == nwarps


