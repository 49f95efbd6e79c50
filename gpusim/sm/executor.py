"""The warp executor: one warp instruction at a time (`step`), and the functional CTA loop (numba).

`step(P, M, w)` executes the next instruction of warp slot w for its active lanes and returns what
happened, so a timing model can interleave warps and CTAs instruction by instruction; `run_cta`
runs one resident CTA to completion for functional mode.
"""
from __future__ import annotations

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import popc64
from gpusim.isa.types import K_FLOAT, T_F64
from gpusim.jit import njit
from gpusim.memory.access import fault
from gpusim.sm.alu_float import exec_float
from gpusim.sm.alu_int import exec_dot, exec_int, exec_mov_halves
from gpusim.sm.asynccopy import exec_cp_async
from gpusim.sm.bulkcopy import exec_cpbulk
from gpusim.sm.carry import exec_carry
from gpusim.sm.cluster import cluster_barrier, exec_getctarank, exec_mapa
from gpusim.sm.compare import exec_cvta, exec_mov, exec_select, exec_set, exec_setp
from gpusim.sm.convert import exec_cvt
from gpusim.sm.matrixops import exec_ldmatrix, exec_stmatrix
from gpusim.sm.mbarrier import exec_mbarrier
from gpusim.sm.memops import exec_atom, exec_ld, exec_st
from gpusim.sm.mma import exec_mma
from gpusim.sm.operands import read_sreg
from gpusim.sm.sanitize import A_ATOMIC, A_READ, A_WRITE, F_RACE, PI_SYNCWARP, new_cta, shared_access, warp_sync
from gpusim.sm.simt import barrier, branch, call, defer_barrier, exit_lanes, ret_from_func, settle
from gpusim.sm.state import CL_RANK, CL_SIZE, G_CLX, G_CLY, G_CLZ, W_BARRIER, W_DONE, W_READY, Lanes, MemLanes
from gpusim.sm.warpops import exec_activemask, exec_elect, exec_match, exec_redux, exec_shfl, exec_vote
from gpusim.sm.wgmma import exec_wgmma

# step() results
S_ISSUED, S_BARRIER, S_DONE, S_FAULT, S_IDLE, S_DEFERRED = 0, 1, 2, 3, 4, 5     # S_DEFERRED: not issued, waits

O = oc.OP
OP_BRA, OP_EXIT, OP_RET, OP_RETF, OP_CALL = O["bra"], O["exit"], O["ret"], O["retf"], O["call"]
OP_LD, OP_LDU, OP_ST, OP_ATOM, OP_RED, OP_BAR = O["ld"], O["ldu"], O["st"], O["atom"], O["red"], O["bar"]
OP_MOV, OP_SETP, OP_SELP, OP_SLCT, OP_CVT, OP_CVTA, OP_SET = (O["mov"], O["setp"], O["selp"], O["slct"],
                                                             O["cvt"], O["cvta"], O["set"])
OP_SHFL, OP_VOTE, OP_ACTIVEMASK, OP_REDUX = O["shfl"], O["vote"], O["activemask"], O["redux"]
OP_TRAP, OP_MEMBAR, OP_NOP = O["trap"], O["membar"], O["nop"]
FLOAT_ONLY_LO, FLOAT_ONLY_HI = O["sqrt"], O["testp"]   # sqrt .. testp are float-only opcodes
OP_FMA, OP_MAD, OP_BRKPT, OP_NANOSLEEP = O["fma"], O["mad"], O["brkpt"], O["nanosleep"]
OP_ADDC, OP_SUBC, OP_MADC, OP_MATCH = O["addc"], O["subc"], O["madc"], O["match"]
OP_CP, OP_LDMATRIX, OP_STMATRIX, OP_MMA, OP_ELECT = O["cp"], O["ldmatrix"], O["stmatrix"], O["mma"], O["elect"]
OP_MBARRIER, OP_WGMMA, OP_CPBULK = O["mbarrier"], O["wgmma"], O["cpbulk"]
OP_DP4A, OP_DP2A = O["dp4a"], O["dp2a"]
OP_MAPA, OP_GETCTARANK = O["mapa"], O["getctarank"]


@njit(no_cpython_wrapper=True)
def guard_mask(ins, R, i, w, amask):
    """The lanes of `amask` whose guard predicate lets instruction i execute."""
    g = ins[i, oc.F_GUARD]
    if g < 0:
        return amask
    neg = ins[i, oc.F_GNEG]
    m = 0
    for l in range(32):
        if (amask >> l) & 1 and ((R[w, g, l] & 1) != neg):
            m |= 1 << l
    return m


@njit(no_cpython_wrapper=True)
def mem_lanes(M):
    return MemLanes(M.R, M.si, M.sf, M.sregs, M.tr_addr, M.tr_info, M.gmem, M.alo, M.ahi, M.smem, M.lmem, M.cmem,
                    M.pmem, M.wcta, M.err, M.clslot)


@njit(no_cpython_wrapper=True)
def step(P, M, w):
    if M.wstat[w] != W_READY:
        return S_DONE if M.wstat[w] == W_DONE else S_BARRIER
    if settle(M, w) == 0:
        M.wstat[w] = W_DONE
        return S_DONE
    t = M.sp[w] - 1
    pc = M.spc[w, t]
    if defer_barrier(M, w, pc):     # gone on past a barrier: this instruction waits for it
        return S_DEFERRED
    amask = M.smask[w, t] & ~M.exited[w]
    i = pc
    op = P.ins[i, oc.F_OP]
    emask = guard_mask(P.ins, M.R, i, w, amask)
    M.cnt[oc.CNT_WARP_INST] += 1
    na = popc64(amask)
    M.cnt[oc.CNT_THREAD_INST] += na
    M.cnt[oc.CNT_PRED_OFF] += na - popc64(emask)
    M.op_count[op] += 1
    M.pc_warp[pc] += 1
    M.pc_thread[pc] += na
    M.clock[0] += 1
    if M.cnt[oc.CNT_WARP_INST] > M.clock[1]:
        fault(M, oc.E_WATCHDOG, w, 0, pc, 0, 0, 0)
        return S_FAULT
    M.spc[w, t] = pc + 1
    ty = P.ins[i, oc.F_TYPE]
    for slot in range(oc.S0, oc.NSLOT):
        if P.opk[i, slot] == oc.OK_SREG:
            read_sreg(P, M, i, slot, w, amask)
    L = Lanes(M.R, M.si, M.sf, M.sregs)
    if op == OP_BRA:
        M.cnt[oc.CNT_BRANCH] += 1
        if P.ins[i, oc.F_MOD] == 1:
            # a jump to `exit`: taken lanes leave now (as on Volta and later, where exited threads
            # no longer count at barriers) instead of waiting at the exit block for the others
            if emask != 0:
                if emask != amask:
                    M.cnt[oc.CNT_DIVERGENT] += 1
                exit_lanes(M, w, emask)
        elif branch(P, M, i, w, pc, amask, emask):
            M.cnt[oc.CNT_DIVERGENT] += 1
    elif op == OP_LD or op == OP_LDU:
        M.cnt[oc.CNT_LD] += 1
        if M.san.ctl[0] & F_RACE:
            shared_access(P, M, M.san, i, w, emask, pc, A_READ)
        exec_ld(P, mem_lanes(M), i, w, emask, pc)
    elif op == OP_ST:
        M.cnt[oc.CNT_ST] += 1
        if M.san.ctl[0] & F_RACE:
            shared_access(P, M, M.san, i, w, emask, pc, A_WRITE)
        exec_st(P, mem_lanes(M), i, w, emask, pc)
    elif op == OP_SETP:
        exec_setp(P, L, i, w, emask)
    elif op >= OP_CP and op <= OP_ELECT:
        tensor_step(P, M, L, i, w, emask, pc, op)
    elif op == OP_MOV:
        if P.ins[i, oc.F_MOD] == 3:
            exec_mov_halves(P, L, i, w, emask)      # mov.b128
        else:
            exec_mov(P, L, i, w, emask)
    elif op == OP_CVT:
        exec_cvt(P, L, i, w, emask)
    elif op == OP_CVTA:
        exec_cvta(P, L, i, w, emask)
    elif op == OP_SELP or op == OP_SLCT:
        exec_select(P, L, i, w, emask, op == OP_SLCT)
    elif op == OP_BAR:
        M.cnt[oc.CNT_BAR] += 1
        kind = P.ins[i, oc.F_MOD]
        if kind >= oc.BAR_CLUSTER_ARRIVE:
            if emask != 0 and cluster_barrier(M, w, emask, kind == oc.BAR_CLUSTER_WAIT):
                M.spc[w, t] = pc    # released: the cluster's phase completion advances it
                return S_BARRIER
        elif emask != 0:
            M.spc[w, t] = pc        # a released barrier advances the pc of every waiting warp
            if barrier(P, M, i, w, pc, emask):
                return S_BARRIER
    elif op == OP_ATOM or op == OP_RED:
        M.cnt[oc.CNT_ATOM] += 1
        if M.san.ctl[0] & F_RACE:
            shared_access(P, M, M.san, i, w, emask, pc, A_ATOMIC)
        exec_atom(P, mem_lanes(M), i, w, emask, pc, op == OP_ATOM)
    elif op == OP_EXIT or op == OP_RET:
        if emask != 0:
            exit_lanes(M, w, emask)
    elif op == OP_CALL:
        if emask != amask:
            fault(M, oc.E_BADCALL, w, 0, pc, 0, 0, 0)
        else:
            call(P, M, i, w, pc, emask)
    elif op == OP_RETF:
        ret_from_func(P, M, w, pc, amask)
    elif op == OP_SHFL:
        exec_shfl(P, L, i, w, emask)
    elif op == OP_VOTE:
        exec_vote(P, L, i, w, emask)
    elif op == OP_ACTIVEMASK:
        exec_activemask(P, L, i, w, emask)
    elif op == OP_REDUX:
        exec_redux(P, L, i, w, emask)
    elif op == OP_MATCH:
        exec_match(P, L, i, w, emask)
    elif op == OP_MBARRIER:
        exec_mbarrier(P, mem_lanes(M), M.cnt, i, w, emask, pc)
    elif op == OP_WGMMA:
        if P.ins[i, oc.F_CLASS] == oc.C_GMMA:
            M.cnt[oc.CNT_GMMA] += 1
        exec_wgmma(P, mem_lanes(M), i, w, M.wlocal[w], emask, pc, M.mx)
    elif op == OP_CPBULK:
        exec_cpbulk(P, mem_lanes(M), i, w, emask, pc)
    elif op == OP_ADDC or op == OP_SUBC or op == OP_MADC or (P.ins[i, oc.F_FLAGS] & oc.FL_CC) != 0:
        exec_carry(P, L, i, w, emask)
    elif op == OP_SET:
        exec_set(P, L, i, w, emask)
    elif op == OP_DP4A or op == OP_DP2A:
        exec_dot(P, L, i, w, emask, op == OP_DP2A)
    elif op == OP_MAPA:
        exec_mapa(P, M, i, w, emask, pc)
    elif op == OP_GETCTARANK:
        exec_getctarank(P, M, i, w, emask)
    elif op == OP_TRAP:
        if emask != 0:
            fault(M, oc.E_TRAP, w, 0, pc, 0, 0, 0)
    elif op == OP_MEMBAR or op == OP_NOP or op == OP_BRKPT or op == OP_NANOSLEEP:
        if M.san.ctl[0] != 0 and M.san.pcinfo[pc] & PI_SYNCWARP and emask != 0:
            warp_sync(P, M, M.san, i, w, pc, emask)     # bar.warp.sync under a sanitizer
    elif op == OP_FMA or (op >= FLOAT_ONLY_LO and op <= FLOAT_ONLY_HI) or P.tkind[ty] == K_FLOAT:
        if op == OP_MAD and P.tkind[ty] != K_FLOAT:
            exec_int(P, L, i, w, emask)
        else:
            exec_float(P, L, i, w, emask)
    else:
        exec_int(P, L, i, w, emask)
    if M.err[0] != 0:
        return S_FAULT
    if M.wstat[w] == W_DONE:
        return S_DONE
    return S_ISSUED


@njit(no_cpython_wrapper=True)
def tensor_step(P, M, L, i, w, emask, pc, op):
    """cp.async, ldmatrix, stmatrix, mma, elect (asynccopy.py, matrixops.py, mma.py, warpops.py)."""
    if op == OP_CP:
        if P.ins[i, oc.F_MOD] == oc.CP_COPY:
            M.cnt[oc.CNT_LDGSTS] += 1
        exec_cp_async(P, mem_lanes(M), i, w, emask, pc)
    elif op == OP_LDMATRIX:
        M.cnt[oc.CNT_LDSM] += 1
        exec_ldmatrix(P, mem_lanes(M), i, w, emask, pc)
    elif op == OP_STMATRIX:
        M.cnt[oc.CNT_STSM] += 1
        exec_stmatrix(P, mem_lanes(M), i, w, emask, pc)
    elif op == OP_MMA:
        aty = P.ins[i, oc.F_TYPE2]
        if aty == T_F64:
            M.cnt[oc.CNT_DMMA] += 1
        elif P.tkind[aty] != K_FLOAT:
            M.cnt[oc.CNT_IMMA] += 1
        else:
            M.cnt[oc.CNT_HMMA] += 1
        exec_mma(P, L, M.mx, i, w, emask)
    else:
        exec_elect(P, L, i, w, emask)


@njit(no_cpython_wrapper=True)
def init_warp(M, w, c, wlocal, nthreads):
    """Place warp `wlocal` of the CTA in CTA slot c into warp slot w."""
    first = wlocal * 32
    n = min(32, nthreads - first)
    mask = (1 << n) - 1
    M.valid[w] = mask
    M.exited[w] = 0
    M.wstat[w] = W_READY
    M.wcta[w] = c
    M.wlocal[w] = wlocal
    M.sp[w] = 1
    M.spc[w, 0] = 0
    M.srpc[w, 0] = -1
    M.smask[w, 0] = mask
    M.sdepth[w, 0] = 0
    M.csp[w] = 0
    M.csb[w] = 0
    for r in range(M.R.shape[1]):
        for l in range(32):
            M.R[w, r, l] = 0


@njit(no_cpython_wrapper=True)
def init_cta(M, c, cx, cy, cz, sm, nthreads, nwarps):
    M.cta_id[c, 0] = cx
    M.cta_id[c, 1] = cy
    M.cta_id[c, 2] = cz
    M.cta_sm[c] = sm
    M.cta_live[c] = nthreads
    M.cta_nwarps[c] = nwarps
    for b in range(M.bar_arrived.shape[1]):
        M.bar_arrived[c, b] = 0
        M.bar_expect[c, b] = 0
        M.bar_red[c, b] = 0
    M.smem[c, :] = 0
    if M.san.ctl[0] != 0:
        new_cta(M.san, c)


@njit(no_cpython_wrapper=True, inline="always")
def run_warp(P, M, w, quantum):
    """Run warp slot w for up to `quantum` instructions or until it blocks; (last result, issued any)."""
    issued = False
    r = S_ISSUED
    for _ in range(quantum):
        r = step(P, M, w)
        if r != S_ISSUED:
            break
        issued = True
    return r, issued


@njit(no_cpython_wrapper=True)
def place_cluster(M, q, first_slot, nthreads, nwarps):
    """Initialise the CTAs of cluster q (linear, x fastest over the grid of clusters) in CTA slots
    first_slot.., rank r in slot first_slot + r, its warps in warp slots (slot * nwarps).., and link
    the slots (Mach.clslot). Without clusters (1 x 1 x 1) cluster q is CTA q."""
    clx, cly, clz = M.geom[G_CLX], M.geom[G_CLY], M.geom[G_CLZ]
    qx_n, qy_n = M.geom[3] // clx, M.geom[4] // cly
    qx, qy, qz = q % qx_n, (q // qx_n) % qy_n, q // (qx_n * qy_n)
    n = clx * cly * clz
    for r in range(n):
        c = first_slot + r
        cx = qx * clx + r % clx
        cy = qy * cly + (r // clx) % cly
        cz = qz * clz + r // (clx * cly)
        init_cta(M, c, cx, cy, cz, (cx + M.geom[3] * (cy + M.geom[4] * cz)) % M.geom[6], nthreads, nwarps)
        for k in range(n):
            M.clslot[c, k] = first_slot + k
        M.clslot[c, CL_SIZE] = n
        M.clslot[c, CL_RANK] = r
        for wl in range(nwarps):
            init_warp(M, c * nwarps + wl, c, wl, nthreads)
    return n


@njit
def run_grid(P, M, first, last, quantum):
    """Functional mode: run clusters [first, last) one after another (without clusters, a cluster is
    one CTA), the CTAs of a cluster resident together in slots 0.. .

    Warps of a cluster take turns, each running up to `quantum` instructions or until it waits at a
    barrier or finishes. Returns 0, or S_FAULT with M.err describing the fault (a cluster whose live
    warps all wait at a barrier that cannot complete is a deadlock).
    """
    nthreads = M.geom[0] * M.geom[1] * M.geom[2]
    nwarps = (nthreads + 31) // 32
    for q in range(first, last):
        W = place_cluster(M, q, 0, nthreads, nwarps) * nwarps
        while True:
            progress = False
            alive = False
            for w in range(W):
                if M.wstat[w] == W_DONE:
                    continue
                alive = True
                r, issued = run_warp(P, M, w, quantum)
                if r == S_FAULT:
                    return S_FAULT
                if issued:
                    progress = True
                if M.wstat[w] == W_READY:
                    progress = True
            if not alive:
                break
            if not progress:
                all_done = True
                for w in range(W):
                    if M.wstat[w] != W_DONE:
                        all_done = False
                if all_done:
                    break
                fault(M, oc.E_DEADLOCK, 0, 0, M.spc[0, max(M.sp[0] - 1, 0)], 0, 0, 0)
                _deadlock_site(M, W)
                return S_FAULT
    return 0


@njit
def run_grid_together(P, M, total, quantum):
    """Functional mode, cooperative launch: every CTA resident at once (CTA c in slot c), warps of
    the whole grid taking turns, so CTAs can wait for one another (grid sync). Returns as run_grid."""
    ncx, ncy = M.geom[3], M.geom[4]
    nthreads = M.geom[0] * M.geom[1] * M.geom[2]
    nwarps = (nthreads + 31) // 32
    for cta in range(total):
        init_cta(M, cta, cta % ncx, (cta // ncx) % ncy, cta // (ncx * ncy), cta % M.geom[6], nthreads, nwarps)
        for wl in range(nwarps):
            init_warp(M, cta * nwarps + wl, cta, wl, nthreads)
    W = total * nwarps
    while True:
        progress = False
        alive = False
        for w in range(W):
            if M.wstat[w] == W_DONE:
                continue
            alive = True
            r, issued = run_warp(P, M, w, quantum)
            if r == S_FAULT:
                return S_FAULT
            if issued or M.wstat[w] == W_READY:
                progress = True
        if not alive:
            return 0
        if not progress:
            for w in range(W):
                if M.wstat[w] == W_BARRIER:
                    c = M.wcta[w]
                    fault(M, oc.E_DEADLOCK, w, 0, M.spc[w, M.sp[w] - 1], M.bar_arrived[c, M.wbar[w]],
                          M.cta_live[c], 0)
                    return S_FAULT
            return 0


@njit(no_cpython_wrapper=True)
def _deadlock_site(M, nwarps):
    for w in range(nwarps):
        if M.wstat[w] == W_BARRIER:
            c = M.wcta[w]
            M.err[oc.EW_WARP] = w
            M.err[oc.EW_PC] = M.spc[w, M.sp[w] - 1]
            M.err[oc.EW_ADDR] = M.bar_arrived[c, M.wbar[w]]
            M.err[oc.EW_SIZE] = M.cta_live[c]
            M.err[oc.EW_CTA] = c
            return
