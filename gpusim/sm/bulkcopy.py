"""cp.async.bulk (non-tensor) copies between global and shared memory (numba), functional part.

Each active lane issues its own copy of `size` bytes (a multiple of 16, both addresses 16-byte
aligned, as the ISA requires; otherwise a misaligned-address fault). The copy happens at issue:
global -> shared then performs complete_tx(size) on the lane's mbarrier (mbarrier.py), shared ->
global belongs to the warp's current bulk group, whose commit/wait have nothing left to wait for in
functional mode. The timing model (asyncops.py) times the copies on the SM's TMA unit; for it the
executor leaves the bytes copied by the instruction in tr_info[TI_SIZE], the shared offset of the
first lane's mbarrier in tr_addr[0] (-1: none) and the global offset of the first byte copied in
tr_addr[1] (-1: none; the timing model requests the copy's bytes from there on, contiguously).

Tensor copies (cp.async.bulk.tensor.Nd .tile, tensor maps laid out by gpusim/tma.py): the box at
coordinates (c0, .., c_{N-1}) (signed), ceil(box_d / elementStride_d) elements along dim d at
c_d + j * elementStride_d, is dense in shared memory, dim 0 innermost; with a swizzle, each element's
shared address goes through the same XOR as wgmma's descriptors (wgmma.py `swizzle_address`: 128B
bits 4-6 ^= bits 7-9, ...), so a box loaded with the 128B swizzle is a 128B-swizzled wgmma operand.
Loads fill elements outside the tensor (any coordinate < 0 or >= its dim) with zeros and always
count the whole box's bytes towards complete_tx; stores skip them. A tensor map without gpusim's
magic number faults (out-of-bounds at the tensor map's address).
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.spaces import CLUSTER_SHIFT, GLOBAL_BASE, SMEM_OFFSET_MASK
from gpusim.jit import njit
from gpusim.memory.access import fault, load, locate, store
from gpusim.sm.mbarrier import complete_tx, mbar_offset
from gpusim.sm.memops import address
from gpusim.sm.operands import bits
from gpusim.sm.state import TI_MASK, TI_SIZE
from gpusim.sm.wgmma import swizzle_address
from gpusim.tma import MAGIC, O_BOX, O_DIMS, O_ESIZE, O_ESTRIDES, O_MAGIC, O_STRIDES, O_SWIZZLE

G2S, S2G, S2S = oc.CPBULK["g2s"], oc.CPBULK["s2g"], oc.CPBULK["s2s"]
TG2S, TS2G = oc.CPBULK["tensor_g2s"], oc.CPBULK["tensor_s2g"]


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
    M.tr_addr[1] = -1
    if sub == TG2S or sub == TS2G:
        _tensor_copies(P, M, i, w, emask, pc, sub == TG2S)
        return
    if sub != G2S and sub != S2G and sub != S2S:
        return
    multicast = P.ins[i, oc.F_MOD2] & oc.CB_MULTICAST
    total = 0
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        dst = address(P, M, i, oc.S0, w, l)
        src = address(P, M, i, oc.S0 + 1, w, l)
        size = bits(P, M, i, oc.S0 + 2, w, l) & 0xFFFFFFFF
        if M.tr_addr[1] < 0 and sub != S2S:
            M.tr_addr[1] = (src if sub == G2S else dst) - GLOBAL_BASE
        if sub == G2S or sub == S2S:
            mask = bits(P, M, i, oc.S0 + 4, w, l) & 0xFFFF if multicast else 0
            mbar = address(P, M, i, oc.S0 + 3, w, l)
            for r in range(-1 if mask == 0 else 0, 16):     # r = -1: the addresses as given
                if r >= 0 and not (mask >> r) & 1:
                    continue
                if not _copy(M, oc.SP_SHARED, rank_address(dst, r), oc.SP_GLOBAL if sub == G2S else oc.SP_SHARED,
                             src, size, w, l, pc):
                    return
                off = mbar_offset(M, oc.SP_SHARED, rank_address(mbar, r), w, l, pc)
                if off < 0:
                    return
                complete_tx(M, off, w, size)
                if M.tr_addr[0] < 0:
                    M.tr_addr[0] = off
                if mask == 0:
                    break
        elif not _copy(M, oc.SP_GLOBAL, dst, oc.SP_SHARED, src, size, w, l, pc):
            return
        total += size
    M.tr_info[TI_SIZE] = total


@njit(no_cpython_wrapper=True, inline="always")
def rank_address(a, rank):
    """A .shared::cluster address moved to the same offset in the CTA of `rank` (-1: a as it is):
    where a multicast copy writes for each CTA of its ctaMask."""
    if rank < 0:
        return a
    return ((rank + 1) << CLUSTER_SHIFT) | (a & SMEM_OFFSET_MASK)


@njit(no_cpython_wrapper=True)
def _map_field(M, sp, off, at, size, w, l):
    v = load(M, sp, off + at, size, w, l)
    return v


@njit(no_cpython_wrapper=True)
def _tensor_copies(P, M, i, w, emask, pc, is_load):
    total = 0
    multicast = is_load and P.ins[i, oc.F_MOD2] & oc.CB_MULTICAST
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        mask = bits(P, M, i, oc.S0 + 3, w, l) & 0xFFFF if multicast else 0
        counted = False
        for r in range(-1 if mask == 0 else 0, 16):       # each CTA of a multicast's ctaMask
            if r >= 0 and not (mask >> r) & 1:
                continue
            n = _tensor_copy(P, M, i, w, l, pc, is_load, r)
            if n < 0:
                return
            if not counted:
                total += n              # the bytes leave the L2 once, however many CTAs receive them
                counted = True
            if mask == 0:
                break
    M.tr_info[TI_SIZE] = total


@njit(no_cpython_wrapper=True)
def _tensor_copy(P, M, i, w, l, pc, is_load, cta_rank):
    """One lane's tensor copy (into the CTA of rank `cta_rank` for a multicast; -1: as addressed); its box
    bytes, or -1 after a fault."""
    row = P.ins[i, oc.F_TARGET]
    rank = P.vlist[row, 0]
    ta = address(P, M, i, oc.S0 + 1, w, l)
    sp, off = locate(M, P.vlist[row, 1], ta, 64, w, l, pc)
    if sp < 0:
        return -1
    if locate(M, P.vlist[row, 1], ta + 64, 64, w, l, pc)[0] < 0:      # all 128 bytes in bounds
        return -1
    if _map_field(M, sp, off, O_MAGIC, 4, w, l) != MAGIC:
        fault(M, oc.E_OOB, w, l, pc, ta, 128, sp)
        return -1
    gbase = _map_field(M, sp, off, 0, 8, w, l)
    esize = _map_field(M, sp, off, O_ESIZE, 1, w, l)
    swz = _map_field(M, sp, off, O_SWIZZLE, 1, w, l)
    width = 0 if swz == 0 else (16 << swz)
    smem = rank_address(address(P, M, i, oc.S0, w, l), cta_rank)
    if smem & 15:
        fault(M, oc.E_MISALIGNED, w, l, pc, smem, 16, oc.SP_SHARED)
        return -1
    count = np.int64(1)
    for d in range(rank):
        box = _map_field(M, sp, off, O_BOX + 2 * d, 2, w, l)
        es = _map_field(M, sp, off, O_ESTRIDES + d, 1, w, l)
        count *= (box + es - 1) // es
    for e in range(count):
        rest = e
        inside = True
        g = gbase
        for d in range(rank):
            box = _map_field(M, sp, off, O_BOX + 2 * d, 2, w, l)
            es = _map_field(M, sp, off, O_ESTRIDES + d, 1, w, l)
            n = (box + es - 1) // es
            j = rest % n
            rest //= n
            kind, v = P.vlist[row, 2 + 2 * d], P.vlist[row, 3 + 2 * d]
            c = v if kind == oc.OK_IMM else M.R[w, v, l]
            c = ((c & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000          # .s32 coordinate
            x = c + j * es
            if x < 0 or x >= _map_field(M, sp, off, O_DIMS + 4 * d, 4, w, l):
                inside = False
            stride = esize if d == 0 else _map_field(M, sp, off, O_STRIDES + 8 * (d - 1), 8, w, l)
            g += x * stride
        s = smem + e * esize
        if width:
            s = swizzle_address(s, width)
        s_sp, s_off = locate(M, oc.SP_SHARED, s, esize, w, l, pc)
        if s_sp < 0:
            return -1
        if is_load:
            v = np.int64(0)
            if inside:
                g_sp, g_off = locate(M, oc.SP_GLOBAL, g, esize, w, l, pc)
                if g_sp < 0:
                    return -1
                if M.tr_addr[1] < 0:
                    M.tr_addr[1] = g_off
                v = load(M, g_sp, g_off, esize, w, l)
            store(M, s_sp, s_off, esize, w, l, v)
        elif inside:
            g_sp, g_off = locate(M, oc.SP_GLOBAL, g, esize, w, l, pc)
            if g_sp < 0:
                return -1
            if M.tr_addr[1] < 0:
                M.tr_addr[1] = g_off
            store(M, g_sp, g_off, esize, w, l, load(M, s_sp, s_off, esize, w, l))
    nbytes = count * esize
    if is_load:
        moff = mbar_offset(M, oc.SP_SHARED, rank_address(address(P, M, i, oc.S0 + 2, w, l), cta_rank), w, l, pc)
        if moff < 0:
            return -1
        complete_tx(M, moff, w, nbytes)
        if M.tr_addr[0] < 0:
            M.tr_addr[0] = moff
    return nbytes
