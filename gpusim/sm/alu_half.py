"""Half-precision arithmetic: f16 / bf16 and the packed f16x2 / bf16x2 forms (numba).

add, sub, mul and fma are computed exactly in double precision (operands widen exactly; a product of
two halves has at most 22 significant bits; a sum is kept exact as s + e with TwoSum) and rounded
once to the half format, nearest even: s is rounded to odd at double precision using the sign of e,
then to odd at single precision, then to nearest even in the half format, which equals one correct
rounding of s + e because each step keeps at least two more bits than the next. NaN results are the
canonical NaN 0x7FFF. .ftz flushes f16 subnormal inputs and results to a zero of the same sign;
.sat clamps to [+0, 1] (NaN -> +0); .relu (fma) clamps negatives to +0 (NaN stays NaN). neg / abs
flip or clear the sign bit; min / max return one operand (a NaN operand yields the other, .NaN
yields the canonical NaN; -0 < +0). Packed forms apply the same operation to each 16-bit half.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import bf16_to_f32, bits_of_f64, f16_to_f32
from gpusim.isa.rounding import to_bf16, to_f16, two_sum
from gpusim.isa.types import T_BF16, T_BF16X2, T_F16X2
from gpusim.jit import njit
from gpusim.sm.operands import bits, put

OP_ADD, OP_SUB, OP_MUL, OP_FMA = oc.OP["add"], oc.OP["sub"], oc.OP["mul"], oc.OP["fma"]
OP_ABS, OP_NEG, OP_MIN, OP_MAX = oc.OP["abs"], oc.OP["neg"], oc.OP["min"], oc.OP["max"]
CANON_NAN16 = 0x7FFF


@njit
def is_sub16(h, bf):
    if bf:
        return (h & 0x7F80) == 0 and (h & 0x7F) != 0
    return (h & 0x7C00) == 0 and (h & 0x3FF) != 0


@njit
def half_value(h, bf, ftz):
    """16 bits of an f16 (or bf16) as an exact float64; .ftz flushes a subnormal to a signed zero."""
    h = np.int64(h) & 0xFFFF
    if ftz and is_sub16(h, bf):
        h &= 0x8000
    if bf:
        return np.float64(bf16_to_f32(h))
    return np.float64(f16_to_f32(h))


@njit
def round16(s, e, bf):
    """The exact value s + e (s = s + e rounded to nearest in double) to half bits, nearest even."""
    if e != 0.0 and np.isfinite(s) and (bits_of_f64(s) & 1) == 0:
        s = np.nextafter(s, np.inf if e > 0.0 else -np.inf)     # round to odd at double precision
    if bf:
        return np.int64(to_bf16(s, 0))
    return np.int64(to_f16(s, 0))


@njit
def _finish(s, e, bf, ftz, sat, relu):
    if np.isnan(s):
        return np.int64(0) if sat else np.int64(CANON_NAN16)
    if sat or relu:
        if s < 0.0 or s == 0.0:
            s, e = 0.0, 0.0          # negatives and -0 clamp to +0
        elif sat and (s > 1.0 or s == 1.0 and e > 0.0):
            s, e = 1.0, 0.0
    h = round16(s, e, bf)
    if ftz and is_sub16(h, bf):
        h &= 0x8000
    return h


@njit
def _minmax(ha, hb, a, b, is_max, nan_out):
    na, nb = np.isnan(a), np.isnan(b)
    if na or nb:
        if (na and nb) or nan_out:
            return np.int64(CANON_NAN16)
        return hb if na else ha
    if a == 0.0 and b == 0.0:
        a_neg = (ha & 0x8000) != 0
        if is_max:
            return hb if a_neg else ha
        return ha if a_neg else hb
    if is_max:
        return ha if a > b else hb
    return ha if a < b else hb


@njit
def half_op(op, ha, hb, hc, bf, ftz, sat, relu, nan_out):
    """One 16-bit lane of a half-precision instruction: result bits from operand bits."""
    ha, hb, hc = np.int64(ha) & 0xFFFF, np.int64(hb) & 0xFFFF, np.int64(hc) & 0xFFFF
    if ftz:
        if is_sub16(ha, bf):
            ha &= 0x8000
        if is_sub16(hb, bf):
            hb &= 0x8000
        if is_sub16(hc, bf):
            hc &= 0x8000
    if op == OP_NEG:
        return ha ^ 0x8000
    if op == OP_ABS:
        return ha & 0x7FFF
    a = half_value(ha, bf, False)
    b = half_value(hb, bf, False)
    if op == OP_MIN or op == OP_MAX:
        return _minmax(ha, hb, a, b, op == OP_MAX, nan_out)
    if op == OP_SUB:
        b = -b
    if op == OP_MUL:
        s, e = a * b, 0.0                      # exact: 11 x 11 (8 x 8) significant bits
    elif op == OP_FMA:
        s, e = two_sum(a * b, half_value(hc, bf, False))
    else:
        s, e = two_sum(a, b)
    if not np.isfinite(s):
        e = 0.0
    return _finish(s, e, bf, ftz, sat, relu)


@njit(no_cpython_wrapper=True)
def exec_half(P, M, i, w, mask):
    op = P.ins[i, oc.F_OP]
    ty = P.ins[i, oc.F_TYPE]
    fl = P.ins[i, oc.F_FLAGS]
    nsrc = P.ins[i, oc.F_NSRC]
    bf = ty == T_BF16 or ty == T_BF16X2
    pair = ty == T_F16X2 or ty == T_BF16X2
    ftz = (fl & oc.FL_FTZ) != 0
    sat = (fl & oc.FL_SAT) != 0
    relu = (fl & oc.FL_RELU) != 0
    nan_out = (fl & oc.FL_NAN) != 0
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        a = bits(P, M, i, oc.S0, w, l)
        b = bits(P, M, i, oc.S0 + 1, w, l) if nsrc > 1 else np.int64(0)
        c = bits(P, M, i, oc.S0 + 2, w, l) if nsrc > 2 else np.int64(0)
        r = half_op(op, a, b, c, bf, ftz, sat, relu, nan_out)
        if pair:
            r |= half_op(op, a >> 16, b >> 16, c >> 16, bf, ftz, sat, relu, nan_out) << 16
        put(P, M, i, oc.D0, w, l, r)
