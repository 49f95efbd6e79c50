"""Floating-point instructions (f32 and f64; f16 / bf16 in alu_half.py) over the active lanes of a warp (numba).

f32 arithmetic is computed in float64 and rounded once to float32, which is exact for add, sub,
mul, div and sqrt (53 >= 2*24 + 2); fma uses LLVM's fused intrinsic; .approx functions are
computed in double precision, well within PTX's stated error bounds. .ftz flushes f32 subnormal
inputs and results; .sat clamps to [0, 1] (NaN -> 0).
"""
from __future__ import annotations

import math

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import bits_of_f32, bits_of_f64, fma32, fma64, ftz32, round_f32, round_integral
from gpusim.isa.rounding import round_f32_dd, round_f64_dd, two_prod, two_sum
from gpusim.isa.types import T_BF16, T_BF16X2, T_F16, T_F16X2, T_F32, T_F64
from gpusim.jit import njit
from gpusim.sm.alu_half import exec_half
from gpusim.sm.operands import bits, fval, put

OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA = oc.OP["add"], oc.OP["sub"], oc.OP["mul"], oc.OP["mad"], oc.OP["fma"]
OP_DIV, OP_ABS, OP_NEG, OP_MIN, OP_MAX = oc.OP["div"], oc.OP["abs"], oc.OP["neg"], oc.OP["min"], oc.OP["max"]
OP_SQRT, OP_RCP, OP_RSQRT, OP_EX2, OP_LG2 = oc.OP["sqrt"], oc.OP["rcp"], oc.OP["rsqrt"], oc.OP["ex2"], oc.OP["lg2"]
OP_SIN, OP_COS, OP_TANH, OP_COPYSIGN = oc.OP["sin"], oc.OP["cos"], oc.OP["tanh"], oc.OP["copysign"]
OP_TESTP = oc.OP["testp"]
CANON_NAN32 = 0x7FFFFFFF


@njit(no_cpython_wrapper=True)
def gatherf(P, M, i, s, w, mask, ty, row, ftz):
    for l in range(32):
        if (mask >> l) & 1:
            v = fval(P, M, i, s, w, l, ty)
            if ftz and ty == T_F32:
                v = np.float64(ftz32(np.float32(v)))
            M.sf[row, l] = v


@njit(no_cpython_wrapper=True, inline="always")
def store_f(P, M, i, w, l, v, ty, rnd, ftz, sat):
    if sat:
        v = 0.0 if np.isnan(v) else min(max(v, 0.0), 1.0)
    if ty == T_F64:
        put(P, M, i, oc.D0, w, l, bits_of_f64(v))
        return
    r = round_f32(v, rnd) if rnd <= 3 else np.float32(v)
    if ftz:
        r = ftz32(r)
    put(P, M, i, oc.D0, w, l, bits_of_f32(r))


@njit
def _fmin(a, b, is_max):
    if np.isnan(a):
        return b
    if np.isnan(b):
        return a
    if a == b == 0.0:
        # -0 < +0 for min/max purposes
        sa, sb = math.copysign(1.0, a), math.copysign(1.0, b)
        if is_max:
            return a if sa > sb else b
        return a if sa < sb else b
    if is_max:
        return a if a > b else b
    return a if a < b else b


@njit(no_cpython_wrapper=True)
def exec_float(P, M, i, w, mask):
    op = P.ins[i, oc.F_OP]
    ty = P.ins[i, oc.F_TYPE]
    fl = P.ins[i, oc.F_FLAGS]
    rnd = P.ins[i, oc.F_MOD2]
    ftz = (fl & oc.FL_FTZ) != 0
    sat = (fl & oc.FL_SAT) != 0
    nsrc = P.ins[i, oc.F_NSRC]
    A, B, C = M.sf[0], M.sf[1], M.sf[2]
    if ty == T_F16 or ty == T_BF16 or ty == T_F16X2 or ty == T_BF16X2:
        exec_half(P, M, i, w, mask)     # decode admits only the half ops alu_half implements
        return
    if op == OP_ABS or op == OP_NEG or op == OP_COPYSIGN:
        _sign_ops(P, M, i, w, mask, op, ty, ftz)
        return
    if op == OP_TESTP:
        _testp(P, M, i, w, mask, ty)
        return
    gatherf(P, M, i, oc.S0, w, mask, ty, 0, ftz)
    if nsrc > 1:
        gatherf(P, M, i, oc.S0 + 1, w, mask, ty, 1, ftz)
    if nsrc > 2:
        gatherf(P, M, i, oc.S0 + 2, w, mask, ty, 2, ftz)
    f32 = ty == T_F32
    nan_prop = (fl & oc.FL_NAN) != 0
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        a = A[l]
        if op == OP_ADD or op == OP_SUB or op == OP_MUL or op == OP_FMA or op == OP_MAD:
            _arith(P, M, i, w, l, op, a, B[l], C[l], f32, rnd if rnd <= 3 else 0, ftz, sat, ty)
            continue
        if op == OP_DIV:
            v = a / B[l] if B[l] != 0.0 else (np.nan if a == 0.0 or np.isnan(a) else math.copysign(
                np.inf, a) * math.copysign(1.0, B[l]))
        elif op == OP_MIN or op == OP_MAX:
            v = _fmin(a, B[l], op == OP_MAX)
            if nan_prop and (np.isnan(a) or np.isnan(B[l])):
                v = np.nan
            if np.isnan(v) and f32:
                put(P, M, i, oc.D0, w, l, CANON_NAN32)
                continue
        elif op == OP_SQRT:
            v = math.sqrt(a) if a >= 0.0 else (a if a == 0.0 else np.nan)
        elif op == OP_RCP:
            v = 1.0 / a if a != 0.0 else math.copysign(np.inf, a)
        elif op == OP_RSQRT:
            v = 1.0 / math.sqrt(a) if a > 0.0 else (math.copysign(np.inf, a) if a == 0.0 else np.nan)
        elif op == OP_EX2:
            v = a if np.isnan(a) else (2.0 ** a if a < 1024.0 else np.inf)
        elif op == OP_LG2:
            v = math.log2(a) if a > 0.0 else (-np.inf if a == 0.0 else np.nan)
        elif op == OP_SIN:
            v = math.sin(a) if not np.isinf(a) else np.nan
        elif op == OP_COS:
            v = math.cos(a) if not np.isinf(a) else np.nan
        elif op == OP_TANH:
            v = math.tanh(a)
        else:
            v = a
        if f32 and (op == OP_SQRT or op == OP_RCP or op == OP_DIV) and rnd == 0:
            store_f(P, M, i, w, l, v, ty, 0, ftz, sat)
        else:
            store_f(P, M, i, w, l, v, ty, rnd if rnd <= 3 else 0, ftz, sat)


@njit(no_cpython_wrapper=True, inline="always")
def _arith(P, M, i, w, l, op, a, b, c, f32, rnd, ftz, sat, ty):
    """add/sub/mul/fma, exact to a double-double s + e, then rounded once in mode rnd."""
    if op == OP_SUB:
        b = -b
    if f32 and rnd == 0:
        # fast path: an f32 op computed in double and rounded to f32 is correctly rounded for
        # + - * (53 >= 2*24 + 2); fma uses the fused intrinsic (one rounding)
        if op == OP_ADD or op == OP_SUB:
            v = np.float32(a + b)
        elif op == OP_MUL:
            v = np.float32(a * b)
        else:
            v = fma32(a, b, c)
        store_f(P, M, i, w, l, np.float64(v), ty, 0, ftz, sat)
        return
    if op == OP_ADD or op == OP_SUB:
        s, e = two_sum(a, b)
        x, y = a, b
    elif op == OP_MUL:
        if f32:
            s, e = a * b, 0.0          # exact: 24 x 24 bits fit in a double
        else:
            s, e = two_prod(a, b)
        x, y = s, 0.0
    else:
        if f32:
            x, y = a * b, c
            s, e = two_sum(x, y)
        else:
            s = fma64(a, b, c)
            e = fma64(a, b, -s) + c
            x, y = a * b, c
    if s == 0.0 and e == 0.0 and op != OP_MUL:
        # an exact zero sum is -0 in rm, +0 otherwise, unless both addends are -0
        both_neg = math.copysign(1.0, x) < 0 and math.copysign(1.0, y) < 0
        s = -0.0 if (rnd == 2 or both_neg) else 0.0
    if f32:
        r = round_f32_dd(s, e, rnd)
        if s == 0.0:
            r = np.float32(s)
        store_f(P, M, i, w, l, np.float64(r), ty, 0, ftz, sat)
    else:
        store_f(P, M, i, w, l, round_f64_dd(s, e, rnd), ty, 0, ftz, sat)


@njit(no_cpython_wrapper=True)
def _sign_ops(P, M, i, w, mask, op, ty, ftz):
    sign = np.int64(1) << (63 if ty == T_F64 else 31)
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        a = bits(P, M, i, oc.S0, w, l)
        if ty != T_F64:
            a &= 0xFFFFFFFF
            if ftz:
                a = bits_of_f32(ftz32(np.uint32(a).view(np.float32)))
        if op == OP_ABS:
            r = a & ~sign
        elif op == OP_NEG:
            r = a ^ sign
        else:   # copysign d, a, b: magnitude of b, sign of a
            b = bits(P, M, i, oc.S0 + 1, w, l)
            if ty != T_F64:
                b &= 0xFFFFFFFF
            r = (b & ~sign) | (a & sign)
        put(P, M, i, oc.D0, w, l, r)


@njit(no_cpython_wrapper=True)
def _testp(P, M, i, w, mask, ty):
    kind = P.ins[i, oc.F_MOD]
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        v = fval(P, M, i, oc.S0, w, l, ty)
        if kind == 0:
            r = np.isfinite(v)
        elif kind == 1:
            r = np.isinf(v)
        elif kind == 2:
            r = not np.isnan(v)
        elif kind == 3:
            r = np.isnan(v)
        else:
            tiny = 1.1754943508222875e-38 if ty == T_F32 else 2.2250738585072014e-308
            normal = np.isfinite(v) and (abs(v) >= tiny or v == 0.0)    # PTX counts zeros as normal
            sub = v != 0.0 and abs(v) < tiny
            r = normal if kind == 4 else sub
        put(P, M, i, oc.D0, w, l, 1 if r else 0)


@njit
def integral(v, rnd):
    return round_integral(v, rnd)
