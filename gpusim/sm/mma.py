"""mma.sync.aligned: a warp-wide matrix multiply-accumulate D = A x B + C (numba).

The fragments follow the PTX ISA ("Matrix Fragments for mma.m16n8k8/k16/k32, m8n8k4"): with
g = laneid >> 2 and t = laneid % 4, each lane's registers hold the elements below, low bits first.
The whole warp's fragments are gathered into A (M x K), B (K x N) and C (M x N), D is computed, and
each lane gets its part of D.

Accumulation (PTX does not specify the hardware's internal order or intermediate precision; this
is gpusim's documented choice): for each element, d = c, then for k = 0, 1, ..., K-1 in order
d = fma(a[m,k], b[k,n], d) rounded once to nearest even in f32 (f16/bf16/tf32/e4m3/e5m2 inputs: the
products are exact in f32, so each step is one correctly rounded f32 addition); an f16 C is widened
exactly and an f16 D is rounded once (nearest even) from the f32 result. NaN results are 0x7FFFFFFF.
f64 (m8n8k4): the same chain in f64 with fused multiply-adds. Integers (s8/u8 -> s32): the exact sum,
wrapped to 32 bits, or clamped to the s32 range with .satfinite. A .tf32 operand's low 13 mantissa
bits are ignored (it should come from cvt.rna.tf32.f32). Subnormals are kept (no flush).
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import bf16_to_f32, bits_of_f32, bits_of_f64, f16_to_f32, f32_of, f32_to_f16, fma32, fma64
from gpusim.isa.minifloat import E4M3, E5M2, f8_to_f64
from gpusim.isa.types import T_BF16, T_E4M3, T_E5M2, T_F16, T_F64, T_TF32, TYPE_CODE
from gpusim.jit import njit
from gpusim.sm.operands import bits, put

T_S8, T_U8, T_S32 = TYPE_CODE["s8"], TYPE_CODE["u8"], TYPE_CODE["s32"]


@njit(no_cpython_wrapper=True)
def shape_mnk(shape):
    if shape == oc.MMA_M16N8K8:
        return 16, 8, 8
    if shape == oc.MMA_M16N8K16:
        return 16, 8, 16
    if shape == oc.MMA_M16N8K32:
        return 16, 8, 32
    return 8, 8, 4


@njit(no_cpython_wrapper=True)
def per_register(ty):
    """Elements of type ty in one 32-bit (or f64) register."""
    if ty == T_F16 or ty == T_BF16:
        return 2
    if ty == T_S8 or ty == T_U8 or ty == T_E4M3 or ty == T_E5M2:
        return 4
    return 1


@njit(no_cpython_wrapper=True)
def element(r, j, ty):
    """Element j of register bits r, as float64 (integers exactly)."""
    if ty == T_F16:
        return np.float64(f16_to_f32((r >> (16 * j)) & 0xFFFF))
    if ty == T_BF16:
        return np.float64(bf16_to_f32((r >> (16 * j)) & 0xFFFF))
    if ty == T_TF32:
        return np.float64(f32_of(r & 0xFFFFE000))
    if ty == T_F64:
        return np.int64(r).view(np.float64)
    b = (r >> (8 * j)) & 0xFF
    if ty == T_S8:
        return np.float64(b - 256 if b >= 128 else b)
    if ty == T_U8:
        return np.float64(b)
    return f8_to_f64(b, E4M3 if ty == T_E4M3 else E5M2)


@njit(no_cpython_wrapper=True)
def a_position(shape, ty, e, g, t):
    """(row, column) in A of element e of lane (g, t)'s A fragment."""
    if shape == oc.MMA_M8N8K4:
        return g, t
    if shape == oc.MMA_M16N8K32:
        return g + 8 * ((e >> 2) & 1), t * 4 + (e & 3) + 16 * (e >> 3)
    if shape == oc.MMA_M16N8K16:
        return g + 8 * ((e >> 1) & 1), t * 2 + (e & 1) + 8 * (e >> 2)
    if ty == T_TF32:
        return g + 8 * (e & 1), t + 4 * (e >> 1)
    return g + 8 * (e >> 1), t * 2 + (e & 1)


@njit(no_cpython_wrapper=True)
def b_position(shape, ty, e, g, t):
    """(row k, column n) in B of element e of lane (g, t)'s B fragment."""
    if shape == oc.MMA_M8N8K4:
        return t, g
    if shape == oc.MMA_M16N8K32:
        return t * 4 + (e & 3) + 16 * (e >> 2), g
    if shape == oc.MMA_M16N8K16:
        return t * 2 + (e & 1) + 8 * (e >> 1), g
    if ty == T_TF32:
        return t + 4 * e, g
    return t * 2 + e, g


@njit(no_cpython_wrapper=True)
def c_position(shape, e, g, t):
    """(row, column) in C/D of element e of lane (g, t)'s accumulator fragment."""
    if shape == oc.MMA_M8N8K4:
        return g, t * 2 + e
    return g + 8 * (e >> 1), t * 2 + (e & 1)


@njit(no_cpython_wrapper=True)
def fragment_registers(shape, aty):
    """Registers per lane of A and of B."""
    if shape == oc.MMA_M8N8K4:
        return 1, 1
    if shape == oc.MMA_M16N8K8 and aty != T_TF32:
        return 2, 1
    return 4, 2


@njit(no_cpython_wrapper=True)
def _accumulate(A, B, C, D, m_, n_, k_, aty):
    for m in range(m_):
        for n in range(n_):
            if aty == T_F64:
                d = C[m * n_ + n]
                for k in range(k_):
                    d = fma64(A[m * k_ + k], B[k * n_ + n], d)
            elif aty == T_S8 or aty == T_U8:
                d = C[m * n_ + n]
                for k in range(k_):
                    d += A[m * k_ + k] * B[k * n_ + n]          # exact: |sum| < 2^53
            else:
                d32 = np.float32(C[m * n_ + n])
                for k in range(k_):
                    d32 = fma32(np.float32(A[m * k_ + k]), np.float32(B[k * n_ + n]), d32)
                d = np.float64(d32)
            D[m * n_ + n] = d


@njit(no_cpython_wrapper=True)
def _result_bits(d, dty, satfinite):
    if dty == T_F64:
        return bits_of_f64(d)
    if dty == T_S32:
        v = np.int64(d)
        if satfinite:
            return min(max(v, -2147483648), 2147483647) & 0xFFFFFFFF
        return v & 0xFFFFFFFF
    if np.isnan(d):
        return np.int64(0x7FFF) if dty == T_F16 else np.int64(0x7FFFFFFF)
    if dty == T_F16:
        return f32_to_f16(np.float32(d))
    return bits_of_f32(np.float32(d))


@njit(no_cpython_wrapper=True)
def exec_mma(P, M, mx, i, w, mask):
    """mma.sync.aligned for the warp (every lane's fragments are read; the lanes in `mask` are written).
    mx: scratch float64[4, 512] for A, B, C and D (row-major)."""
    shape = P.ins[i, oc.F_MOD]
    dty, aty, bty, cty = P.ins[i, oc.F_TYPE], P.ins[i, oc.F_TYPE2], P.ins[i, oc.F_VEC], P.ins[i, oc.F_MOD2]
    satfinite = (P.ins[i, oc.F_FLAGS] & oc.FL_SATFINITE) != 0
    m_, n_, k_ = shape_mnk(shape)
    na, nb = fragment_registers(shape, aty)
    nc = P.ins[i, oc.F_NSRC] - na - nb
    A, B, C, D = mx[0], mx[1], mx[2], mx[3]        # row-major: A[m * K + k], B[k * N + n], C/D[m * N + n]
    ea, eb, ec = per_register(aty), per_register(bty), (2 if cty == T_F16 else 1)
    for l in range(32):
        g, t = l >> 2, l & 3
        for r in range(na):
            v = bits(P, M, i, oc.S0 + r, w, l)
            for j in range(ea):
                row, col = a_position(shape, aty, r * ea + j, g, t)
                A[row * k_ + col] = element(v, j, aty)
        for r in range(nb):
            v = bits(P, M, i, oc.S0 + na + r, w, l)
            for j in range(eb):
                row, col = b_position(shape, bty, r * eb + j, g, t)
                B[row * n_ + col] = element(v, j, bty)
        for r in range(nc):
            v = bits(P, M, i, oc.S0 + na + nb + r, w, l)
            for j in range(ec):
                row, col = c_position(shape, r * ec + j, g, t)
                if cty == T_S32:
                    C[row * n_ + col] = np.float64(np.int32(np.int64(v) & 0xFFFFFFFF))
                elif cty == T_F16:
                    C[row * n_ + col] = element(v, j, T_F16)
                elif cty == T_F64:
                    C[row * n_ + col] = np.int64(v).view(np.float64)
                else:
                    C[row * n_ + col] = np.float64(f32_of(v))
    _accumulate(A, B, C, D, m_, n_, k_, aty)
    ed = 2 if dty == T_F16 else 1
    nd = P.ins[i, oc.F_NDST]
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        g, t = l >> 2, l & 3
        for r in range(nd):
            out = np.int64(0)
            for j in range(ed):
                row, col = c_position(shape, r * ed + j, g, t)
                out |= _result_bits(D[row * n_ + col], dty, satfinite) << (16 * j)
            put(P, M, i, oc.D0 + r, w, l, out)
