"""Correct rounding in every PTX mode (rn, rz, rm, rp) from exact double-double intermediates (numba).

f32 results are exact as s + e in double-double (TwoSum / exact products), then rounded once to
float32 in the requested mode; f64 results round s (already RN) one ulp in the direction of e.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa.bits import bits_of_f32, f16_to_f32, f32_of, f32_to_f16, fma64
from gpusim.jit import njit


@njit
def two_sum(a, b):
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


@njit
def two_prod(a, b):
    p = a * b
    return p, fma64(a, b, -p)


@njit
def _cmp(r, s, e):
    """Sign of (r - (s + e)) for a double r close to s."""
    d = (r - s) - e
    if d > 0:
        return 1
    if d < 0:
        return -1
    return 0


@njit
def round_f32_dd(s, e, mode):
    """float32 nearest/directed rounding of the exact value s + e."""
    if np.isnan(s) or np.isinf(s):
        return np.float32(s)
    r = np.float32(s)
    if np.isinf(r) and mode == 0:
        return r
    if np.isinf(r):
        big = np.float32(3.4028234663852886e38)
        if mode == 1 or (mode == 2 and s > 0) or (mode == 3 and s < 0):
            return big if s > 0 else -big
        return r
    c = _cmp(np.float64(r), s, e)
    if c == 0:
        return r
    if mode == 0:
        nb = np.nextafter(r, np.float32(np.inf) if c < 0 else np.float32(-np.inf))
        d1 = abs((np.float64(r) - s) - e)
        d2 = abs((np.float64(nb) - s) - e)
        if d2 < d1 or (d2 == d1 and (bits_of_f32(nb) & 1) == 0):
            return nb
        return r
    if mode == 1:
        toward0 = (c > 0) == (s > 0)     # r is farther from zero than the exact value
        if toward0:
            return np.nextafter(r, np.float32(0.0))
        return r
    if mode == 2:
        return np.nextafter(r, np.float32(-np.inf)) if c > 0 else r
    return np.nextafter(r, np.float32(np.inf)) if c < 0 else r


@njit
def round_f64_dd(s, e, mode):
    if mode == 0 or e == 0.0 or np.isnan(s) or np.isinf(s):
        return s
    if mode == 1:
        if (e < 0) == (s > 0):
            return np.nextafter(s, 0.0)
        return s
    if mode == 2:
        return np.nextafter(s, -np.inf) if e < 0 else s
    return np.nextafter(s, np.inf) if e > 0 else s


@njit
def f32_round_odd(x):
    """float64 -> float32 rounded to odd: a later rounding to fewer bits is then correct."""
    r = np.float32(x)
    if np.float64(r) != x and not np.isinf(r) and (bits_of_f32(r) & 1) == 0:
        r = np.nextafter(r, np.float32(np.inf) if np.float64(r) < x else np.float32(-np.inf))
    return r


@njit
def _adjust16(h, val, x, mode):
    """Move binary16-like bits h (value val) one step per directed mode so it brackets x correctly."""
    if mode == 0 or val == x or np.isnan(x):
        return h
    neg = (h & 0x8000) != 0
    mag_up = (h + 1) & 0xFFFF
    mag_down = (h - 1) & 0xFFFF
    if (h & 0x7FFF) == 0:
        mag_down = h
    if mode == 1:
        if abs(val) > abs(x):
            return mag_down
        return h
    if mode == 2:
        if val > x:
            return mag_up if neg else mag_down
        return h
    if val < x:
        return mag_down if neg else mag_up
    return h


@njit
def to_f16(x, mode):
    h = f32_to_f16(f32_round_odd(x))
    return _adjust16(h, np.float64(f16_to_f32(h)), x, mode)


@njit
def to_bf16(x, mode):
    r = f32_round_odd(x)
    b = bits_of_f32(r)
    if (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0:
        return ((b >> 16) | 0x40) & 0xFFFF
    h = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
    return _adjust16(h, np.float64(f32_of(h << 16)), x, mode)


@njit
def int_to_float(v, unsigned, to_f32, mode):
    """Integer (int64 bits; unsigned if flagged) to f32/f64 bits-value, rounded per mode."""
    if unsigned and v < 0:
        x = np.float64(np.uint64(v))
        over = x >= 18446744073709551615.0
    else:
        x = np.float64(v)
        over = x >= 9.2233720368547758e18
    if to_f32:
        r = np.float64(np.float32(np.uint64(v))) if (unsigned and v < 0) else np.float64(np.float32(v))
    else:
        r = x
    if mode == 0:
        return r
    # exact comparison of r with the integer v
    if over or r >= 9.2233720368547758e18:
        c = 1 if not (unsigned and v < 0) else (1 if r >= 18446744073709551615.0 else
                                                   _ucmp(np.uint64(r), np.uint64(v)))
    elif unsigned and v < 0:
        c = -1
    else:
        ri = np.int64(r)
        c = 1 if ri > v else (-1 if ri < v else 0)
    if c == 0:
        return r
    if to_f32:
        f = np.float32(r)
        up, down = np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))
        if mode == 1:
            return np.float64(down if (c > 0 and r > 0) else (up if (c < 0 and r < 0) else f))
        if mode == 2:
            return np.float64(down if c > 0 else f)
        return np.float64(up if c < 0 else f)
    if mode == 1:
        return np.nextafter(r, 0.0) if (c > 0) == (r > 0) else r
    if mode == 2:
        return np.nextafter(r, -np.inf) if c > 0 else r
    return np.nextafter(r, np.inf) if c < 0 else r


@njit
def _ucmp(a, b):
    if a > b:
        return 1
    if a < b:
        return -1
    return 0
