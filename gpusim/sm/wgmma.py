"""wgmma.mma_async: a warpgroup's 64xNx16 matrix multiply-accumulate (numba), functional part.

A warpgroup is 4 consecutive warps of a CTA (warp index // 4); warp q = index % 4 owns rows
16q..16q+15 of A and D, and its lanes hold exactly those rows' D fragment (and A fragment, when A
comes from registers). So the collective instruction splits exactly into 4 independent per-warp
parts: each warp computes its 16 rows when it issues, reading B (and A) from shared memory at
that moment. The ISA leaves D undefined until wgmma.wait_group and forbids writing the operands'
shared memory before it, so computing at issue is one of the outcomes the hardware may produce; the
timing model (asyncops.py) charges the latency at wait_group. Descriptors and scale-d are taken from
the warp's first active lane (the ISA requires them uniform over the warpgroup).

Fragments (g = lane / 4, t = lane % 4): D register j holds row 16q + g + 8*((j/2)%2), column
8*(j/4) + 2t + j%2. A in registers: register r holds row 16q + g + 8*(r%2), k = 8*(r/2) + 2t (low
half) and +1 (high half).

Shared-memory operands, K-major (the only layout implemented; imm-trans = 1 is refused at load):
the descriptor holds start address >> 4 (bits 0-13), leading byte offset >> 4 (16-29), stride byte
offset >> 4 (32-45) and the swizzle mode (62-63: 0 none, 1 128B, 2 64B, 3 32B). No swizzle: 8x8
core matrices of 8 rows x 16 bytes, rows 16 bytes apart; core matrices adjacent in K are LBO apart,
adjacent in M/N SBO apart. Swizzled (width W = 128/64/32 bytes): row r of an 8-row group at
r*W, groups SBO apart, then the 16-byte chunk bits of the address are XORed with its bits 7.. (128B:
bits 4-6 ^= bits 7-9; 64B: bits 4-5 ^= bits 7-8; 32B: bit 4 ^= bit 7), on the shared address itself,
as CUTLASS's Swizzle<3|2|1, 4, 3> and the TMA unit do. The base-offset field (bits 49-51) is ignored
(atoms aligned to the swizzle's repeat, as CUTLASS places them).

Numerics (documented order, bit-exact against tests/sm/test_wgmma.py's numpy reference): for each D
element, acc = D (scale-d true) or +0.0; then for k = 0..15 in order acc = fp32(acc + a_k * b_k), the
product exact in double and the sum rounded once from double to fp32, nearest even (a double
rounding, through double then fp32, in the rare cases the exact sum needs more than 53 bits).
imm-scale-a/b = -1 negate A/B. Real tensor cores sum several products before rounding, with their
own truncation: results agree with the hardware to about an ulp of fp32, not bit for bit.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import bf16_to_f32, bits_of_f32, f16_to_f32, f32_of
from gpusim.isa.types import T_BF16
from gpusim.jit import njit
from gpusim.memory.access import fault
from gpusim.sm.operands import bits

WG_MMA = oc.WGMMA["mma_async"]


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
def half_value(h, bf):
    return np.float64(bf16_to_f32(h)) if bf else np.float64(f16_to_f32(h))


@njit(no_cpython_wrapper=True)
def smem_half(M, c, a, bf, w, pc):
    """The 16-bit element at shared address a, as a double (NaN after recording a fault)."""
    if a < 0 or a + 2 > M.smem.shape[1] or a & 1:
        fault(M, oc.E_OOB if a & 1 == 0 else oc.E_MISALIGNED, w, 0, pc, a, 2, oc.SP_SHARED)
        return np.nan
    return half_value(np.int64(M.smem[c, a]) | (np.int64(M.smem[c, a + 1]) << 8), bf)


@njit(no_cpython_wrapper=True)
def exec_wgmma(P, M, i, w, wlocal, emask, pc):
    """wgmma.mma_async for warp slot w (warp `wlocal` of its CTA); fence/commit/wait have no functional effect."""
    if P.ins[i, oc.F_MOD] != WG_MMA or emask == 0:
        return
    flags = P.ins[i, oc.F_MOD2]
    n = flags & oc.WG_N_MASK
    bf = P.ins[i, oc.F_TYPE2] == T_BF16
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
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        g, t = l >> 2, l & 3
        for j in range(min(nd, n // 2)):
            r = g + 8 * ((j >> 1) & 1)          # row within the warp's 16
            col = 8 * (j >> 2) + 2 * t + (j & 1)
            reg = P.vlist[row, 1 + j]
            acc = np.float32(f32_of(M.R[w, reg, l])) if keep else np.float32(0.0)
            for k in range(16):
                if a_regs:
                    src = ((r & 7) << 2) | ((k & 7) >> 1)
                    areg = P.vlist[row, 2 + nd + (r >> 3) + 2 * (k >> 3)]
                    av = half_value((M.R[w, areg, src] >> (16 * (k & 1))) & 0xFFFF, bf)
                else:
                    av = smem_half(M, c, desc_address(da, m0 + r, 2 * k), bf, w, pc)
                bv = smem_half(M, c, desc_address(db, col, 2 * k), bf, w, pc)
                acc = np.float32(np.float64(acc) + (sa * av) * (sb * bv))
            M.R[w, reg, l] = bits_of_f32(acc)
    if M.err[0] != 0:
        return
