"""SIMT control: the per-warp reconvergence stack, branches, exits, calls and CTA barriers (numba).

Stack entries are (pc, reconvergence pc, mask). A divergent branch turns the top entry into the
reconvergence entry (pc := IPDOM) and pushes one entry per path; an entry pops when its pc reaches
its reconvergence pc or when all its lanes have exited. When the top entry already reconverges at
the same point, it is replaced instead of kept, so loops whose lanes leave one by one keep the
stack shallow. Lanes that execute `exit` leave every entry.
"""
from __future__ import annotations

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import popc64
from gpusim.isa.calls import CALL_HEAD, K_IMM, K_LOCAL, K_PARAM, K_REG, K_SHARED, RET_BASE, SAVE_HEAD
from gpusim.jit import njit
from gpusim.memory.access import _rd, _wr, fault
from gpusim.sm.cluster import cluster_exited
from gpusim.sm.operands import bits, put
from gpusim.sm.sanitize import barrier_arrive, barrier_released
from gpusim.sm.state import CALL_DEPTH, G_STACK, NBAR, STACK_DEPTH, W_BARRIER, W_DONE, W_READY


@njit(no_cpython_wrapper=True, inline="always")
def settle(M, w):
    """Pop finished entries; return the stack depth (0: warp finished)."""
    sp = M.sp[w]
    live = ~M.exited[w]
    while sp > 0:
        t = sp - 1
        if (M.smask[w, t] & live) == 0 or (M.spc[w, t] == M.srpc[w, t] and M.sdepth[w, t] == M.csp[w]):
            sp -= 1
        else:
            break
    M.sp[w] = sp
    return sp


@njit(no_cpython_wrapper=True)
def branch(P, M, i, w, pc, amask, taken):
    """Resolve a branch: taken lanes go to the target. Returns True when the warp diverged."""
    t = M.sp[w] - 1
    target = P.ins[i, oc.F_TARGET]
    if taken == amask:
        M.spc[w, t] = target
        return False
    if taken == 0:
        M.spc[w, t] = pc + 1
        return False
    rpc = P.ins[i, oc.F_RECONV]
    nottaken = amask & ~taken
    if M.srpc[w, t] == rpc and M.sdepth[w, t] == M.csp[w]:
        M.sp[w] = t                  # replace: this entry reconverges where the paths do
    else:
        M.spc[w, t] = rpc
    if M.sp[w] + 2 > STACK_DEPTH:
        fault(M, oc.E_STACK, w, 0, pc, 0, 0, 0)
        return True
    if pc + 1 != rpc:
        _push(M, w, pc + 1, rpc, nottaken)
    if target != rpc:
        _push(M, w, target, rpc, taken)
    return True


@njit(no_cpython_wrapper=True)
def _push(M, w, pc, rpc, mask):
    s = M.sp[w]
    M.spc[w, s] = pc
    M.srpc[w, s] = rpc
    M.smask[w, s] = mask
    M.sdepth[w, s] = M.csp[w]      # a recursive activation reaching the same pc does not reconverge it
    M.sp[w] = s + 1


@njit(no_cpython_wrapper=True)
def exit_lanes(M, w, emask):
    """Retire lanes; a CTA barrier whose remaining threads have all arrived is released."""
    newly = emask & ~M.exited[w]
    M.exited[w] |= newly
    c = M.wcta[w]
    M.cta_live[c] -= popc64(newly)
    if (M.valid[w] & ~M.exited[w]) == 0:
        M.wstat[w] = W_DONE
    for b in range(NBAR):
        if M.bar_arrived[c, b] > 0 and M.bar_expect[c, b] == 0 and M.bar_arrived[c, b] >= M.cta_live[c]:
            release(M, c, b)
    if newly != 0:
        cluster_exited(M, c)


@njit(no_cpython_wrapper=True)
def release(M, c, b):
    """Let every warp of CTA c waiting on barrier b continue past its bar instruction (a warp that went on past
    it, `defer_barrier`, from where it stopped)."""
    for w in range(M.wstat.shape[0]):
        if M.wcta[w] == c and M.wstat[w] == W_BARRIER and M.wbar[w] == b:
            M.wstat[w] = W_READY
            if M.wdefer[w] == 0:
                M.spc[w, M.sp[w] - 1] += 1
        if M.wcta[w] == c and M.wdefer[w] == b + 1:
            M.wdefer[w] = 0
    M.bar_arrived[c, b] = 0
    M.bar_expect[c, b] = 0
    M.bar_red[c, b] = 0
    if M.san.ctl[0] != 0:
        barrier_released(M.san, c, b)


@njit(no_cpython_wrapper=True)
def defer_barrier(M, w, pc):
    """True (and the warp now waits) when warp w, gone on past a bar.sync its CTA has not completed, reaches an
    instruction (pc) that must wait for it: M.defer[pc] == 0 (timing/launch: what passes a BAR.SYNC.DEFER_BLOCKING).
    The barrier's release lets it go on from pc."""
    if M.wdefer[w] == 0 or M.defer[pc] != 0:
        return False
    M.wstat[w] = W_BARRIER
    return True


@njit(no_cpython_wrapper=True)
def barrier(P, M, i, w, pc, emask):
    """bar.sync / bar.arrive / bar.red. Returns True when the warp must wait."""
    c = M.wcta[w]
    kind = P.ins[i, oc.F_MOD]
    nsrc = P.ins[i, oc.F_NSRC]
    first = 0
    for l in range(32):
        if (emask >> l) & 1:
            first = l
            break
    src0 = oc.S0 + (0 if kind != 2 else 0)
    b = bits(P, M, i, src0, w, first) & (NBAR - 1) if nsrc > 0 else 0
    expect = 0
    if kind != 2 and nsrc > 1:
        expect = bits(P, M, i, oc.S0 + 1, w, first)
    elif kind == 2 and nsrc > 2:
        expect = bits(P, M, i, oc.S0 + 1, w, first)
    if M.san.ctl[0] != 0:
        barrier_arrive(M.san, M, c, w, pc, emask, b, expect, kind)
    if kind == 2:
        cpred = oc.S0 + nsrc - 1
        for l in range(32):
            if (emask >> l) & 1 and bits(P, M, i, cpred, w, l) & 1:
                M.bar_red[c, b] += 1
    M.bar_arrived[c, b] += popc64(emask)
    if expect > 0:
        M.bar_expect[c, b] = expect
    need = M.bar_expect[c, b] if M.bar_expect[c, b] > 0 else M.cta_live[c]
    if kind == 1:
        if M.bar_arrived[c, b] >= need:
            release(M, c, b)
        M.spc[w, M.sp[w] - 1] = pc + 1
        return False
    M.wbar[w] = b
    if kind == 0 and M.bar_arrived[c, b] < need and pc + 1 < M.defer.shape[0] and M.defer[pc + 1] != 0:
        # BAR.SYNC.DEFER_BLOCKING: the warp goes on with the register-only work after it (`defer_barrier`)
        M.wdefer[w] = b + 1
        M.spc[w, M.sp[w] - 1] = pc + 1
        return False
    M.wstat[w] = W_BARRIER
    if M.bar_arrived[c, b] >= need:
        if kind == 2:
            _bar_red_results(P, M, c, b)
        release(M, c, b)
    return M.wstat[w] == W_BARRIER


@njit(no_cpython_wrapper=True)
def _bar_red_results(P, M, c, b):
    total = M.bar_arrived[c, b]
    cnt = M.bar_red[c, b]
    for w in range(M.wstat.shape[0]):
        if M.wcta[w] != c or M.wstat[w] != W_BARRIER or M.wbar[w] != b:
            continue
        i = M.spc[w, M.sp[w] - 1]
        mode = P.ins[i, oc.F_MOD2]
        r = cnt if mode == 0 else (1 if (cnt == total if mode == 1 else cnt > 0) else 0)
        live = M.smask[w, M.sp[w] - 1] & ~M.exited[w]
        for l in range(32):
            if (live >> l) & 1:
                put(P, M, i, oc.D0, w, l, r)


@njit(no_cpython_wrapper=True, inline="always")
def _value(M, kind, where, size, w, l):
    """One argument's bits (up to 8 bytes at `where`) from its kind of place (isa/calls.py)."""
    if kind == K_REG:
        return M.R[w, where, l]
    if kind == K_IMM:
        return where
    if kind == K_PARAM:
        return _rd(M.pmem, where, size)
    if kind == K_SHARED:
        return _rd(M.smem[M.wcta[w]], where, size)
    return _rd(M.lmem[w, l], where, size)


@njit(no_cpython_wrapper=True)
def _move(M, kind, where, size, w, l, v):
    if kind == K_REG:
        M.R[w, where, l] = v
    elif kind == K_SHARED:
        _wr(M.smem[M.wcta[w]], where, size, v)
    else:
        _wr(M.lmem[w, l], where, size, v)


@njit(no_cpython_wrapper=True, inline="always")
def _frame_need(P, sid):
    row = P.saves[sid]
    return (row[1] + 8 * row[2] + 15) // 16 * 16      # frames start 16-byte aligned, as their static copies


@njit(no_cpython_wrapper=True)
def _push_frame(P, M, sid, fp, w, pc):
    """Allocate the callee's frame on each lane's call stack and save its live registers there.
    Returns the frame's displacement from the callee's static frame (-1 << 62 on overflow)."""
    row = P.saves[sid]
    need = _frame_need(P, sid)
    base = M.geom[G_STACK] + M.csb[w]
    if base + need > M.lmem.shape[2]:
        fault(M, oc.E_CALLSTACK, w, 0, pc, M.lmem.shape[2] - M.geom[G_STACK], need, 0)
        return -1 << 62
    M.csb[w] += need
    for l in range(32):
        buf = M.lmem[w, l]
        for j in range(row[1]):
            buf[base + j] = 0
        for k in range(row[2]):
            _wr(buf, base + row[1] + 8 * k, 8, M.R[w, row[SAVE_HEAD + k], l])
    return base - row[0]


@njit(no_cpython_wrapper=True)
def _pop_frame(P, M, sid, w):
    row = P.saves[sid]
    M.csb[w] -= _frame_need(P, sid)
    base = M.geom[G_STACK] + M.csb[w]
    for l in range(32):
        buf = M.lmem[w, l]
        for k in range(row[2]):
            M.R[w, row[SAVE_HEAD + k], l] = _rd(buf, base + row[1] + 8 * k, 8)


@njit(no_cpython_wrapper=True)
def call(P, M, i, w, pc, emask):
    row = P.calls[P.ins[i, oc.F_TARGET]]
    if M.csp[w] >= CALL_DEPTH:
        fault(M, oc.E_STACK, w, 0, pc, 0, 0, 0)
        return
    caller_fp, callee_fp = row[4], row[5]
    delta = 0
    if row[3] >= 0:
        delta = _push_frame(P, M, row[3], callee_fp, w, pc)
        if delta == -1 << 62:
            return
    nargs = row[1]
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        for k in range(nargs):
            kind, src, dst, size = row[CALL_HEAD + 4 * k], row[CALL_HEAD + 4 * k + 1], \
                row[CALL_HEAD + 4 * k + 2], row[CALL_HEAD + 4 * k + 3]
            if kind == K_LOCAL and caller_fp >= 0:
                src += M.R[w, caller_fp, l]          # the caller's own activation frame
            for j in range(0, size, 8):
                n = min(8, size - j)
                v = _value(M, kind, src + j, n, w, l) if kind != K_IMM else src
                _wr(M.lmem[w, l], dst + delta + j, n, v)
    if callee_fp >= 0:
        for l in range(32):
            M.R[w, callee_fp, l] = delta
    M.cs_ret[w, M.csp[w]] = (pc + 1) | (i << 32)
    M.csp[w] += 1
    M.spc[w, M.sp[w] - 1] = row[0]


@njit(no_cpython_wrapper=True)
def ret_from_func(P, M, w, pc, emask):
    if M.csp[w] == 0:
        fault(M, oc.E_BADCALL, w, 0, pc, 0, 0, 0)
        return
    M.csp[w] -= 1
    packed = M.cs_ret[w, M.csp[w]]
    ret_pc = packed & 0xFFFFFFFF
    ci = packed >> 32
    row = P.calls[P.ins[ci, oc.F_TARGET]]
    caller_fp, callee_fp = row[4], row[5]
    nrets = row[2]
    vals = M.cs_tmp                  # return values leave before the callee's frame is freed
    for l in range(32):
        if (emask >> l) & 1:
            delta = M.R[w, callee_fp, l] if callee_fp >= 0 else 0
            for k in range(nrets):
                src, size = row[RET_BASE + 4 * k + 1] + delta, row[RET_BASE + 4 * k + 3]
                for j in range(0, min(size, 64), 8):
                    vals[8 * k + j // 8, l] = _rd(M.lmem[w, l], src + j, min(8, size - j))
    if row[3] >= 0:
        _pop_frame(P, M, row[3], w)
    for l in range(32):
        if (emask >> l) & 1:
            for k in range(nrets):
                kind, dst, size = row[RET_BASE + 4 * k], row[RET_BASE + 4 * k + 2], row[RET_BASE + 4 * k + 3]
                if kind == K_LOCAL and caller_fp >= 0:
                    dst += M.R[w, caller_fp, l]
                for j in range(0, min(size, 64), 8):
                    _move(M, kind, dst + j, min(8, size - j), w, l, vals[8 * k + j // 8, l])
    M.spc[w, M.sp[w] - 1] = ret_pc
