"""Integer, bitwise and predicate-logic instructions over the active lanes of a warp (numba).

Operands are gathered into M.si rows first (one dispatch per operand), computed lane-wise inside
one branch per opcode, and written back with the destination width.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import brev, clz, popc64, sext, smulhi64, umulhi64, zext
from gpusim.isa.types import K_SINT, K_UINT
from gpusim.jit import njit
from gpusim.sm.operands import bits, ival, put, put_int

OP_ADD, OP_SUB, OP_MUL, OP_MAD = oc.OP["add"], oc.OP["sub"], oc.OP["mul"], oc.OP["mad"]
OP_MUL24, OP_MAD24, OP_DIV, OP_REM = oc.OP["mul24"], oc.OP["mad24"], oc.OP["div"], oc.OP["rem"]
OP_ABS, OP_NEG, OP_MIN, OP_MAX = oc.OP["abs"], oc.OP["neg"], oc.OP["min"], oc.OP["max"]
OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT = oc.OP["and"], oc.OP["or"], oc.OP["xor"], oc.OP["not"], oc.OP["cnot"]
OP_SHL, OP_SHR, OP_POPC, OP_CLZ, OP_BREV = oc.OP["shl"], oc.OP["shr"], oc.OP["popc"], oc.OP["clz"], oc.OP["brev"]
OP_BFE, OP_BFI, OP_PRMT, OP_BFIND = oc.OP["bfe"], oc.OP["bfi"], oc.OP["prmt"], oc.OP["bfind"]
OP_SHF = oc.OP["shf"]
MIN64 = np.int64(-9223372036854775808)


@njit(no_cpython_wrapper=True)
def gather(P, M, i, s, w, mask, ty, row):
    """Source slot s for every active lane, as type ty; the operand kind is decided once."""
    k = P.opk[i, s]
    n = P.tsize[ty]
    signed = P.tkind[ty] == K_SINT
    if k == oc.OK_REG or k == oc.OK_IMM:
        r = P.opv[i, s]
        for l in range(32):
            if (mask >> l) & 1:
                v = M.R[w, r, l] if k == oc.OK_REG else r
                M.si[row, l] = sext(v, n) if signed else zext(v, n)
        return
    for l in range(32):
        if (mask >> l) & 1:
            M.si[row, l] = ival(P, M, i, s, w, l, ty)


@njit
def prmt_mode(src, mode, s):
    """prmt.b32.{f4e,b4e,rc8,ecl,ecr,rc16} (opcodes.PRMT): the source byte for each result byte,
    from the 8 bytes {b, a} and the selector's two low bits s (PTX ISA table)."""
    r = np.int64(0)
    for k in range(4):
        if mode == 1:                       # f4e: forward 4 extract
            sel = (s + k) & 7
        elif mode == 2:                     # b4e: backward 4 extract
            sel = (s - k) & 7
        elif mode == 3:                     # rc8: replicate byte s
            sel = s
        elif mode == 4:                     # ecl: edge clamp left
            sel = max(k, s)
        elif mode == 5:                     # ecr: edge clamp right
            sel = min(k, s)
        else:                               # rc16: replicate half-word s & 1
            sel = 2 * (s & 1) + (k & 1)
        r |= ((src >> (8 * sel)) & 0xFF) << (8 * k)
    return r


@njit
def ult(a, b):
    """Unsigned 64-bit a < b."""
    return (a ^ MIN64) < (b ^ MIN64)


@njit
def udiv(a, b, n):
    if n == 8:
        return np.int64(np.uint64(a) // np.uint64(b))
    return a // b


@njit
def sdiv(a, b):
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


@njit(no_cpython_wrapper=True)
def exec_int(P, M, i, w, mask):
    op = P.ins[i, oc.F_OP]
    ty = P.ins[i, oc.F_TYPE]
    fl = P.ins[i, oc.F_FLAGS]
    n = P.tsize[ty]
    kind = P.tkind[ty]
    signed = kind == K_SINT
    nsrc = P.ins[i, oc.F_NSRC]
    A, B, C = M.si[0], M.si[1], M.si[2]
    gather(P, M, i, oc.S0, w, mask, ty, 0)
    if nsrc > 1:
        # shift counts and bit positions are u32 (type code 8)
        gather(P, M, i, oc.S0 + 1, w, mask, 8 if (op == OP_SHL or op == OP_SHR or op == OP_BFE) else ty, 1)
    if nsrc > 2:
        wide_c = (op == OP_MAD) and (fl & oc.FL_WIDE) != 0
        gather(P, M, i, oc.S0 + 2, w, mask, ty if (op != OP_BFE and op != OP_BFI) else 8, 2)
        if wide_c:
            for l in range(32):
                if (mask >> l) & 1:
                    C[l] = M.R[w, P.opv[i, oc.S0 + 2], l] if P.opk[i, oc.S0 + 2] == oc.OK_REG else P.opv[
                        i, oc.S0 + 2]
    if nsrc > 3:
        gather(P, M, i, oc.S0 + 3, w, mask, 8, 3)
    D = M.si[3] if nsrc <= 3 else M.si[0]
    outn = n
    if op == OP_ADD:
        for l in range(32):
            D[l] = A[l] + B[l]
    elif op == OP_SUB:
        for l in range(32):
            D[l] = A[l] - B[l]
    elif op == OP_MUL or op == OP_MAD:
        if fl & oc.FL_WIDE:
            outn = 2 * n
            for l in range(32):
                D[l] = A[l] * B[l]
        elif fl & oc.FL_HI:
            for l in range(32):
                if n == 8:
                    D[l] = smulhi64(A[l], B[l]) if signed else umulhi64(A[l], B[l])
                else:
                    D[l] = (A[l] * B[l]) >> (8 * n)
        else:
            for l in range(32):
                D[l] = A[l] * B[l]
        if op == OP_MAD:
            for l in range(32):
                D[l] = D[l] + C[l]
    elif op == OP_MUL24 or op == OP_MAD24:
        for l in range(32):
            a24 = sext(A[l], 3) if signed else zext(A[l], 3)
            b24 = sext(B[l], 3) if signed else zext(B[l], 3)
            p = a24 * b24
            D[l] = (p >> 16) if (fl & oc.FL_HI) else p
            if op == OP_MAD24:
                D[l] += C[l]
    elif op == OP_DIV or op == OP_REM:
        for l in range(32):
            if not (mask >> l) & 1:
                continue
            a, b = A[l], B[l]
            if b == 0:
                D[l] = -1 if op == OP_DIV else a
            elif signed:
                q = sdiv(a, b)
                D[l] = q if op == OP_DIV else a - q * b
            else:
                q = udiv(a, b, n)
                D[l] = q if op == OP_DIV else a - q * b
    elif op == OP_ABS:
        for l in range(32):
            D[l] = abs(A[l])
    elif op == OP_NEG:
        for l in range(32):
            D[l] = -A[l]
    elif op == OP_MIN or op == OP_MAX:
        for l in range(32):
            a, b = A[l], B[l]
            less = ult(a, b) if (kind == K_UINT and n == 8) else a < b
            D[l] = (a if less else b) if op == OP_MIN else (b if less else a)
    elif op == OP_AND:
        for l in range(32):
            D[l] = A[l] & B[l]
    elif op == OP_OR:
        for l in range(32):
            D[l] = A[l] | B[l]
    elif op == OP_XOR:
        for l in range(32):
            D[l] = A[l] ^ B[l]
    elif op == OP_NOT:
        for l in range(32):
            D[l] = (1 - (A[l] & 1)) if P.tkind[ty] == 4 else ~A[l]
    elif op == OP_CNOT:
        for l in range(32):
            D[l] = 1 if A[l] == 0 else 0
    elif op == OP_SHL:
        for l in range(32):
            sh = B[l] & 0xFFFFFFFF
            D[l] = 0 if sh >= 8 * n else A[l] << sh
    elif op == OP_SHR:
        for l in range(32):
            sh = B[l] & 0xFFFFFFFF
            if signed:
                D[l] = A[l] >> min(sh, 63)
            elif sh >= 8 * n:
                D[l] = 0
            elif n == 8:
                D[l] = np.int64(np.uint64(A[l]) >> np.uint64(sh))
            else:
                D[l] = A[l] >> sh
    elif op == OP_POPC or op == OP_CLZ or op == OP_BREV:
        for l in range(32):
            if op == OP_POPC:
                D[l] = popc64(zext(A[l], n))
            elif op == OP_CLZ:
                D[l] = clz(A[l], 8 * n)
            else:
                D[l] = brev(A[l], 8 * n)
        if op != OP_BREV:
            outn = 4
    elif op == OP_BFE:
        for l in range(32):
            pos, ln = B[l] & 0xFF, C[l] & 0xFF
            nb = 8 * n
            if ln == 0:
                D[l] = 0
                continue
            if pos >= nb:
                v = (A[l] >> (nb - 1)) if signed else np.int64(0)
            elif signed:
                v = A[l] >> pos
            else:
                v = np.int64(np.uint64(A[l]) >> np.uint64(pos))
            if ln >= 64:
                D[l] = v
            elif signed:
                top = min(pos + ln - 1, nb - 1)
                sbit = (A[l] >> top) & 1
                r = v & ((np.int64(1) << ln) - 1)
                D[l] = r | (~((np.int64(1) << ln) - 1)) if sbit else r
            else:
                D[l] = v & ((np.int64(1) << ln) - 1)
    elif op == OP_BFI:
        P3 = M.si[3]
        for l in range(32):
            pos, ln = C[l] & 0xFF, P3[l] & 0xFF
            if ln == 0 or pos >= 8 * n:
                D[l] = B[l]
            else:
                fm = np.int64(-1) if ln >= 64 else (np.int64(1) << ln) - 1
                msk = fm << pos
                D[l] = (B[l] & ~msk) | ((A[l] << pos) & msk)
    elif op == OP_PRMT:
        mode = P.ins[i, oc.F_MOD]
        for l in range(32):
            src = (zext(B[l], 4) << 32) | zext(A[l], 4)
            r = np.int64(0)
            if mode != 0:
                D[l] = prmt_mode(src, mode, C[l] & 3)
                continue
            for k in range(4):
                sel = (C[l] >> (4 * k)) & 0xF
                byte = (src >> (8 * (sel & 7))) & 0xFF
                if sel & 8:
                    byte = 0xFF if byte & 0x80 else 0
                r |= byte << (8 * k)
            D[l] = r
    elif op == OP_BFIND:
        for l in range(32):
            v = A[l]
            if signed and v < 0:
                v = ~v
            v = zext(v, n)
            pos = -1
            for k in range(8 * n - 1, -1, -1):
                if (v >> k) & 1:
                    pos = k
                    break
            if pos >= 0 and fl & oc.FL_SHIFTAMT:
                pos = 8 * n - 1 - pos       # the left shift that brings the bit to the top
            D[l] = pos
        outn = 4
    elif op == OP_SHF:
        left = P.ins[i, oc.F_MOD] == 0
        for l in range(32):
            sh = C[l] & 0xFFFFFFFF
            sh = min(sh, 32) if fl & oc.FL_CLAMP else sh & 31
            v = np.uint64((zext(B[l], 4) << 32) | zext(A[l], 4))      # {b:a}, 64 bits
            if left:
                D[l] = np.int64((v << np.uint64(sh)) >> np.uint64(32))
            else:
                D[l] = np.int64(v >> np.uint64(sh))
        outn = 4
    if fl & oc.FL_SAT:      # add.sat.s32, sub.sat.s32, mad.hi.sat.s32 (decode admits no other)
        for l in range(32):
            D[l] = min(max(D[l], np.int64(-2147483648)), np.int64(2147483647))
    if P.opk[i, oc.D0] == oc.OK_REG:
        r = P.opv[i, oc.D0]
        for l in range(32):
            if (mask >> l) & 1:
                M.R[w, r, l] = zext(D[l], outn)
    else:
        for l in range(32):
            if (mask >> l) & 1:
                put_int(P, M, i, oc.D0, w, l, D[l], _width_type(outn, ty))


@njit
def _width_type(outn, ty):
    # destination written with the width of the result: b16 / b32 / b64 codes
    if outn == 1:
        return 1
    if outn == 2:
        return 2
    if outn == 4:
        return 3
    return 4


@njit(no_cpython_wrapper=True)
def exec_mov_halves(P, M, i, w, mask):
    """mov.b128 (decoded by isa/b128.py): destination slot k <- source slot k, for both 64-bit halves."""
    for l in range(32):
        if (mask >> l) & 1:
            put(P, M, i, oc.D0, w, l, bits(P, M, i, oc.S0, w, l))
            put(P, M, i, oc.D0 + 1, w, l, bits(P, M, i, oc.S0 + 1, w, l))


@njit
def _lane_field(x, pos, width, signed):
    v = (x >> pos) & ((1 << width) - 1)
    if signed and v >= 1 << (width - 1):
        v -= 1 << width
    return v


@njit(no_cpython_wrapper=True)
def exec_dot(P, M, i, w, mask, two):
    """dp4a.atype.btype d, a, b, c: c + the dot product of a's and b's four bytes; dp2a.lo/.hi: c + a's
    two 16-bit halves times b's bytes 0-1 (.lo) or 2-3 (.hi). Elements are signed where their type is
    .s32; the sum wraps to 32 bits."""
    sa = P.tkind[P.ins[i, oc.F_TYPE]] == K_SINT
    sb = P.tkind[P.ins[i, oc.F_TYPE2]] == K_SINT
    hi = (P.ins[i, oc.F_FLAGS] & oc.FL_HI) != 0
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        a = bits(P, M, i, oc.S0, w, l) & 0xFFFFFFFF
        b = bits(P, M, i, oc.S0 + 1, w, l) & 0xFFFFFFFF
        acc = bits(P, M, i, oc.S0 + 2, w, l)
        if two:
            first = 16 if hi else 0
            for k in range(2):
                acc += _lane_field(a, 16 * k, 16, sa) * _lane_field(b, first + 8 * k, 8, sb)
        else:
            for k in range(4):
                acc += _lane_field(a, 8 * k, 8, sa) * _lane_field(b, 8 * k, 8, sb)
        put(P, M, i, oc.D0, w, l, acc & 0xFFFFFFFF)
