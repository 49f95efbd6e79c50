"""cp.async: copies from global to shared memory that bypass the registers (numba).

Functionally a copy completes when it issues: its bytes are in shared memory at once, so
`cp.async.commit_group` / `wait_group` / `wait_all` change nothing (a program that reads the data
before waiting sees it early, where the GPU could show stale data: PTX leaves that undefined).
The timing model (sm/copygroups.py, timing/core.py) times the global read through the LSU
(and the L1 for .ca; .cg goes to the L2) and holds a warp at `wait_group N` until all but its
newest N committed groups have landed.

Each lane copies cp-size bytes (4, 8 or 16) from [src] to [dst]. With a src-size operand only
the first src-size bytes are read and the rest of the cp-size bytes are zero; with an ignore-src
predicate that is true, all cp-size bytes are zero. The cache-policy operand is accepted and unused.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.memory.access import fault, load, locate, store
from gpusim.sm.memops import address
from gpusim.sm.operands import bits
from gpusim.sm.state import TI_ATOM, TI_MASK, TI_NVEC, TI_PAST_L1, TI_SIZE, TI_SPACE, TI_STORE

OPT_SRC_SIZE, OPT_IGNORE_SRC = 1, 2


@njit(no_cpython_wrapper=True)
def _read_size(P, M, i, w, l, size):
    opt = P.ins[i, oc.F_VEC]
    if opt == OPT_SRC_SIZE:
        return min(bits(P, M, i, oc.S0 + 3, w, l) & 0xFFFFFFFF, size)
    if opt == OPT_IGNORE_SRC and bits(P, M, i, oc.S0 + 3, w, l) & 1:
        return 0
    return size


@njit(no_cpython_wrapper=True)
def exec_cp_async(P, M, i, w, mask, pc):
    """The copy of every lane in `mask`; commit_group / wait_group / wait_all do nothing here."""
    M.tr_info[TI_MASK] = 0
    if P.ins[i, oc.F_MOD] != oc.CP_COPY:
        return
    size = bits(P, M, i, oc.S0 + 2, w, 0)
    reads = np.int64(0)
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        sd, od = locate(M, oc.SP_SHARED, address(P, M, i, oc.S0, w, l), size, w, l, pc)
        if sd < 0:
            return
        n = _read_size(P, M, i, w, l, size)
        os_ = np.int64(0)
        src = address(P, M, i, oc.S0 + 1, w, l)
        if n > 0:
            if src & (size - 1):
                fault(M, oc.E_MISALIGNED, w, l, pc, src, size, oc.SP_GLOBAL)
                return
            ss, os_ = locate(M, oc.SP_GLOBAL, src, 1, w, l, pc)
            if ss < 0 or locate(M, oc.SP_GLOBAL, src + n - 1, 1, w, l, pc)[0] < 0:
                return
            reads |= np.int64(1) << l
            M.tr_addr[l] = os_
        for k in range(size):
            v = load(M, oc.SP_GLOBAL, os_ + k, 1, w, l) if k < n else 0
            store(M, oc.SP_SHARED, od + k, 1, w, l, v)
    M.tr_info[TI_SPACE] = oc.SP_GLOBAL
    M.tr_info[TI_SIZE] = size
    M.tr_info[TI_MASK] = reads
    M.tr_info[TI_STORE] = 0
    M.tr_info[TI_NVEC] = 1
    M.tr_info[TI_ATOM] = 0
    M.tr_info[TI_PAST_L1] = P.ins[i, oc.F_MOD2]         # 0: .ca, 1: .cg (cached in the L2 only)
