"""cvt: conversions between integer and floating-point types, widths, roundings, saturation (numba)."""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import bf16_to_f32, bits_of_f32, bits_of_f64, f16_to_f32, ftz32, round_f32, round_integral, zext
from gpusim.isa.rounding import int_to_float, to_bf16, to_f16
from gpusim.isa.types import K_FLOAT, K_SINT, T_BF16X2, T_F16, T_F16X2, T_F32, T_F64
from gpusim.jit import njit
from gpusim.sm.convert8 import exec_cvt_tensor, is_tensor_format
from gpusim.sm.operands import bits, ival, put, put_int


@njit
def int_range(ty_size, signed):
    nb = 8 * ty_size
    if signed:
        return -(np.int64(1) << (nb - 1)) if nb < 64 else np.int64(-9223372036854775808), \
            (np.int64(1) << (nb - 1)) - 1 if nb < 64 else np.int64(9223372036854775807)
    return np.int64(0), (np.int64(1) << nb) - 1 if nb < 64 else np.int64(-1)


@njit(no_cpython_wrapper=True, inline="always")
def read_float(P, M, i, s, w, l, ty):
    b = bits(P, M, i, s, w, l)
    if ty == T_F64:
        return np.int64(b).view(np.float64)
    if ty == T_F32:
        return np.float64(np.uint32(b & 0xFFFFFFFF).view(np.float32))
    if ty == T_F16:
        return np.float64(f16_to_f32(b))
    return np.float64(bf16_to_f32(b))


@njit
def float_to_int(x, dsize, signed, rnd):
    if np.isnan(x):
        return np.int64(0)
    r = round_integral(x, rnd if rnd >= 4 else 5)
    lo, hi = int_range(dsize, signed)
    if signed or dsize < 8:
        if r <= np.float64(lo):
            return lo
        if r >= np.float64(hi):
            return hi
        return np.int64(r)
    if r <= 0.0:
        return np.int64(0)
    if r >= 18446744073709551615.0:
        return np.int64(-1)
    return np.int64(np.uint64(r))


@njit(no_cpython_wrapper=True, inline="always")
def store_float(P, M, i, s, w, l, v, dty, rnd, ftz, sat):
    if sat:
        v = 0.0 if np.isnan(v) else min(max(v, 0.0), 1.0)
    if dty == T_F64:
        put(P, M, i, s, w, l, bits_of_f64(v))
    elif dty == T_F32:
        r = round_f32(v, rnd if rnd <= 3 else 0)
        put(P, M, i, s, w, l, bits_of_f32(ftz32(r) if ftz else r))
    elif dty == T_F16:
        put(P, M, i, s, w, l, to_f16(v, rnd if rnd <= 3 else 0))
    else:
        put(P, M, i, s, w, l, to_bf16(v, rnd if rnd <= 3 else 0))


@njit(no_cpython_wrapper=True)
def exec_cvt(P, M, i, w, mask):
    dty = P.ins[i, oc.F_TYPE]
    sty = P.ins[i, oc.F_TYPE2]
    rnd = P.ins[i, oc.F_MOD2]
    fl = P.ins[i, oc.F_FLAGS]
    ftz = (fl & oc.FL_FTZ) != 0
    sat = (fl & oc.FL_SAT) != 0
    dfloat = P.tkind[dty] == K_FLOAT
    sfloat = P.tkind[sty] == K_FLOAT
    if is_tensor_format(dty, sty):
        exec_cvt_tensor(P, M, i, w, mask)       # tf32, e4m3x2, e5m2x2 (convert8.py)
        return
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        if dty == T_F16X2 or dty == T_BF16X2:
            lo = read_float(P, M, i, oc.S0 + 1, w, l, sty)
            hi = read_float(P, M, i, oc.S0, w, l, sty)
            m = rnd if rnd <= 3 else 0
            if dty == T_F16X2:
                v = (to_f16(hi, m) << 16) | to_f16(lo, m)
            else:
                v = (to_bf16(hi, m) << 16) | to_bf16(lo, m)
            put(P, M, i, oc.D0, w, l, v)
            continue
        if sfloat:
            x = read_float(P, M, i, oc.S0, w, l, sty)
            if ftz and sty == T_F32:
                x = np.float64(ftz32(np.float32(x)))
            if dfloat:
                if rnd >= 4:
                    x = round_integral(x, rnd)
                store_float(P, M, i, oc.D0, w, l, x, dty, rnd, ftz, sat)
            else:
                put_int(P, M, i, oc.D0, w, l, float_to_int(x, P.tsize[dty], P.tkind[dty] == K_SINT, rnd), dty)
        else:
            v = ival(P, M, i, oc.S0, w, l, sty)
            if dfloat:
                uns = P.tkind[sty] != K_SINT
                if dty == T_F32 or dty == T_F64:
                    x = int_to_float(v, uns, dty == T_F32, rnd if rnd <= 3 else 0)
                    store_float(P, M, i, oc.D0, w, l, x, dty, 0, ftz, sat)
                else:
                    x = np.float64(np.uint64(v)) if (uns and v < 0) else np.float64(v)
                    store_float(P, M, i, oc.D0, w, l, x, dty, rnd, ftz, sat)
            else:
                if sat:
                    lo, hi = int_range(P.tsize[dty], P.tkind[dty] == K_SINT)
                    s_uns64 = P.tkind[sty] != K_SINT and P.tsize[sty] == 8
                    if s_uns64 and v < 0:
                        v = hi
                    elif P.tsize[dty] == 8 and P.tkind[dty] != K_SINT and P.tkind[sty] == K_SINT:
                        v = max(v, 0)
                    elif P.tsize[dty] < 8 or P.tkind[dty] == K_SINT:
                        v = min(max(v, lo), hi)
                put_int(P, M, i, oc.D0, w, l, zext(v, P.tsize[dty]), dty)
