"""Carry chains: add.cc, addc{.cc}, sub.cc, subc{.cc}, mad{.hi,.lo}.cc, madc{.hi,.lo}{.cc} (numba).

The carry flag CC.CF is per thread. The decoder gives every carry instruction a hidden predicate-like
register for it (isa/opcodes.py CC_REG), read through source slot S_CC (addc, subc, madc: the carry
in) and written through destination slot D_CC (.cc: the carry out), so warp init clears it with the
other registers and the timing scoreboard orders a chain like any register dependency.

add.cc d = a + b, CF = carry out; addc d = a + b + CF; mad.cc d = (a * b).lo/.hi + c, CF = carry out
of that addition; madc d = (a * b).lo/.hi + c + CF. Subtraction is addition of the complement, as the
hardware does it: sub.cc d = a + ~b + 1 and subc d = a + ~b + CF, CF = carry out, which is 1 when
there is NO borrow. The PTX ISA text words it as a borrow (subc d = a - (b + CF)); the two agree on
every sub.cc/subc chain, and differ only where a chain mixes additions and subtractions, where nvcc's
own code relies on the carry form (its __int128 division reads a subtraction's CF with addc: a
borrow reading gives wrong quotients; tests/isa/test_isa_b128.py checks it against Python). Carries
are those of the unsigned n-bit addition whatever the signedness of the type (the bits are the same).
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import smulhi64, umulhi64, zext
from gpusim.isa.types import K_SINT
from gpusim.jit import njit
from gpusim.sm.alu_int import gather, ult
from gpusim.sm.operands import put_int

OP_SUB, OP_SUBC, OP_MAD, OP_MADC = oc.OP["sub"], oc.OP["subc"], oc.OP["mad"], oc.OP["madc"]
ONES = np.int64(-1)


@njit
def add_carry(x, y, cin, n):
    """(x + y + cin) mod 2^(8n) and its carry out; x, y zero-extended n-byte values, cin 0/1."""
    if n < 8:
        s = x + y + cin
        return zext(s, n), (s >> (8 * n)) & 1
    s1 = x + y
    s2 = s1 + cin
    return s2, 1 if (ult(s1, x) or ult(s2, s1)) else 0


@njit
def _product(a, b, n, hi, signed):
    if not hi:
        return a * b
    if n == 8:
        return smulhi64(a, b) if signed else umulhi64(a, b)
    return (a * b) >> (8 * n)


@njit(no_cpython_wrapper=True)
def exec_carry(P, M, i, w, mask):
    op = P.ins[i, oc.F_OP]
    ty = P.ins[i, oc.F_TYPE]
    n = P.tsize[ty]
    signed = P.tkind[ty] == K_SINT
    hi = (P.ins[i, oc.F_FLAGS] & oc.FL_HI) != 0
    is_mad = op == OP_MAD or op == OP_MADC
    is_sub = op == OP_SUB or op == OP_SUBC
    gather(P, M, i, oc.S0, w, mask, ty, 0)
    gather(P, M, i, oc.S0 + 1, w, mask, ty, 1)
    if is_mad:
        gather(P, M, i, oc.S0 + 2, w, mask, ty, 2)
    A, B, C = M.si[0], M.si[1], M.si[2]
    cin_reg = P.opv[i, oc.S_CC] if P.opk[i, oc.S_CC] == oc.OK_REG else -1
    cout_reg = P.opv[i, oc.D_CC] if P.opk[i, oc.D_CC] == oc.OK_REG else -1
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        cin = M.R[w, cin_reg, l] & 1 if cin_reg >= 0 else 0
        x, y = A[l], B[l]
        if is_mad:
            x, y = _product(A[l], B[l], n, hi, signed), C[l]
        x, y = zext(x, n), zext(y, n)
        if is_sub:                  # a - b = a + ~b + 1; subc: a + ~b + CF
            y = zext(y ^ ONES, n)
            if op == OP_SUB:
                cin = 1
        d, c = add_carry(x, y, cin, n)
        put_int(P, M, i, oc.D0, w, l, d, ty)
        if cout_reg >= 0:
            M.R[w, cout_reg, l] = c
