"""Byte-level loads and stores into the state spaces, with bounds and alignment checks (numba).

`locate` turns (state space, address) into (space, offset) after generic-window translation and
checks; loads and stores then read little-endian bytes. Faults are written into M.err.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.spaces import (
    CLUSTER_SHIFT,
    CONST_WINDOW,
    GLOBAL_BASE,
    LOCAL_WINDOW,
    MAX_CLUSTER,
    PARAM_WINDOW,
    SHARED_WINDOW,
    SMEM_OFFSET_MASK,
    WINDOW_SIZE,
)
from gpusim.jit import njit

CL_SIZE = MAX_CLUSTER      # sm/state.py Mach.clslot: column CL_SIZE holds the cluster's size


@njit(no_cpython_wrapper=True)
def fault(M, code, w, l, pc, addr, size, space):
    if M.err[0] == 0:
        M.err[oc.EW_CODE] = code
        M.err[oc.EW_WARP] = w
        M.err[oc.EW_LANE] = l
        M.err[oc.EW_PC] = pc
        M.err[oc.EW_ADDR] = addr
        M.err[oc.EW_SIZE] = size
        M.err[oc.EW_SPACE] = space
        M.err[oc.EW_CTA] = M.wcta[w]


@njit(no_cpython_wrapper=True, inline="always")
def locate(M, space, addr, size, w, l, pc):
    """-> (space, offset) with space resolved from generic; (-1, 0) after recording a fault."""
    sp = space
    a = addr
    if sp == oc.SP_GENERIC:
        if SHARED_WINDOW <= a < SHARED_WINDOW + WINDOW_SIZE:
            sp = oc.SP_SHARED
            a -= SHARED_WINDOW
        elif LOCAL_WINDOW <= a < LOCAL_WINDOW + WINDOW_SIZE:
            sp = oc.SP_LOCAL
            a -= LOCAL_WINDOW
        elif CONST_WINDOW <= a < CONST_WINDOW + WINDOW_SIZE:
            sp = oc.SP_CONST
            a -= CONST_WINDOW
        elif PARAM_WINDOW <= a < PARAM_WINDOW + WINDOW_SIZE:
            sp = oc.SP_PARAM
            a -= PARAM_WINDOW
        else:
            sp = oc.SP_GLOBAL
    if a & (size - 1) != 0:     # sizes are powers of two
        fault(M, oc.E_MISALIGNED, w, l, pc, addr, size, sp)
        return -1, 0
    if sp == oc.SP_GLOBAL:
        for k in range(M.alo.shape[0]):
            if M.alo[k] <= a and a + size <= M.ahi[k]:
                return sp, a - GLOBAL_BASE
        fault(M, oc.E_OOB, w, l, pc, addr, size, sp)
        return -1, 0
    if sp == oc.SP_SHARED:
        lim = M.smem.shape[1]
        rank = (a >> CLUSTER_SHIFT) - 1
        if rank >= 0:      # another CTA of the cluster (distributed shared memory)
            if rank >= M.clslot[M.wcta[w], CL_SIZE]:
                fault(M, oc.E_OOB, w, l, pc, addr, size, sp)
                return -1, 0
            if (a & SMEM_OFFSET_MASK) + size > lim:
                fault(M, oc.E_OOB, w, l, pc, addr, size, sp)
                return -1, 0
            return sp, a
    elif sp == oc.SP_LOCAL:
        lim = M.lmem.shape[2]
    elif sp == oc.SP_CONST:
        lim = M.cmem.shape[0]
    else:
        lim = M.pmem.shape[0]
    if a < 0 or a + size > lim:
        fault(M, oc.E_OOB, w, l, pc, addr, size, sp)
        return -1, 0
    return sp, a


@njit
def _rd(buf, off, size):
    v = np.int64(0)
    for k in range(size):
        v |= np.int64(buf[off + k]) << (8 * k)
    return v


@njit
def _wr(buf, off, size, v):
    for k in range(size):
        buf[off + k] = np.uint8((v >> (8 * k)) & 0xFF)


@njit(no_cpython_wrapper=True, inline="always")
def smem_slot(M, w, off):
    """(CTA slot, offset) of a located shared offset: the warp's own CTA, or the cluster rank it names."""
    rank = (off >> CLUSTER_SHIFT) - 1
    if rank < 0:
        return M.wcta[w], off
    return M.clslot[M.wcta[w], rank], off & SMEM_OFFSET_MASK


@njit(no_cpython_wrapper=True, inline="always")
def load(M, sp, off, size, w, l):
    v = np.int64(0)
    if sp == oc.SP_GLOBAL:
        for k in range(size):
            v |= np.int64(M.gmem[off + k]) << (8 * k)
    elif sp == oc.SP_SHARED:
        c, o = smem_slot(M, w, off)
        for k in range(size):
            v |= np.int64(M.smem[c, o + k]) << (8 * k)
    elif sp == oc.SP_LOCAL:
        for k in range(size):
            v |= np.int64(M.lmem[w, l, off + k]) << (8 * k)
    elif sp == oc.SP_CONST:
        v = _rd(M.cmem, off, size)
    else:
        v = _rd(M.pmem, off, size)
    return v


@njit(no_cpython_wrapper=True, inline="always")
def store(M, sp, off, size, w, l, v):
    if sp == oc.SP_GLOBAL:
        for k in range(size):
            M.gmem[off + k] = np.uint8((v >> (8 * k)) & 0xFF)
    elif sp == oc.SP_SHARED:
        c, o = smem_slot(M, w, off)
        for k in range(size):
            M.smem[c, o + k] = np.uint8((v >> (8 * k)) & 0xFF)
    elif sp == oc.SP_LOCAL:
        for k in range(size):
            M.lmem[w, l, off + k] = np.uint8((v >> (8 * k)) & 0xFF)
    else:
        _wr(M.pmem, off, size, v)
