"""8-bit floats (e4m3, e5m2) and tf32: decoding, and correct rounding from f32 (numba helpers).

e4m3: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities, NaN is S.1111.111, largest 448.
e5m2: 1 sign, 5 exponent (bias 15), 2 mantissa bits; IEEE-like (infinities, NaNs), largest 57344.
tf32: an f32 whose low 13 mantissa bits are zero (10 stored mantissa bits).
"""
from __future__ import annotations

import math

import numpy as np

from gpusim.jit import njit

E4M3, E5M2 = 0, 1
F8_NAN = 0x7F


@njit(no_cpython_wrapper=True)
def f8_params(fmt):
    """(exponent bits, mantissa bits, bias, largest finite value) of an 8-bit format."""
    if fmt == E4M3:
        return 4, 3, 7, 448.0
    return 5, 2, 15, 57344.0


@njit(no_cpython_wrapper=True)
def f8_to_f64(b, fmt):
    """The value of 8-bit float bits `b` (exact in float64); NaN for NaN encodings."""
    eb, mb, bias, _ = f8_params(fmt)
    sign = -1.0 if (b >> 7) & 1 else 1.0
    e = (b >> mb) & ((1 << eb) - 1)
    m = b & ((1 << mb) - 1)
    if fmt == E4M3 and e == 15 and m == 7:
        return np.nan
    if fmt == E5M2 and e == 31:
        return sign * np.inf if m == 0 else np.nan
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - mb)
    return sign * (1.0 + m / (1 << mb)) * 2.0 ** (e - bias)


@njit(no_cpython_wrapper=True)
def f64_to_f8_satfinite(x, fmt):
    """x rounded to nearest even in the 8-bit format, saturating to the largest finite value
    (infinities included: .satfinite); NaN to 0x7F."""
    eb, mb, bias, big = f8_params(fmt)
    if np.isnan(x):
        return F8_NAN
    sign = 0x80 if (x < 0.0 or (x == 0.0 and math.copysign(1.0, x) < 0.0)) else 0
    a = abs(x)
    if a == 0.0:
        return sign
    emin = 1 - bias
    if a == np.inf:
        a = big
    e = math.frexp(a)[1] - 1
    if e < emin:
        e = emin
    q = np.rint(a * 2.0 ** (mb - e))            # ties to even; exact scaling by a power of two
    v = q * 2.0 ** (e - mb)
    if v > big:
        v = big
    if v < 2.0 ** emin:                          # subnormal (or zero)
        return sign | int(v * 2.0 ** (mb - emin))
    e2 = math.frexp(v)[1] - 1
    mant = int(v * 2.0 ** (mb - e2)) - (1 << mb)
    return sign | ((e2 + bias) << mb) | mant


@njit(no_cpython_wrapper=True)
def f32_bits_to_tf32(b, mode, satfinite):
    """f32 bits rounded to tf32 (low 13 bits cleared): mode 8 rna (ties away), 0 rn (ties to even),
    1 rz. NaN becomes 0x7FFFFFFF; with satfinite, an infinity or overflow becomes the largest tf32."""
    b = b & 0xFFFFFFFF
    if (b & 0x7F800000) == 0x7F800000:
        if b & 0x7FFFFF:
            return np.int64(0x7FFFFFFF)
        return (b & 0x80000000) | 0x7F7FE000 if satfinite else b
    if mode == 8:
        r = b + 0x1000
    elif mode == 0:
        r = b + 0xFFF + ((b >> 13) & 1)
    else:
        r = b
    r = r & 0xFFFFE000
    if (r & 0x7F800000) == 0x7F800000 and satfinite:
        r = (b & 0x80000000) | 0x7F7FE000
    return r
