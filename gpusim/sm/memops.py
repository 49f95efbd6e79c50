"""ld / st / atom / red for the active lanes of a warp (numba). Atomics run lane by lane in order,
so they serialise exactly as the hardware guarantees (each lane's read-modify-write is indivisible)."""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import bits_of_f32, bits_of_f64, f32_of, f64_of, sext, zext
from gpusim.isa.types import K_FLOAT, K_SINT, T_F32
from gpusim.jit import njit
from gpusim.memory.access import fault, load, locate, store
from gpusim.sm.operands import bits, put
from gpusim.sm.state import TI_ATOM, TI_MASK, TI_NVEC, TI_PAST_L1, TI_SIZE, TI_SPACE, TI_STORE


@njit(no_cpython_wrapper=True, inline="always")
def address(P, M, i, s, w, l):
    base = P.opv[i, s]
    a = P.opo[i, s]
    if P.opk[i, s] == oc.OK_ADDR:
        if base >= 0:
            a += M.R[w, base, l]
    else:
        a = bits(P, M, i, s, w, l)
    return a


@njit(no_cpython_wrapper=True)
def _trace(M, sp, size, mask, is_store, nvec, atom):
    M.tr_info[TI_SPACE] = sp
    M.tr_info[TI_SIZE] = size
    M.tr_info[TI_MASK] = mask
    M.tr_info[TI_STORE] = is_store
    M.tr_info[TI_NVEC] = nvec
    M.tr_info[TI_ATOM] = atom
    M.tr_info[TI_PAST_L1] = 0


@njit(no_cpython_wrapper=True)
def exec_ld(P, M, i, w, mask, pc):
    ty = P.ins[i, oc.F_TYPE]
    size = P.tsize[ty]
    nv = P.ins[i, oc.F_VEC]
    space = P.ins[i, oc.F_SPACE]
    signed = P.tkind[ty] == K_SINT
    rsp = space
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        a = address(P, M, i, oc.S0, w, l)
        sp, off = locate(M, space, a, size * nv, w, l, pc)
        if sp < 0:
            return
        rsp = sp
        M.tr_addr[l] = off
        for k in range(nv):
            v = load(M, sp, off + k * size, size, w, l)
            if signed:
                v = sext(v, size)
            put(P, M, i, oc.D0 + k, w, l, v)
    _trace(M, rsp, size * nv, mask, 0, nv, 0)
    if P.ins[i, oc.F_FLAGS] & oc.FL_L2ONLY and rsp == oc.SP_GLOBAL:
        M.tr_info[TI_PAST_L1] = 1        # ld.global.cg / .cv: cached in the L2 only (gpusim/sm/lsu.py)


@njit(no_cpython_wrapper=True)
def exec_st(P, M, i, w, mask, pc):
    ty = P.ins[i, oc.F_TYPE]
    size = P.tsize[ty]
    nv = P.ins[i, oc.F_VEC]
    space = P.ins[i, oc.F_SPACE]
    rsp = space
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        a = address(P, M, i, oc.S0, w, l)
        sp, off = locate(M, space, a, size * nv, w, l, pc)
        if sp < 0:
            return
        if sp == oc.SP_CONST or sp == oc.SP_PARAM and space != oc.SP_PARAM:
            fault(M, oc.E_OOB, w, l, pc, a, size, sp)
            return
        rsp = sp
        M.tr_addr[l] = off
        for k in range(nv):
            if P.opk[i, oc.S0 + 1 + k] == oc.OK_SINK:
                continue
            store(M, sp, off + k * size, size, w, l, bits(P, M, i, oc.S0 + 1 + k, w, l))
    _trace(M, rsp, size * nv, mask, 1, nv, 0)


@njit
def atom_apply(op, ty, kind, size, old, b, c):
    """New memory value for atomic op on `old` with operands b (and c for cas)."""
    if op == oc.A_EXCH:
        return b
    if op == oc.A_CAS:
        return c if zext(old, size) == zext(b, size) else old
    if op == oc.A_AND:
        return old & b
    if op == oc.A_OR:
        return old | b
    if op == oc.A_XOR:
        return old ^ b
    if kind == K_FLOAT:
        if ty == T_F32:
            x, y = np.float64(f32_of(old)), np.float64(f32_of(b))
        else:
            x, y = f64_of(old), f64_of(b)
        if op == oc.A_ADD:
            r = x + y
        elif op == oc.A_MIN:
            r = y if np.isnan(x) else (x if np.isnan(y) else min(x, y))
        else:
            r = y if np.isnan(x) else (x if np.isnan(y) else max(x, y))
        return bits_of_f32(r) if ty == T_F32 else bits_of_f64(r)
    if kind == K_SINT:
        x, y = sext(old, size), sext(b, size)
    else:
        x, y = zext(old, size), zext(b, size)
    if op == oc.A_ADD:
        return x + y
    if op == oc.A_INC:
        return 0 if (np.uint64(x) >= np.uint64(y)) else x + 1
    if op == oc.A_DEC:
        return y if (x == 0 or np.uint64(x) > np.uint64(y)) else x - 1
    less = (np.uint64(x) < np.uint64(y)) if (kind != K_SINT and size == 8) else x < y
    if op == oc.A_MIN:
        return x if less else y
    return y if less else x


@njit(no_cpython_wrapper=True)
def exec_atom(P, M, i, w, mask, pc, has_dst):
    ty = P.ins[i, oc.F_TYPE]
    size = P.tsize[ty]
    kind = P.tkind[ty]
    op = P.ins[i, oc.F_MOD]
    space = P.ins[i, oc.F_SPACE]
    rsp = space
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        a = address(P, M, i, oc.S0, w, l)
        sp, off = locate(M, space, a, size, w, l, pc)
        if sp < 0:
            return
        rsp = sp
        M.tr_addr[l] = off
        old = load(M, sp, off, size, w, l)
        b = bits(P, M, i, oc.S0 + 1, w, l)
        c = bits(P, M, i, oc.S0 + 2, w, l) if op == oc.A_CAS else np.int64(0)
        store(M, sp, off, size, w, l, atom_apply(op, ty, kind, size, old, b, c))
        if has_dst:
            put(P, M, i, oc.D0, w, l, sext(old, size) if kind == K_SINT else zext(old, size))
    # an add of the constant 1 to shared memory is ATOMS.POPC.INC on sm_90 (read in the SASS of the
    # smem_atomic cases): the lanes on one word are combined into one update (TI_ATOM 2)
    inc = (op == oc.A_ADD and space == oc.SP_SHARED and kind != K_FLOAT and P.opk[i, oc.S0 + 1] == oc.OK_IMM
           and P.opv[i, oc.S0 + 1] == 1)
    _trace(M, rsp, size, mask, 1, 1, 2 if inc else 1)


