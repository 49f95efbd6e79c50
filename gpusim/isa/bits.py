"""Bit-level numerics in numba: reinterpretation, width normalisation, fused multiply-add, f16/bf16.

Registers hold raw bits in an int64. f32 values live in the low 32 bits. Every helper is a small
@njit function the executor inlines.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from gpusim.jit import njit

MASK32 = 0xFFFFFFFF


@intrinsic
def _fma_f64(typingctx, a, b, c):
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.DoubleType(), [ir.DoubleType()] * 3)
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.fma.f64")
        return builder.call(fn, args)
    return sig, codegen


@intrinsic
def _fma_f32(typingctx, a, b, c):
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.FloatType(), [ir.FloatType()] * 3)
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.fma.f32")
        return builder.call(fn, args)
    return sig, codegen


@njit
def fma64(a, b, c):
    return _fma_f64(np.float64(a), np.float64(b), np.float64(c))


@njit
def fma32(a, b, c):
    return _fma_f32(np.float32(a), np.float32(b), np.float32(c))


@njit
def f32_of(b):
    return np.uint32(b & MASK32).view(np.float32)


@njit
def bits_of_f32(x):
    return np.int64(np.float32(x).view(np.uint32))


@njit
def f64_of(b):
    return np.int64(b).view(np.float64)


@njit
def bits_of_f64(x):
    return np.float64(x).view(np.int64)


@njit
def sext(v, nbytes):
    if nbytes >= 8:
        return np.int64(v)
    sh = 64 - 8 * nbytes
    return (np.int64(v) << sh) >> sh


@njit
def zext(v, nbytes):
    if nbytes >= 8:
        return np.int64(v)
    return np.int64(v) & ((np.int64(1) << (8 * nbytes)) - 1)


@njit
def is_subnormal32(x):
    b = bits_of_f32(x)
    return (b & 0x7F800000) == 0 and (b & 0x7FFFFF) != 0


@njit
def ftz32(x):
    """Flush an f32 subnormal to a zero of the same sign (.ftz)."""
    if is_subnormal32(x):
        return np.float32(-0.0) if x < 0 else np.float32(0.0)
    return np.float32(x)


@njit
def round_f32(x, mode):
    """float64 -> float32 with rounding mode 0 rn, 1 rz, 2 rm, 3 rp (x exact)."""
    r = np.float32(x)
    if mode == 0 or np.isnan(x) or np.float64(r) == x:
        return r
    if mode == 1:
        if abs(np.float64(r)) > abs(x):
            r = np.nextafter(r, np.float32(0.0))
    elif mode == 2:
        if np.float64(r) > x:
            r = np.nextafter(r, np.float32(-np.inf))
    elif mode == 3:
        if np.float64(r) < x:
            r = np.nextafter(r, np.float32(np.inf))
    return r


@njit
def round_integral(x, mode):
    """Round to an integral value: 4 rni (nearest even), 5 rzi, 6 rmi, 7 rpi."""
    if mode == 4:
        return np.round(x)
    if mode == 5:
        return np.trunc(x)
    if mode == 6:
        return np.floor(x)
    if mode == 7:
        return np.ceil(x)
    return x


@njit
def f16_to_f32(h):
    h = np.int64(h) & 0xFFFF
    sign = (h >> 15) & 1
    exp = (h >> 10) & 0x1F
    man = h & 0x3FF
    if exp == 0:
        v = np.float64(man) * 2.0 ** -24
    elif exp == 31:
        v = np.inf if man == 0 else np.nan
    else:
        v = (1.0 + man / 1024.0) * 2.0 ** (exp - 15)
    return np.float32(-v if sign else v)


@njit
def f32_to_f16(x):
    """float32 -> binary16 bits, round to nearest even; overflow to inf."""
    b = bits_of_f32(x)
    sign = (b >> 16) & 0x8000
    exp = (b >> 23) & 0xFF
    man = b & 0x7FFFFF
    if exp == 0xFF:
        return sign | 0x7C00 | (0x200 if man != 0 else 0)
    e = exp - 127 + 15
    if e >= 31:
        return sign | 0x7C00
    if e <= 0:
        if e < -10:
            return sign
        man = man | 0x800000
        shift = 14 - e
        half = np.int64(1) << (shift - 1)
        r = man >> shift
        rem = man & ((np.int64(1) << shift) - 1)
        if rem > half or (rem == half and (r & 1)):
            r += 1
        return sign | r
    r = man >> 13
    rem = man & 0x1FFF
    if rem > 0x1000 or (rem == 0x1000 and (r & 1)):
        r += 1
        if r == 0x400:
            r = 0
            e += 1
            if e >= 31:
                return sign | 0x7C00
    return sign | (e << 10) | r


@njit
def bf16_to_f32(h):
    return f32_of((np.int64(h) & 0xFFFF) << 16)


@njit
def f32_to_bf16(x):
    b = bits_of_f32(x)
    if (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0:
        return ((b >> 16) | 0x40) & 0xFFFF
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


@njit
def umulhi64(a, b):
    """High 64 bits of the unsigned 128-bit product of two 64-bit values (as int64 bits)."""
    m = np.uint64(0xFFFFFFFF)
    ua, ub = np.uint64(a), np.uint64(b)
    a0, a1 = ua & m, ua >> np.uint64(32)
    b0, b1 = ub & m, ub >> np.uint64(32)
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> np.uint64(32)) + (p01 & m) + (p10 & m)
    hi = p11 + (p01 >> np.uint64(32)) + (p10 >> np.uint64(32)) + (mid >> np.uint64(32))
    return np.int64(hi)


@njit
def smulhi64(a, b):
    hi = umulhi64(a, b)
    if a < 0:
        hi -= b
    if b < 0:
        hi -= a
    return hi


@njit
def popc64(v):
    """Population count (SWAR)."""
    x = np.uint64(v)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit
def clz(v, nbits):
    v = zext(v, nbits // 8)
    n = 0
    for k in range(nbits - 1, -1, -1):
        if (v >> k) & 1:
            break
        n += 1
    return n


@njit
def brev(v, nbits):
    r = np.int64(0)
    for k in range(nbits):
        if (v >> k) & 1:
            r |= np.int64(1) << (nbits - 1 - k)
    return r
