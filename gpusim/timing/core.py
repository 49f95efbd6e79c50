"""The cycle-level SM core (numba): the units of every SM composed into one loop.

Per cycle, each sub-partition's scheduler (sm/scheduler.py) asks, for each of its resident warps,
when it could issue next (`earliest`): not before instruction fetch has its line (sm/fetch.py),
its registers are ready (sm/scoreboard.py) and its pipeline (sm/pipelines.py) or memory queue
(sm/lsu.py, memory/shared_banks.py) takes it. The chosen warp's instruction runs in the functional
executor (sm/executor.py `step`) and is then timed: memory instructions through the LSU, L1,
interconnect, L2 and DRAM (memory/), the rest by their pipeline. Cycles in which no sub-partition
can issue are skipped: each records the next cycle anything can happen in it (`next_event`).

`Units` holds every unit's state; each function below hands each unit only its own tuple.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.memory.dsm import barrier_completed, remote_access
from gpusim.sm.asyncops import after_issue, async_ready, tma_requests
from gpusim.sm.atomics import acquired, fence_ready
from gpusim.sm.copygroups import copy_issued, group_op
from gpusim.sm.executor import S_BARRIER, S_DEFERRED, S_DONE, S_FAULT, step
from gpusim.sm.fetch import constants_ready, fetch_ready, ldc_issued
from gpusim.sm.lsu import KIND_LONG, KIND_SHORT, KIND_SPLIT, last_begun, memory_timing, mio_behind_lg, spill_traffic
from gpusim.sm.pipelines import (
    SLOT,
    accepts_at,
    barrier_arrival,
    busy_cycles,
    dispatch_hold,
    join_hold,
    occupy,
    warp_block,
    xu_only,
)
from gpusim.sm.scheduler import (
    GTO,
    GTY,
    NEVER,
    account,
    hold_dispatch,
    hold_join,
    mio_keep,
    note_mio,
    priority,
    reads_held_until,
    slot_warp,
    subpartition_of,
    wake,
    wake_released,
)
from gpusim.sm.scoreboard import mark_written, operands_read, operands_wait
from gpusim.sm.simt import defer_barrier, settle
from gpusim.sm.stalls import (
    BARRIER,
    BRANCH_RESOLVING,
    DRAIN,
    LG_THROTTLE,
    LONG_SCOREBOARD,
    MATH_PIPE_THROTTLE,
    MEMBAR,
    MIO_THROTTLE,
    NO_INSTRUCTION,
    WAIT,
    sampled_as,
)
from gpusim.sm.state import CL_RANK, CL_SIZE, NBAR, TI_ATOM, TI_MASK, TI_SIZE, TI_SPACE, TI_STORE, W_DONE, W_READY
from gpusim.timing.ctalaunch import sample_to
from gpusim.timing.events import (
    note_hold,
    note_issue,
    record_cta_end,
    record_request,
    want_request,
)
from gpusim.timing.placement import retire_warp
from gpusim.timing.slots import charge_slots, guard_off_shared, skipped_block

Units = namedtuple("Units", "sched scoreboard pipes fetch lsu smem l1 noc l2 dram residency asyncu dsm events")
ISSUED, DIVERGENT_DELAYS = range(2)      # core counters
OP_MEMBAR, OP_EXIT, OP_RET, OP_BRA = oc.OP["membar"], oc.OP["exit"], oc.OP["ret"], oc.OP["bra"]
OP_CP, OP_LDMATRIX = oc.OP["cp"], oc.OP["ldmatrix"]
OP_LD, OP_ST = oc.OP["ld"], oc.OP["st"]
CB_S2G, CB_TS2G = oc.CPBULK["s2g"], oc.CPBULK["tensor_s2g"]
A_IDLE, A_CTA_DONE, A_FAULT = 0, 1, 2
DIVERGENT = oc.CNT_DIVERGENT


@njit(no_cpython_wrapper=True, inline="always")      # one caller: inlined there, compiled once
def earliest(P, M, U, w, sm, sp, now):
    """Earliest cycle warp w can issue its next instruction, the reason it cannot before, its pc
    (-1: the warp has finished), and the cycles before which the two earlier reasons held it (with those
    reasons, the later first): a warp that waited for a load and then for its pipe spent the first stretch on
    long_scoreboard, only the second on math_pipe_throttle; one held by ptxas's stall cycles, then by an
    operand, then by its pipe, spent them on wait, short_scoreboard and math_pipe_throttle in turn."""
    s = U.sched
    t = s.ready_at[w]
    reason = s.reason[w]
    if settle(M, w) == 0:
        return t, reason, -1, t, reason, t, reason
    p, p_reason = t, reason
    q, q_reason = t, reason
    pc = M.spc[w, M.sp[w] - 1]
    f = fetch_ready(U.fetch, U.l2, U.noc, U.dram, sm, w, pc, now)
    if f > t:
        q, q_reason, p, p_reason = p, p_reason, t, reason
        t, reason = f, NO_INSTRUCTION
    c, c_reason = constants_ready(U.fetch, sm, sp, pc, t, now)    # its ULDC's block, an MIO entry
    if c > t:
        q, q_reason, p, p_reason = p, p_reason, t, reason
        t, reason = c, c_reason
    t_ops, r_ops, split = operands_wait(U.scoreboard, w, pc, t, reason)
    if t_ops > t:
        if split > t:       # an aggregated atomic's result: the atomic back (long_scoreboard), then its SHFL
            q, q_reason, p, p_reason = t, reason, split, LONG_SCOREBOARD
        else:
            q, q_reason, p, p_reason = p, p_reason, t, reason
        t, reason = t_ops, r_ops
    if U.lsu.release[pc] & 1 != 0:      # a release: its SM's earlier writes performed first (sm/atomics.py)
        fence = fence_ready(U.lsu, w)
        if fence > t:
            q, q_reason, p, p_reason = p, p_reason, t, reason
            t, reason = fence, MEMBAR
    cls = P.ins[pc, oc.F_CLASS]
    if cls == oc.C_LDST or cls == oc.C_ATOMIC:
        if P.ins[pc, oc.F_SPACE] == oc.SP_SHARED:
            # the MIO queue has an entry free once the oldest access in it has begun
            free, held = U.smem.ring[sm, U.smem.head[sm]], MIO_THROTTLE
        else:
            # the LSU queue has an entry free once the oldest instruction in it has begun
            free, held = U.lsu.qring[sm, U.lsu.qhead[sm]], LG_THROTTLE
            if cls == oc.C_ATOMIC:      # an atomic has `atomic_queue` places in it (0: all)
                free = max(free, U.lsu.qring[sm, (U.lsu.qhead[sm] - U.lsu.atomic_queue) % U.lsu.qring.shape[1]])
    else:
        free, held = accepts_at(U.pipes, sp, cls, pc), MATH_PIPE_THROTTLE
    if free > t:
        q, q_reason, p, p_reason = p, p_reason, t, reason
        t, reason = free, held
    if cls == oc.C_SYNC:        # wgmma / bulk wait_group, mbarrier waits (sm/asyncops.py)
        t_sync, r_sync = async_ready(P, M, U.asyncu, w, pc, t, reason)
        if t_sync > t:
            q, q_reason, p, p_reason = p, p_reason, t, reason
            t, reason = t_sync, r_sync
    return t, reason, pc, p, p_reason, q, q_reason


@njit(no_cpython_wrapper=True, inline="always")
def issue(P, M, U, counters, w, pc, now):
    """Run warp w's instruction at pc (issued at `now`) and time it."""
    s = U.sched
    sm = w // s.warps_per_sm
    sp = subpartition_of(s, w)
    cls = P.ins[pc, oc.F_CLASS]
    op = P.ins[pc, oc.F_OP]
    s.next_bound[w] = 0
    diverged = M.cnt[DIVERGENT]
    failed_waits = M.cnt[oc.CNT_MBAR_FAIL]
    phases = M.cnt[oc.CNT_MBAR_PHASE]
    lead = M.clslot[M.wcta[w], 0]
    phase = M.bar_expect[lead, NBAR]        # cluster-barrier phases completed (sm/cluster.py)
    r = step(P, M, w)
    if r == S_FAULT:
        return r
    if r == S_DEFERRED:     # gone on past a barrier, it reached an instruction that waits for the release
        s.at_barrier[w] = 1
        return r
    counters[ISSUED] += 1
    ldc_issued(U.fetch, U.l2, U.noc, U.dram, sm, sp, pc, now)      # the first LDC holds an MIO entry (sm/fetch.py)
    s.ready_at[w] = now + 1
    s.reason[w] = WAIT
    kind = 0
    if cls == oc.C_LDST or cls == oc.C_ATOMIC:
        lat = 1
        s.first_sp[sm] = (sp + 1) % s.subpartitions     # it took an entry of a shared queue: the next goes first
        if M.tr_info[TI_MASK] != 0:
            space = M.tr_info[TI_SPACE]
            if space == oc.SP_SHARED:
                note_mio(s, sp, now)        # it took an entry of its sub-partition's MIO queue
            sampled = U.events.on != 0 and (space == oc.SP_GLOBAL or space == oc.SP_LOCAL) and want_request(U.events)
            if sampled:
                U.l2.probe[0] = -1
            done, kind = memory_timing(U.lsu, U.smem, U.l1, U.l2, U.noc, U.dram, M.tr_addr, M.tr_info,
                                       M.lmem.shape[2] + U.lsu.spill_bytes, sm, pc, now, w)
            if space == oc.SP_GLOBAL or space == oc.SP_LOCAL:
                through_mio = M.tr_info[TI_STORE] != 0 or M.tr_info[TI_ATOM] != 0     # its data goes through the MIO
                if through_mio:
                    U.lsu.sp_queued[sp] = U.lsu.qcount[sm]
                if through_mio and U.lsu.store_read != 0:
                    # its registers are read as it moves from the MIO into the L1's queue
                    operands_read(U.scoreboard, w, pc, mio_behind_lg(U.lsu, sm, sp, now) + 1)
                else:       # the LSU reads the instruction's registers when it begins it
                    operands_read(U.scoreboard, w, pc, last_begun(U.lsu, sm) + 1)
            if op == OP_LDMATRIX:
                done += U.smem.ldsm_latency
            if kind == KIND_LONG and U.scoreboard.variable[pc] != 0:    # warp-aggregated: the lanes' values by SHFL
                done += U.scoreboard.variable[pc]
                kind = KIND_SPLIT
            if M.tr_info[TI_SPACE] == oc.SP_SHARED and M.clslot[M.wcta[w], CL_SIZE] > 1:
                done = remote_access(U.dsm, M.tr_addr, M.tr_info[TI_MASK], M.tr_info[TI_SIZE],
                                     M.clslot[M.wcta[w], CL_RANK], sm, now, done)     # distributed shared memory
            lat = done - now
            if kind == 0 and U.pipes.slots[pc] == 0:
                lat = 0     # a parameter or constant ptxas folded into its consumers' operands (c[bank][offset])
            if sampled:
                req = 2 if M.tr_info[TI_ATOM] != 0 else (1 if M.tr_info[TI_STORE] != 0 else 0)
                record_request(U.events, sm, w, req, U.l2.probe, now, done)
            if U.lsu.release[pc] & 2 != 0 and space == oc.SP_GLOBAL:     # an acquire: the warp waits for it
                acq = acquired(U.lsu, w, done)
                if acq > s.ready_at[w]:
                    s.ready_at[w] = acq
                    s.reason[w] = LONG_SCOREBOARD
        elif (U.smem.sass != 0 and M.tr_info[TI_SPACE] == oc.SP_SHARED and M.tr_info[TI_ATOM] == 0
              and (op == OP_LD or op == OP_ST)):
            lat, kind = guard_off_shared(U, sp, sm, op == OP_LD, now)   # its PTX guard false on every lane
        if op == OP_CP:        # cp.async: no register waits; wait_group waits for the bytes to land
            copy_issued(U.lsu.groups, w, now + lat)
            lat = 1
    else:
        lat = occupy(U.pipes, sp, cls, pc, now)
        hold = dispatch_hold(U.pipes, cls, pc)
        if hold > 1:            # mma.sync: the sub-partition issues nothing else meanwhile
            s.next_event[sp] = now + hold
        if warp_block(U.pipes, cls, pc) > 0:     # an emulated (fp8) mma: the warp runs its whole sequence
            s.ready_at[w] = now + warp_block(U.pipes, cls, pc)
        if (cls == oc.C_SFU and U.pipes.xu[pc] != 0) or xu_only(U.pipes, pc):   # a MUFU's, F2I's: short scoreboard
            kind = KIND_SHORT
        elif U.scoreboard.variable[pc] != 0 and lat > 0:    # S2R, SHFL: MIO operations with a scoreboard
            kind = KIND_SHORT
            # it leaves the sub-partition's in-order MIO queue behind the stores and atomics queued there
            lat = max(lat, mio_behind_lg(U.lsu, sm, sp, now) - now + U.scoreboard.variable[pc])
        elif s.wait_cycles[pc] > 0 and (cls == oc.C_INT or cls == oc.C_INT64 or cls == oc.C_FP32
                                        or cls == oc.C_FP64 or cls == oc.C_MISC or cls == oc.C_SFU):
            lat = 0     # the SASS model with ptxas's stall cycles: they hold the warp for its fixed latencies
            if U.pipes.xu_chain[pc] > 0:    # and its SASS waits on its own xu results (a division's I2F, MUFU, F2I)
                lat = (s.wait_cycles[pc] + U.pipes.xu_chain[pc] + SLOT - 1) // SLOT
                kind = KIND_SHORT
        if cls == oc.C_BRANCH:
            s.ready_at[w] = now + lat
            s.reason[w] = BRANCH_RESOLVING
            if M.cnt[DIVERGENT] != diverged:       # set up the reconvergence point, split the paths
                counters[DIVERGENT_DELAYS] += 1
                s.ready_at[w] += U.pipes.divergence_delay
        elif op == OP_MEMBAR:
            s.ready_at[w] = now + lat
            s.reason[w] = MEMBAR
        elif op == OP_CP:      # commit_group / wait_group N / wait_all (a wait is a memory dependency)
            until = group_op(U.lsu.groups, w, P.ins[pc, oc.F_MOD], P.opv[pc, oc.S0])
            if until > s.ready_at[w]:
                s.ready_at[w] = until
                s.reason[w] = LONG_SCOREBOARD
    if U.lsu.spill_bytes > 0 and (U.lsu.spill[pc, 0] != 0 or U.lsu.spill[pc, 1] != 0) and M.sp[w] > 0:
        # the SASS model: ptxas's spill loads and stores on this line go through the L1 as local traffic;
        # what the line computes waits for its reloads
        live = M.smask[w, M.sp[w] - 1] & ~M.exited[w]
        if live != 0:
            # the spill stores' registers are read when the LSU begins them (their read barriers)
            operands_read(U.scoreboard, w, pc, max(now, U.lsu.free_at[sm]) + 1)
            back = spill_traffic(U.lsu, U.l1, U.l2, U.noc, U.dram, M.lmem.shape[2], live, sm, pc, now, w, SLOT)
            if back - now > lat:
                lat = back - now
                kind = KIND_LONG
    mark_written(U.scoreboard, w, pc, now + lat, kind)
    U.lsu.seen_acked[w] = U.lsu.sm_acked[sm]     # what a fence after this instruction waits for
    # the SASS model: the instruction's SASS issue slots (sm/pipelines.py take_slots); the PTX model's are all 1
    more = 0
    if (U.pipes.predicated[pc] > 0 and M.sp[w] > 0 and M.cnt[DIVERGENT] == diverged
            and M.spc[w, M.sp[w] - 1] == P.ins[pc, oc.F_TARGET]):
        more = skipped_block(U, w, pc, sm, now)     # it jumped over a block ptxas predicated: issued anyway
    extra = charge_slots(U, sp, w, pc, more, now)
    if U.pipes.disp_hold[pc] > 0:       # an IMAD.HI: the sub-partition dispatches nothing for a while after it
        start = now + 1 + max(extra, 0)
        hold_dispatch(s, sp, start, start + (U.pipes.disp_hold[pc] + SLOT - 1) // SLOT, True)
    elif U.pipes.disp_sampled[pc] > 0:  # an IMAD.WIDE: its hold is in its pipe's and reader's times, sampled here
        start = now + 1 + max(extra, 0)
        hold_dispatch(s, sp, start, start + (U.pipes.disp_sampled[pc] + SLOT - 1) // SLOT, False)
    if U.pipes.bank[pc] > 0:    # its register reads (a bank conflict) hold the other warps' dispatch, not its own
        start = now + 1 + max(extra, 0)
        hold_dispatch(s, sp, start, start + (U.pipes.bank[pc] + SLOT - 1) // SLOT, False, w)
    if s.wait_cycles[pc] > 0:       # the SASS model: ptxas's stall cycles on the line's SASS
        t = now + (s.wait_cycles[pc] + SLOT - 1) // SLOT
        if s.ready_at[w] < t:
            s.ready_at[w] = t
            s.reason[w] = WAIT
    if U.pipes.slots[pc] == 0 and s.ready_at[w] == now + 1 and s.reason[w] == WAIT:
        s.ready_at[w] = now         # folded away by ptxas: the warp's next instruction may issue at once
    if cls == oc.C_GMMA or cls == oc.C_TMA or cls == oc.C_SYNC:
        back = now
        if cls == oc.C_TMA:     # the TMA unit's sector requests through the L2 and DRAM
            back = tma_requests(U.asyncu, U.l2, U.noc, U.dram, sm, M.tr_addr[1], M.tr_info[TI_SIZE],
                                P.ins[pc, oc.F_MOD] == CB_S2G or P.ins[pc, oc.F_MOD] == CB_TS2G, now)
        resume = after_issue(P, U.asyncu, w, pc, sm, sp, M.wcta[w], M.tr_info[TI_SIZE], M.tr_addr[0],
                             M.cnt[oc.CNT_MBAR_FAIL] != failed_waits, now, back, M.cnt[oc.CNT_MBAR_PHASE] != phases)
        if resume > s.ready_at[w]:
            s.ready_at[w] = resume
            s.reason[w] = BARRIER
    if U.pipes.lat_join > 0 and M.sp[w] > 0 and r != S_DONE:     # the SASS model: its next line opens a join
        hold = now + join_hold(U.pipes, M.spc[w, M.sp[w] - 1])
        if hold > s.ready_at[w]:
            hold_join(s, w, now, hold, U.pipes.join_wait[0], U.pipes.join_wait[1])
    # a barrier, and lanes leaving (exit, ret, or a branch straight to the exit), can release warps
    # of the CTA that wait at a barrier
    if cls == oc.C_BARRIER or op == OP_EXIT or op == OP_RET or (op == OP_BRA and P.ins[pc, oc.F_MOD] == 1):
        if r == S_BARRIER:
            s.at_barrier[w] = 1
        c = M.wcta[w]
        latency = U.pipes.latency[oc.C_BARRIER]
        if cls == oc.C_BARRIER and U.pipes.bar_arrive > 0:    # the SM's barrier unit takes arrivals one by one
            latency += barrier_arrival(U.pipes, sm, now)
        if M.bar_expect[lead, NBAR] != phase:      # a cluster-barrier phase completed: over the SM-to-SM network
            latency = barrier_completed(U.dsm, lead, M.clslot[c, CL_SIZE], now) - now
        elif (cls == oc.C_BARRIER and P.ins[pc, oc.F_MOD] == oc.BAR_CLUSTER_WAIT and r != S_BARRIER
              and U.dsm.release[lead] > s.ready_at[w]):
            wake(s, w, U.dsm.release[lead], BARRIER)    # the phase completed; its release is still on its way
        for k in range(M.clslot[c, CL_SIZE]):      # a cluster barrier releases warps of every CTA of the cluster
            wake_released(s, M.wcta, M.wstat, U.residency.ctas_per_sm, latency, M.clslot[c, k], now)
    if r == S_DONE or M.wstat[w] == W_DONE:
        if U.lsu.drain_at[w] > now + 1:
            # the warp has exited but its stores and reductions are still in flight: it keeps its
            # slot (and its CTA's) until they are acknowledged
            M.wstat[w] = W_READY
            s.ready_at[w] = U.lsu.drain_at[w]
            s.reason[w] = DRAIN
        else:
            retire_warp(M, s, U.residency, w, now)
    return r


@njit(no_cpython_wrapper=True, inline="always")
def issue_subpartition(P, M, U, counters, sp, now):
    """One scheduler cycle of sub-partition sp: issue the eligible warp its policy prefers, or sleep
    until one can issue."""
    s = U.sched
    sm = sp // s.subpartitions
    nslots = s.warps_per_sm // s.subpartitions
    best, best_key, best_pc = -1, np.int64(0), 0
    best_e, best_reason = np.int64(0), 0
    best_split, best_split_reason = np.int64(0), 0
    best_split0, best_split0_reason = np.int64(0), 0
    nxt = NEVER
    last = s.last_issued[sp]
    last_slot = (last % s.warps_per_sm) // s.subpartitions if last >= 0 else -1
    for j in range(nslots):
        w = slot_warp(s, sp, j)
        if M.wstat[w] != W_READY:
            continue
        if s.next_bound[w] > now:
            # cached bound: only this warp's own issue, a barrier release or a dispatch can make it
            # earlier (and they reset it); pipes and queues only move later
            if s.next_bound[w] < nxt:
                nxt = s.next_bound[w]
            continue
        e, reason, pc, split, split_reason, split0, split0_reason = earliest(P, M, U, w, sm, sp, now)
        if pc >= 0 and defer_barrier(M, w, pc):     # gone on past a barrier: its next instruction waits for it
            s.at_barrier[w] = 1
            continue
        # another warp's register reads (a bank conflict) hold the dispatch of the FMA pipe's instructions
        held = reads_held_until(s, sp, w, now) if pc >= 0 and U.pipes.fma[pc] > 0 else 0
        s.next_bound[w] = max(e, held)
        if U.events.on != 0:
            note_hold(U.events, w, sampled_as(P, pc, reason, pc >= 0 and xu_only(U.pipes, pc)))
        if e <= now and held <= now:
            if s.starve > 0 and s.eligible_since[w] < 0:      # the starvation guard's clock
                s.eligible_since[w] = e
            key = priority(s, w, j, last, last_slot, nslots, now)
            if best < 0 or key < best_key:
                best, best_key, best_pc, best_e, best_reason = w, key, pc, e, reason
                best_split, best_split_reason = split, split_reason
                best_split0, best_split0_reason = split0, split0_reason
        elif max(e, held) < nxt:
            nxt = max(e, held)
    if best < 0:
        s.next_event[sp] = nxt
        return 0
    keep = NEVER
    if best_reason == MATH_PIPE_THROTTLE and best_pc >= 0:
        # of the cycles it waited for its pipe, the pipe was busy in some; in the others it took
        # another warp's instruction
        keep = busy_cycles(U.pipes, sp, P.ins[best_pc, oc.F_CLASS], best_pc,
                           max(best_split, s.accounted_until[best]), best_e)
    elif best_reason == MIO_THROTTLE:   # of the cycles it waited for the MIO queue, entries other warps took
        keep = mio_keep(s, sp, max(best_split, s.accounted_until[best]), best_e)
    # the pipe's busy cycles go to the reason the H100 samples them as; the cycles it took others' work, not_selected
    account(s, best, best_pc, now, best_e,
            sampled_as(P, best_pc, best_reason, best_pc >= 0 and xu_only(U.pipes, best_pc)), best_pc >= 0, best_split,
            best_split_reason, keep, best_split0, best_split0_reason, best_pc >= 0 and U.pipes.fma[best_pc] > 0)
    if U.events.on != 0 and best_pc >= 0:
        note_issue(U.events, best, sp, now)
    s.last_issued[sp] = best
    if s.starve > 0:
        s.eligible_since[best] = -1
    if (s.policy == GTO or s.policy == GTY) and best_pc >= 0 and s.yields[best_pc] != 0:
        s.last_issued[sp] = -2 - best       # its SASS yields: the next pick prefers any other warp
    s.next_event[sp] = now + 1
    if best_pc < 0:     # finished warp (stack emptied, stores drained): retire it
        M.wstat[best] = W_DONE
        retire_warp(M, s, U.residency, best, now)
        return 0
    return issue(P, M, U, counters, best, best_pc, now)


@njit
def advance(P, M, U, counters, now):
    """Run cycles until a CTA completes (A_CTA_DONE), nothing is resident (A_IDLE) or a fault."""
    next_event = U.sched.next_event
    while True:
        t = NEVER
        for sp in range(next_event.shape[0]):
            if next_event[sp] < t:
                t = next_event[sp]
        if t >= NEVER:
            return now, A_IDLE
        if t > now:
            now = t
        if U.events.on != 0 and now >= U.events.next_at[0]:
            sample_to(M.wstat, U.events, U.sched, U.residency, U.l1, U.l2, U.dram, now)
        M.clock[0] = now
        nsub = U.sched.subpartitions
        mask = nsub - 1         # 1, 2 or 4 sub-partitions
        for sm in range(next_event.shape[0] // nsub):
            # an SM's sub-partitions take turns at the queues they share (the MIO's and the LSU's): the one
            # after the last to put a memory instruction in goes first
            turn = U.sched.first_sp[sm]
            for j in range(nsub):
                sp = sm * nsub + ((j + turn) & mask)
                if next_event[sp] > now:
                    continue
                if issue_subpartition(P, M, U, counters, sp, now) == S_FAULT:
                    return now, A_FAULT
                # the SASS model: instructions ptxas folded left this cycle's issue slot free
                if next_event[sp] <= now and issue_subpartition(P, M, U, counters, sp, now) == S_FAULT:
                    return now, A_FAULT
        if U.residency.n_done[0] > 0:
            if U.events.on != 0:
                for k in range(U.residency.n_done[0]):
                    record_cta_end(U.events, U.residency.done_ctas[k], now + 1)
            return now + 1, A_CTA_DONE
        now += 1
