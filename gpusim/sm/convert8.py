"""cvt to and from the tensor-core formats: tf32, and pairs of 8-bit floats (numba).

- `cvt.rna{.satfinite}.tf32.f32 d, a` / `cvt.rn|rz.satfinite.tf32.f32`: a's f32 bits rounded to tf32
  (gpusim/isa/minifloat.py), kept in a .b32 register with the low 13 bits zero.
- `cvt.rn.satfinite.e4m3x2.f32 d, a, b` (and e5m2x2): a to the upper byte of d, b to the lower,
  each rounded to nearest even and saturated to the largest finite value; NaN is 0x7F.
- `cvt.rn.f16x2.e4m3x2 d, a` (and e5m2x2): the lower byte of a to the lower half of d, exactly.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import f32_of, f32_to_f16
from gpusim.isa.minifloat import E4M3, E5M2, f8_to_f64, f32_bits_to_tf32, f64_to_f8_satfinite
from gpusim.isa.types import T_E4M3X2, T_E5M2X2, T_TF32
from gpusim.jit import njit
from gpusim.sm.operands import bits, put


@njit(no_cpython_wrapper=True)
def is_tensor_format(dty, sty):
    return dty == T_TF32 or dty == T_E4M3X2 or dty == T_E5M2X2 or sty == T_E4M3X2 or sty == T_E5M2X2


@njit(no_cpython_wrapper=True)
def _f8_to_f16(b, fmt):
    x = f8_to_f64(b, fmt)
    if np.isnan(x):
        return np.int64(0x7FFF)
    return f32_to_f16(np.float32(x))         # exact: every e4m3 / e5m2 value is an f16


@njit(no_cpython_wrapper=True)
def exec_cvt_tensor(P, M, i, w, mask):
    dty = P.ins[i, oc.F_TYPE]
    sty = P.ins[i, oc.F_TYPE2]
    rnd = P.ins[i, oc.F_MOD2]
    satfinite = (P.ins[i, oc.F_FLAGS] & oc.FL_SATFINITE) != 0
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        if dty == T_TF32:
            v = f32_bits_to_tf32(bits(P, M, i, oc.S0, w, l), rnd, satfinite)
        elif sty == T_E4M3X2 or sty == T_E5M2X2:
            fmt = E4M3 if sty == T_E4M3X2 else E5M2
            a = bits(P, M, i, oc.S0, w, l)
            v = (_f8_to_f16((a >> 8) & 0xFF, fmt) << 16) | _f8_to_f16(a & 0xFF, fmt)
        else:
            fmt = E4M3 if dty == T_E4M3X2 else E5M2
            hi = np.float64(f32_of(bits(P, M, i, oc.S0, w, l)))
            lo = np.float64(f32_of(bits(P, M, i, oc.S0 + 1, w, l)))
            v = np.int64((f64_to_f8_satfinite(hi, fmt) << 8) | f64_to_f8_satfinite(lo, fmt))
        put(P, M, i, oc.D0, w, l, v)
