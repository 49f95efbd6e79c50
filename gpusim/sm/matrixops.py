"""ldmatrix / stmatrix .m8n8 .b16: warp-wide loads and stores of 8x8 matrices of 16-bit elements (numba).

For .xN (N = 1, 2, 4 matrices), lanes 8j..8j+7 give the shared-memory addresses of rows 0..7 of
matrix j (16 bytes each, 16-byte aligned). In the registers, lane l holds in its register j the
elements (row l/4, columns 2(l%4) and 2(l%4)+1) of matrix j, the lower column in the low half;
with .trans, those of the transposed matrix (rows 2(l%4) and 2(l%4)+1, column l/4). Every
address lane's row is read (or written), whatever the active mask (the instructions are .aligned:
the whole warp executes them); the lanes in the mask receive registers (ldmatrix).
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.memory.access import fault, load, locate, store
from gpusim.sm.memops import address
from gpusim.sm.operands import bits, put
from gpusim.sm.state import TI_ATOM, TI_MASK, TI_NVEC, TI_PAST_L1, TI_SIZE, TI_SPACE, TI_STORE


@njit(no_cpython_wrapper=True)
def _trace(M, sp, nmat, is_store):
    M.tr_info[TI_SPACE] = sp
    M.tr_info[TI_SIZE] = 16
    M.tr_info[TI_MASK] = (np.int64(1) << (8 * nmat)) - 1
    M.tr_info[TI_STORE] = is_store
    M.tr_info[TI_NVEC] = 1
    M.tr_info[TI_ATOM] = 0
    M.tr_info[TI_PAST_L1] = 0


@njit(no_cpython_wrapper=True, inline="always")
def _element_lane(l, k, trans):
    """(row, column) of the k-th (0: low half, 1: high half) element of lane l's register."""
    if trans:
        return 2 * (l & 3) + k, l >> 2
    return l >> 2, 2 * (l & 3) + k


@njit(no_cpython_wrapper=True)
def _row_address(P, M, i, w, a, pc, space, rows):
    """The shared offset of the row address lane `a` gives, into rows[a]; False after a fault (misaligned,
    out of bounds, or a generic address outside the shared window)."""
    addr = address(P, M, i, oc.S0, w, a)
    sp, off = locate(M, space, addr, 16, w, a, pc)
    if sp < 0:
        return False
    if sp != oc.SP_SHARED:
        fault(M, oc.E_OOB, w, a, pc, addr, 16, oc.SP_SHARED)
        return False
    rows[a] = off
    M.tr_addr[a] = off
    return True


@njit(no_cpython_wrapper=True)
def exec_ldmatrix(P, M, i, w, mask, pc):
    nmat = P.ins[i, oc.F_VEC]
    trans = (P.ins[i, oc.F_FLAGS] & oc.FL_TRANS) != 0
    space = P.ins[i, oc.F_SPACE]
    rows = M.si[0]          # per address lane, the shared offset of its row
    sp = oc.SP_SHARED
    for a in range(8 * nmat):
        if not _row_address(P, M, i, w, a, pc, space, rows):
            return
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        for j in range(nmat):
            v = np.int64(0)
            for k in range(2):
                r, c = _element_lane(l, k, trans)
                v |= load(M, sp, rows[8 * j + r] + 2 * c, 2, w, l) << (16 * k)
            put(P, M, i, oc.D0 + j, w, l, v)
    _trace(M, sp, nmat, 0)


@njit(no_cpython_wrapper=True)
def exec_stmatrix(P, M, i, w, mask, pc):
    nmat = P.ins[i, oc.F_VEC]
    trans = (P.ins[i, oc.F_FLAGS] & oc.FL_TRANS) != 0
    space = P.ins[i, oc.F_SPACE]
    rows = M.si[0]
    sp = oc.SP_SHARED
    for a in range(8 * nmat):
        if not _row_address(P, M, i, w, a, pc, space, rows):
            return
    for l in range(32):
        for j in range(nmat):
            v = bits(P, M, i, oc.S0 + 1 + j, w, l)
            for k in range(2):
                r, c = _element_lane(l, k, trans)
                store(M, sp, rows[8 * j + r] + 2 * c, 2, w, l, (v >> (16 * k)) & 0xFFFF)
    _trace(M, sp, nmat, 1)
