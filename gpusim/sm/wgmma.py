"""wgmma.mma_async: a warpgroup's 64xNxK matrix multiply-accumulate (numba), functional part.

Types: .f32 += .f16 x .f16 / .bf16 x .bf16 (K 16), .tf32 x .tf32 (K 8; the low 13 mantissa bits of the
f32 bits ignored), .e4m3/.e5m2 x .e4m3/.e5m2 (K 32); .s32 += .s8/.u8 x .s8/.u8 (K 32, exact, wrapping
modulo 2^32, or clamped to the s32 range with .satfinite). K always spans 32 bytes of a row.

A warpgroup is 4 consecutive warps of a CTA (warp index // 4); warp q = index % 4 owns rows
16q..16q+15 of A and D, and its lanes hold exactly those rows' D fragment (and A fragment, when A
comes from registers). So the collective instruction splits exactly into 4 independent per-warp
parts: each warp computes its 16 rows when it issues, reading B (and A) from shared memory at
that moment. The ISA leaves D undefined until wgmma.wait_group and forbids writing the operands'
shared memory before it, so computing at issue is one of the outcomes the hardware may produce; the
timing model (asyncops.py) charges the latency at wait_group. Descriptors and scale-d are taken from
the warp's first active lane (the ISA requires them uniform over the warpgroup).

Fragments (g = lane / 4, t = lane % 4): D register j holds row 16q + g + 8*((j/2)%2), column
8*(j/4) + 2t + j%2. A in registers (E = 4 / element bytes elements per register, from the low bits):
register r holds row 16q + g + 8*(r%2), k = (K/2)*(r/2) + E*t + e for its element e.

Shared-memory operands (CUTLASS's canonical GMMA layouts, in bytes; T = 16 / element bytes): the
descriptor holds start address >> 4 (bits 0-13), leading byte offset >> 4 (16-29), stride byte
offset >> 4 (32-45) and the swizzle mode (62-63: 0 none, 1 128B, 2 64B, 3 32B). No swizzle: 8x8
core matrices of 8 rows x 16 bytes, rows 16 bytes apart; core matrices adjacent in K are LBO apart,
adjacent in M/N SBO apart. Swizzled (width W = 128/64/32 bytes): row r of an 8-row group at
r*W, groups SBO apart, then the 16-byte chunk bits of the address are XORed with its bits 7.. (128B:
bits 4-6 ^= bits 7-9; 64B: bits 4-5 ^= bits 7-8; 32B: bit 4 ^= bit 7), on the shared address itself,
as CUTLASS's Swizzle<3|2|1, 4, 3> and the TMA unit do. The base-offset field (bits 49-51) is ignored
(atoms aligned to the swizzle's repeat, as CUTLASS places them). Those are K-major (imm-trans = 0).
MN-major (imm-trans = 1, .f16/.bf16 only): no swizzle, 8 k-rows x 16 bytes (T elements along M/N) per
core matrix, M/N-adjacent core matrices SBO apart, K-adjacent (next 8 k) LBO apart; swizzled, k-rows
of W bytes (W/esize elements along M/N), the next W bytes along M/N LBO apart, the next 8 k SBO apart,
then the same XOR.

Numerics (documented order, bit-exact against tests/sm/test_wgmma.py's numpy reference): for each D
element, acc = D (scale-d true) or +0.0; then for k = 0..K-1 in order acc = fp32(acc + a_k * b_k), the
product exact in double and the sum rounded once from double to fp32, nearest even (a double
rounding, through double then fp32, in the rare cases the exact sum needs more than 53 bits).
imm-scale-a/b = -1 negate A/B. Real tensor cores sum several products before rounding, with their
own truncation: results agree with the hardware to about an ulp of fp32, not bit for bit.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import bf16_to_f32, bits_of_f32, f16_to_f32, f32_of
from gpusim.jit import njit
from gpusim.memory.access import fault
from gpusim.sm.operands import bits

WG_MMA = oc.WGMMA["mma_async"]
K_F16, K_BF16, K_TF32, K_E4M3, K_E5M2, K_S8, K_U8 = (oc.WG_KINDS[k] for k in ("f16", "bf16", "tf32", "e4m3", "e5m2",
                                                                              "s8", "u8"))


@njit(no_cpython_wrapper=True, inline="always")
def swizzle_address(a, width):
    """Shared address a under the `width`-byte swizzle (128/64/32): 16-byte chunk bits ^= bits 7.."""
    return a ^ ((a >> 3) & (width - 16))


@njit(no_cpython_wrapper=True, inline="always")
def desc_address(desc, mn, kbyte):
    """Shared-memory byte address of (row mn, byte kbyte along K) of a K-major operand."""
    start = (desc & 0x3FFF) << 4
    lbo = ((desc >> 16) & 0x3FFF) << 4
    sbo = ((desc >> 32) & 0x3FFF) << 4
    mode = (desc >> 62) & 3
    if mode == 0:
        return start + (mn >> 3) * sbo + (kbyte >> 4) * lbo + (mn & 7) * 16 + (kbyte & 15)
    width = 128 if mode == 1 else (64 if mode == 2 else 32)
    return swizzle_address(start + (mn >> 3) * sbo + (mn & 7) * width + kbyte, width)


@njit(no_cpython_wrapper=True, inline="always")
def desc_address_mn(desc, mn, k, esize):
    """Shared-memory byte address of (mn, k) of an MN-major operand (imm-trans = 1), esize-byte elements."""
    start = (desc & 0x3FFF) << 4
    lbo = ((desc >> 16) & 0x3FFF) << 4
    sbo = ((desc >> 32) & 0x3FFF) << 4
    mode = (desc >> 62) & 3
    if mode == 0:
        per = 16 // esize
        return start + (mn // per) * sbo + (mn % per) * esize + (k & 7) * 16 + (k >> 3) * lbo
    width = 128 if mode == 1 else (64 if mode == 2 else 32)
    per = width // esize
    return swizzle_address(start + (mn // per) * lbo + (mn % per) * esize + (k & 7) * width + (k >> 3) * sbo, width)


@njit(no_cpython_wrapper=True)
def element_value(b, kind):
    """An input element's value from its bits: f16, bf16, tf32 (the f32 bits' low 13 mantissa bits
    ignored), e4m3, e5m2, s8, u8 (kinds: opcodes.WG_KINDS)."""
    if kind == K_F16:
        return np.float64(f16_to_f32(b & 0xFFFF))
    if kind == K_BF16:
        return np.float64(bf16_to_f32(b & 0xFFFF))
    if kind == K_TF32:
        return np.float64(f32_of(b & 0xFFFFE000))
    if kind == K_S8:
        return np.float64(((b & 0xFF) ^ 0x80) - 0x80)
    if kind == K_U8:
        return np.float64(b & 0xFF)
    b &= 0xFF
    sign = -1.0 if b & 0x80 else 1.0
    if kind == K_E4M3:
        e, m = (b >> 3) & 0xF, b & 7
        if e == 15 and m == 7:
            return np.nan
        if e == 0:
            return sign * m * 2.0 ** -9
        return sign * (8 + m) * 2.0 ** (e - 10)
    e, m = (b >> 2) & 0x1F, b & 3                       # e5m2
    if e == 31:
        return sign * np.inf if m == 0 else np.nan
    if e == 0:
        return sign * m * 2.0 ** -16
    return sign * (4 + m) * 2.0 ** (e - 17)


@njit(no_cpython_wrapper=True)
def smem_element(M, c, a, esize, kind, w, pc):
    """The element of `esize` bytes at shared address a, as a double (NaN after recording a fault)."""
    if a < 0 or a + esize > M.smem.shape[1] or a & (esize - 1):
        fault(M, oc.E_OOB if a & (esize - 1) == 0 else oc.E_MISALIGNED, w, 0, pc, a, esize, oc.SP_SHARED)
        return np.nan
    v = np.int64(0)
    for j in range(esize):
        v |= np.int64(M.smem[c, a + j]) << (8 * j)
    return element_value(v, kind)


@njit(no_cpython_wrapper=True)
def reg_element(P, M, row, nd, w, r, k, esize, kind):
    """A's element (row r of the warp's 16, k) from the A fragment registers (layout in the module doc)."""
    half_k = 16 // esize                # k extent covered by registers 0-1 (then 2-3)
    per = 4 // esize                    # elements per register
    kk = k % half_k
    reg = P.vlist[row, 2 + nd + (r >> 3) + 2 * (k // half_k)]
    lane = ((r & 7) << 2) | (kk // per)
    return element_value(M.R[w, reg, lane] >> (8 * esize * (kk % per)), kind)


@njit(no_cpython_wrapper=True)
def exec_wgmma(P, M, i, w, wlocal, emask, pc, mx):
    """wgmma.mma_async for warp slot w (warp `wlocal` of its CTA); fence/commit/wait have no functional effect."""
    if P.ins[i, oc.F_MOD] != WG_MMA or emask == 0:
        return
    flags = P.ins[i, oc.F_MOD2]
    n = flags & oc.WG_N_MASK
    ka = (flags >> oc.WG_A_SHIFT) & 15
    kb = (flags >> oc.WG_B_SHIFT) & 15
    esize = 4 if ka == K_TF32 else (2 if ka <= K_BF16 else 1)
    kdim = 32 // esize
    integer = ka >= K_S8
    row = P.ins[i, oc.F_TARGET]
    nd = P.vlist[row, 0]
    a_regs = flags & oc.WG_A_REGS
    sa = -1.0 if flags & oc.WG_NEG_A else 1.0
    sb = -1.0 if flags & oc.WG_NEG_B else 1.0
    l0 = 0
    for l in range(32):
        if (emask >> l) & 1:
            l0 = l
            break
    da = bits(P, M, i, oc.S0, w, l0)
    db = bits(P, M, i, oc.S0 + 1, w, l0)
    keep = bits(P, M, i, oc.S0 + 2, w, l0) & 1
    c = M.wcta[w]
    m0 = 16 * (wlocal % 4)
    # the warp's 16 rows of A and the N columns of B, decoded once (each D element reads a row and a column)
    av, bv = mx[0], mx[1]                  # av[r * kdim + k], bv[col * kdim + k]
    for r in range(16):
        for k in range(kdim):
            if a_regs:
                x = reg_element(P, M, row, nd, w, r, k, esize, ka)
            else:
                aa = desc_address_mn(da, m0 + r, k, esize) if flags & oc.WG_TRANS_A else \
                    desc_address(da, m0 + r, esize * k)
                x = smem_element(M, c, aa, esize, ka, w, pc)
            av[r * kdim + k] = x if integer else sa * x
    for col in range(n):
        for k in range(kdim):
            ba = desc_address_mn(db, col, k, esize) if flags & oc.WG_TRANS_B else desc_address(db, col, esize * k)
            x = smem_element(M, c, ba, esize, kb, w, pc)
            bv[col * kdim + k] = x if integer else sb * x
    if M.err[0] != 0:
        return
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        g, t = l >> 2, l & 3
        for j in range(min(nd, n // 2)):
            r = g + 8 * ((j >> 1) & 1)          # row within the warp's 16
            col = 8 * (j >> 2) + 2 * t + (j & 1)
            reg = P.vlist[row, 1 + j]
            if integer:
                iacc = (((M.R[w, reg, l] & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000) if keep else np.int64(0)
                for k in range(kdim):
                    iacc += np.int64(av[r * kdim + k]) * np.int64(bv[col * kdim + k])
                if flags & oc.WG_SATFINITE:
                    iacc = min(max(iacc, -(np.int64(1) << 31)), (np.int64(1) << 31) - 1)
                M.R[w, reg, l] = iacc & 0xFFFFFFFF
            else:
                acc = np.float32(f32_of(M.R[w, reg, l])) if keep else np.float32(0.0)
                for k in range(kdim):
                    acc = np.float32(np.float64(acc) + av[r * kdim + k] * bv[col * kdim + k])
                M.R[w, reg, l] = bits_of_f32(acc)
