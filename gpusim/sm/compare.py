"""setp / set / selp / slct / mov / cvta over the active lanes of a warp (numba). setp compares f16 / bf16
(and each half of f16x2 / bf16x2) exactly as their float values; .ftz flushes subnormal inputs."""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import ftz32, zext
from gpusim.isa.spaces import CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE
from gpusim.isa.types import K_FLOAT, K_UINT, T_BF16, T_BF16X2, T_F16, T_F16X2, T_F32
from gpusim.jit import njit
from gpusim.sm.alu_half import half_value
from gpusim.sm.alu_int import ult
from gpusim.sm.operands import bits, fval, ival, put, put_int


@njit
def cmp_int(c, a, b, unsigned64):
    if c == 0:
        return a == b
    if c == 1:
        return a != b
    if c >= 6 and c <= 9 or unsigned64:
        lt = ult(a, b) if unsigned64 else a < b
        gt = ult(b, a) if unsigned64 else a > b
        if c == 6 or c == 2:
            return lt
        if c == 7 or c == 3:
            return not gt
        if c == 8 or c == 4:
            return gt
        return not lt
    if c == 2:
        return a < b
    if c == 3:
        return a <= b
    if c == 4:
        return a > b
    if c == 5:
        return a >= b
    return False


@njit
def cmp_float(c, a, b):
    unord = np.isnan(a) or np.isnan(b)
    if c == 16:
        return not unord
    if c == 17:
        return unord
    if c >= 10:
        if unord:
            return True
        c -= 10
    elif unord:
        return False
    if c == 0:
        return a == b
    if c == 1:
        return a != b
    if c == 2 or c == 6:
        return a < b
    if c == 3 or c == 7:
        return a <= b
    if c == 4 or c == 8:
        return a > b
    return a >= b


@njit(no_cpython_wrapper=True, inline="always")
def compare(P, M, i, w, l, ty):
    c = P.ins[i, oc.F_MOD]
    ftz = (P.ins[i, oc.F_FLAGS] & oc.FL_FTZ) != 0
    if ty == T_F16 or ty == T_BF16:
        bf = ty == T_BF16
        return cmp_float(c, half_value(bits(P, M, i, oc.S0, w, l), bf, ftz),
                         half_value(bits(P, M, i, oc.S0 + 1, w, l), bf, ftz))
    if P.tkind[ty] == K_FLOAT:
        a = fval(P, M, i, oc.S0, w, l, ty)
        b = fval(P, M, i, oc.S0 + 1, w, l, ty)
        if ftz and ty == T_F32:
            a, b = np.float64(ftz32(np.float32(a))), np.float64(ftz32(np.float32(b)))
        return cmp_float(c, a, b)
    a = ival(P, M, i, oc.S0, w, l, ty)
    b = ival(P, M, i, oc.S0 + 1, w, l, ty)
    return cmp_int(c, a, b, P.tkind[ty] == K_UINT and P.tsize[ty] == 8 or (c >= 6 and c <= 9 and
                                                                           P.tsize[ty] == 8))


@njit
def _combine(op, r, c):
    if op == 1:
        return r and c
    if op == 2:
        return r or c
    return r != c


@njit
def _half_pair(P, M, i, w, l, bf, ftz):
    """The low-half and high-half comparisons of an f16x2 / bf16x2 setp or set, each combined with c."""
    c = P.ins[i, oc.F_MOD]
    comb = P.ins[i, oc.F_MOD2]
    a = bits(P, M, i, oc.S0, w, l)
    b = bits(P, M, i, oc.S0 + 1, w, l)
    lo = cmp_float(c, half_value(a, bf, ftz), half_value(b, bf, ftz))
    hi = cmp_float(c, half_value(a >> 16, bf, ftz), half_value(b >> 16, bf, ftz))
    if comb != 0:
        x = (bits(P, M, i, oc.S0 + 2, w, l) & 1) != 0
        lo = _combine(comb, lo, x)
        hi = _combine(comb, hi, x)
    return lo, hi


@njit(no_cpython_wrapper=True)
def _setp_pair(P, M, i, w, mask, bf):
    """setp.f16x2 / .bf16x2 p|q, a, b{, c}: p from the low halves, q from the high halves."""
    ftz = (P.ins[i, oc.F_FLAGS] & oc.FL_FTZ) != 0
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        lo, hi = _half_pair(P, M, i, w, l, bf, ftz)
        put(P, M, i, oc.D0, w, l, 1 if lo else 0)
        put(P, M, i, oc.D0 + 1, w, l, 1 if hi else 0)


@njit(no_cpython_wrapper=True)
def exec_setp(P, M, i, w, mask):
    ty = P.ins[i, oc.F_TYPE]
    comb = P.ins[i, oc.F_MOD2]
    ndst = P.ins[i, oc.F_NDST]
    if ty == T_F16X2 or ty == T_BF16X2:
        _setp_pair(P, M, i, w, mask, ty == T_BF16X2)
        return
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        r = compare(P, M, i, w, l, ty)
        q = not r
        if comb != 0:
            c = (bits(P, M, i, oc.S0 + 2, w, l) & 1) != 0
            r = _combine(comb, r, c)
            q = _combine(comb, q, c)
        put(P, M, i, oc.D0, w, l, 1 if r else 0)
        if ndst > 1:
            put(P, M, i, oc.D0 + 1, w, l, 1 if q else 0)


@njit
def _half_true(dty):
    """1.0 in a half type's bits (f16 0x3C00, bf16 0x3F80); all ones of 16 bits for an integer type."""
    if dty == T_F16 or dty == T_F16X2:
        return 0x3C00
    if dty == T_BF16 or dty == T_BF16X2:
        return 0x3F80
    return 0xFFFF


@njit(no_cpython_wrapper=True)
def _set_pair(P, M, i, w, mask, bf, dty):
    """set.CmpOp.dtype.f16x2 / .bf16x2 d, a, b{, c}: each half of d from the halves of a and b."""
    ftz = (P.ins[i, oc.F_FLAGS] & oc.FL_FTZ) != 0
    t = _half_true(dty)
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        lo, hi = _half_pair(P, M, i, w, l, bf, ftz)
        put(P, M, i, oc.D0, w, l, (t if lo else 0) | ((t if hi else 0) << 16))


@njit(no_cpython_wrapper=True)
def exec_set(P, M, i, w, mask):
    """set.CmpOp.dtype.stype d, a, b: all ones (or 1.0f) when true."""
    dty = P.ins[i, oc.F_TYPE]
    sty = P.ins[i, oc.F_TYPE2]
    comb = P.ins[i, oc.F_MOD2]
    if sty == T_F16X2 or sty == T_BF16X2:
        _set_pair(P, M, i, w, mask, sty == T_BF16X2, dty)
        return
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        r = compare(P, M, i, w, l, sty)
        if comb != 0:
            r = _combine(comb, r, (bits(P, M, i, oc.S0 + 2, w, l) & 1) != 0)
        if dty == T_F16 or dty == T_BF16:
            put(P, M, i, oc.D0, w, l, _half_true(dty) if r else 0)
        elif P.tkind[dty] == K_FLOAT:
            put(P, M, i, oc.D0, w, l, 0x3F800000 if r else 0)
        else:
            put_int(P, M, i, oc.D0, w, l, -1 if r else 0, dty)


@njit(no_cpython_wrapper=True)
def exec_select(P, M, i, w, mask, is_slct):
    ty = P.ins[i, oc.F_TYPE]
    cty = P.ins[i, oc.F_TYPE2]
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        if is_slct:
            if P.tkind[cty] == K_FLOAT:
                take_a = fval(P, M, i, oc.S0 + 2, w, l, cty) >= 0.0
            else:
                take_a = ival(P, M, i, oc.S0 + 2, w, l, cty) >= 0
        else:
            take_a = (bits(P, M, i, oc.S0 + 2, w, l) & 1) != 0
        v = bits(P, M, i, oc.S0 if take_a else oc.S0 + 1, w, l)
        put(P, M, i, oc.D0, w, l, zext(v, P.tsize[ty]) if P.tsize[ty] < 8 else v)


@njit(no_cpython_wrapper=True)
def exec_mov(P, M, i, w, mask):
    ty = P.ins[i, oc.F_TYPE]
    mode = P.ins[i, oc.F_MOD]
    n = P.tsize[ty]
    nv = P.ins[i, oc.F_VEC]
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        if mode == 1:       # unpack {a, b, ...} <- x
            v = bits(P, M, i, oc.S0, w, l)
            ew = n // nv
            for k in range(nv):
                put(P, M, i, oc.D0 + k, w, l, zext(v >> (8 * ew * k), ew))
        elif mode == 2:     # pack x <- {a, b, ...}
            ew = n // P.ins[i, oc.F_NSRC]
            v = np.int64(0)
            for k in range(P.ins[i, oc.F_NSRC]):
                v |= zext(bits(P, M, i, oc.S0 + k, w, l), ew) << (8 * ew * k)
            put(P, M, i, oc.D0, w, l, v)
        else:
            v = bits(P, M, i, oc.S0, w, l)
            put(P, M, i, oc.D0, w, l, zext(v, n) if n < 8 else v)


@njit(no_cpython_wrapper=True)
def exec_cvta(P, M, i, w, mask):
    space = P.ins[i, oc.F_SPACE]
    to = P.ins[i, oc.F_MOD] == 1
    base = np.int64(0)
    if space == oc.SP_SHARED:
        base = SHARED_WINDOW
    elif space == oc.SP_LOCAL:
        base = LOCAL_WINDOW
    elif space == oc.SP_CONST:
        base = CONST_WINDOW
    elif space == oc.SP_PARAM:
        base = PARAM_WINDOW
    ty = P.ins[i, oc.F_TYPE]
    if P.ins[i, oc.F_MOD] == 2:         # isspacep: is the generic address in the space's window?
        for l in range(32):
            if (mask >> l) & 1:
                v = bits(P, M, i, oc.S0, w, l)
                if space == oc.SP_GLOBAL:
                    inside = not (SHARED_WINDOW <= v < SHARED_WINDOW + WINDOW_SIZE
                                  or LOCAL_WINDOW <= v < LOCAL_WINDOW + WINDOW_SIZE
                                  or CONST_WINDOW <= v < CONST_WINDOW + WINDOW_SIZE
                                  or PARAM_WINDOW <= v < PARAM_WINDOW + WINDOW_SIZE)
                else:
                    inside = base <= v < base + WINDOW_SIZE
                put(P, M, i, oc.D0, w, l, 1 if inside else 0)
        return
    for l in range(32):
        if (mask >> l) & 1:
            v = bits(P, M, i, oc.S0, w, l)
            put_int(P, M, i, oc.D0, w, l, v - base if to else v + base, ty)
