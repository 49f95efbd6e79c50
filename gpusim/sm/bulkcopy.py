"""cp.async.bulk (non-tensor) copies between global and shared memory (numba), functional part.

Each active lane issues its own copy of `size` bytes (a multiple of 16, both addresses 16-byte
aligned, as the ISA requires; otherwise a misaligned-address fault). The copy happens at issue:
global -> shared then performs complete_tx(size) on the lane's mbarrier (mbarrier.py), shared ->
global belongs to the warp's current bulk group, whose commit/wait have nothing left to wait for in
functional mode. The timing model (asyncops.py) times the copies on the SM's TMA unit; for it the
executor leaves the bytes copied by the instruction in tr_info[TI_SIZE] and the shared offset of the
first lane's mbarrier in tr_addr[0] (-1: none).
"""
from __future__ import annotations

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.memory.access import fault, load, locate, store
from gpusim.sm.mbarrier import complete_tx, mbar_offset
from gpusim.sm.memops import address
from gpusim.sm.operands import bits
from gpusim.sm.state import TI_MASK, TI_SIZE

G2S, S2G = oc.CPBULK["g2s"], oc.CPBULK["s2g"]


@njit(no_cpython_wrapper=True)
def _copy(M, dsp, dst, ssp, src, size, w, l, pc):
    """Copy size bytes in 16-byte chunks; False after recording a fault."""
    if size & 15 or dst & 15 or src & 15:
        fault(M, oc.E_MISALIGNED, w, l, pc, dst if dst & 15 else src, size, dsp)
        return False
    for k in range(0, size, 16):
        s_sp, s_off = locate(M, ssp, src + k, 16, w, l, pc)
        if s_sp < 0:
            return False
        d_sp, d_off = locate(M, dsp, dst + k, 16, w, l, pc)
        if d_sp < 0:
            return False
        for h in range(2):
            store(M, d_sp, d_off + 8 * h, 8, w, l, load(M, s_sp, s_off + 8 * h, 8, w, l))
    return True


@njit(no_cpython_wrapper=True)
def exec_cpbulk(P, M, i, w, emask, pc):
    """One cp.async.bulk instruction for the lanes of emask (M: MemLanes)."""
    sub = P.ins[i, oc.F_MOD]
    M.tr_info[TI_SIZE] = 0
    M.tr_info[TI_MASK] = 0
    M.tr_addr[0] = -1
    if sub != G2S and sub != S2G:
        return
    total = 0
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        dst = address(P, M, i, oc.S0, w, l)
        src = address(P, M, i, oc.S0 + 1, w, l)
        size = bits(P, M, i, oc.S0 + 2, w, l) & 0xFFFFFFFF
        if sub == G2S:
            if not _copy(M, oc.SP_SHARED, dst, oc.SP_GLOBAL, src, size, w, l, pc):
                return
            off = mbar_offset(M, oc.SP_SHARED, address(P, M, i, oc.S0 + 3, w, l), w, l, pc)
            if off < 0:
                return
            complete_tx(M, off, w, size)
            if M.tr_addr[0] < 0:
                M.tr_addr[0] = off
        elif not _copy(M, oc.SP_GLOBAL, dst, oc.SP_SHARED, src, size, w, l, pc):
            return
        total += size
    M.tr_info[TI_SIZE] = total
