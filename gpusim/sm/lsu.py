"""Load/store unit timing: coalescing, L1, L2 slices, DRAM channels, shared-memory banks (numba).

Called after the functional executor ran a memory instruction (its lane addresses are in M.tr_addr,
its shape in M.tr_info). Returns the cycle the destination registers become ready and updates the
LSU/MIO pipes and the cache and bandwidth state.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gpusim.isa import opcodes as oc
from gpusim.memory.cache import fill, probe
from gpusim.memory.coalescer import coalesce, count_lines
from gpusim.memory.shared_banks import wavefronts
from gpusim.sm.state import TI_ATOM, TI_MASK, TI_SIZE, TI_SPACE, TI_STORE
from gpusim.timing.state import (
    C_ATOM_LAT,
    C_ATOM_SAME,
    C_DRAM_LAT,
    C_DRAM_PAIR,
    C_L1_LAT,
    C_L2_LAT,
    C_LSU_II,
    C_NBANKS,
    C_SMEM_LAT,
    F_DRAM_BW_CH,
    F_L2_ATOM,
    F_L2_BW_SLICE,
    K_ATOM_REQ,
    K_DRAM_RD,
    K_DRAM_WR,
    K_L1_HIT,
    K_L1_LOOK,
    K_L2_HIT,
    K_L2_LOOK,
    K_LD_REQ,
    K_LD_SECT,
    K_LOCAL_SECT,
    K_SH_LD_CONF,
    K_SH_LD_REQ,
    K_SH_LD_WF,
    K_SH_ST_CONF,
    K_SH_ST_REQ,
    K_SH_ST_WF,
    K_ST_REQ,
    K_ST_SECT,
)

LOCAL_BASE = np.int64(1) << 44


@njit(cache=True, _nrt=False, error_model="numpy")
def _hash(line, n):
    h = line ^ (line >> 7) ^ (line >> 13)
    return h % n


@njit(cache=True, _nrt=False, error_model="numpy")
def dram_access(T, sector, now):
    """One 32-byte sector from HBM: channel bandwidth queue plus latency."""
    ch = _hash(sector >> 2, T.ch_free.shape[0])
    start = max(np.float64(now), T.ch_free[ch])
    T.ch_free[ch] = start + 32.0 / T.cfgf[F_DRAM_BW_CH]
    T.cnt[K_DRAM_RD] += 32
    return np.int64(start) + T.cfg[C_DRAM_LAT]


@njit(cache=True, _nrt=False, error_model="numpy")
def dram_writeback(T, sector, n, now):
    """n dirty sectors evicted from L2 (charged to the channel of the line that evicted them)."""
    if n == 0:
        return
    ch = _hash(sector >> 2, T.ch_free.shape[0])
    T.ch_free[ch] = max(np.float64(now), T.ch_free[ch]) + n * 32.0 / T.cfgf[F_DRAM_BW_CH]
    T.cnt[K_DRAM_WR] += 32 * n


@njit(cache=True, _nrt=False, error_model="numpy")
def l2_access(T, sector, now, is_write):
    """One sector at its L2 slice: returns the cycle data is back at the SM (loads)."""
    sl = _hash(sector >> 2, T.slice_free.shape[0])
    start = max(np.float64(now), T.slice_free[sl])
    T.slice_free[sl] = start + 32.0 / T.cfgf[F_L2_BW_SLICE]
    t = np.int64(start)
    T.cnt[K_L2_LOOK] += 1
    r = probe(T.l2_tag, T.l2_valid, T.l2_rdy, T.l2_lru, 0, sector, t)
    if is_write:
        ev = fill(T.l2_tag, T.l2_valid, T.l2_dirty, T.l2_rdy, T.l2_lru, 0, sector, t, t, True)
        dram_writeback(T, sector, ev, t)
        if r >= 0:
            T.cnt[K_L2_HIT] += 1
        return t + T.cfg[C_L2_LAT]
    if r >= 0:
        T.cnt[K_L2_HIT] += 1
        return max(r, t) + T.cfg[C_L2_LAT]
    done = dram_access(T, sector, t + T.cfg[C_L2_LAT] // 2)
    ev = fill(T.l2_tag, T.l2_valid, T.l2_dirty, T.l2_rdy, T.l2_lru, 0, sector, done, t, False)
    dram_writeback(T, sector, ev, t)
    if T.cfg[C_DRAM_PAIR] != 0:
        pair = sector ^ 1          # DRAM delivers 64 B: the neighbouring sector comes along
        if probe(T.l2_tag, T.l2_valid, T.l2_rdy, T.l2_lru, 0, pair, t) < 0:
            ch = _hash(sector >> 2, T.ch_free.shape[0])
            T.ch_free[ch] += 32.0 / T.cfgf[F_DRAM_BW_CH]
            T.cnt[K_DRAM_RD] += 32
            ev = fill(T.l2_tag, T.l2_valid, T.l2_dirty, T.l2_rdy, T.l2_lru, 0, pair, done, t, False)
            dram_writeback(T, sector, ev, t)
    return done + T.cfg[C_L2_LAT] // 2


@njit(cache=True, _nrt=False, error_model="numpy")
def global_access(T, M, sm, pc, now, is_store, is_local, w):
    size = M.tr_info[TI_SIZE]
    mask = M.tr_info[TI_MASK]
    addrs = T.buf2
    for l in range(32):
        a = M.tr_addr[l]
        if is_local:    # per-thread local memory is interleaved across lanes, as the hardware does
            a = LOCAL_BASE + ((w * M.lmem.shape[2] + a) * 32 + l * size)
        addrs[l] = a
    ns = coalesce(addrs, mask, size, T.buf)
    nl = count_lines(T.buf, ns)
    T.pc_sectors[pc] += ns
    T.pc_requests[pc] += 1
    if is_local:
        T.cnt[K_LOCAL_SECT] += ns
    elif is_store:
        T.cnt[K_ST_REQ] += 1
        T.cnt[K_ST_SECT] += ns
    else:
        T.cnt[K_LD_REQ] += 1
        T.cnt[K_LD_SECT] += ns
    start = max(now, T.lsu_free[sm])
    T.lsu_free[sm] = start + max(nl, 1) * T.cfg[C_LSU_II] // 2 + (T.cfg[C_LSU_II] % 2)
    done = start + T.cfg[C_L1_LAT]
    for k in range(ns):
        sec = T.buf[k]
        if is_store:
            T.drain[0] = max(T.drain[0], l2_access(T, sec, start + T.cfg[C_L1_LAT], True))
            continue
        T.cnt[K_L1_LOOK] += 1
        r = probe(T.l1_tag, T.l1_valid, T.l1_rdy, T.l1_lru, sm, sec, start)
        if r >= 0:
            T.cnt[K_L1_HIT] += 1
            t = max(r, start + T.cfg[C_L1_LAT])
        else:
            t = l2_access(T, sec, start + T.cfg[C_L1_LAT], False)
            fill(T.l1_tag, T.l1_valid, T.l1_dirty, T.l1_rdy, T.l1_lru, sm, sec, t, start, False)
        if t > done:
            done = t
    return done


@njit(cache=True, _nrt=False, error_model="numpy")
def same_address_ways(addrs, mask):
    """The largest number of active lanes that share one address."""
    worst = 1
    for a in range(32):
        if not (mask >> a) & 1:
            continue
        c = 0
        for b in range(32):
            if (mask >> b) & 1 and addrs[b] == addrs[a]:
                c += 1
        worst = max(worst, c)
    return worst


@njit(cache=True, _nrt=False, error_model="numpy")
def shared_access(T, M, sm, now, is_store, atom):
    size = M.tr_info[TI_SIZE]
    mask = M.tr_info[TI_MASK]
    wf = wavefronts(M.tr_addr, mask, size, T.cfg[C_NBANKS], T.buf, T.buf2)
    if atom:
        wf = max(wf, same_address_ways(M.tr_addr, mask))    # lanes on one word serialise
    active = 0
    for l in range(32):
        active += (mask >> l) & 1
    ideal = max(1, (active * size + 127) // 128)
    if is_store:
        T.cnt[K_SH_ST_REQ] += 1
        T.cnt[K_SH_ST_WF] += wf
        T.cnt[K_SH_ST_CONF] += max(0, wf - ideal)
    else:
        T.cnt[K_SH_LD_REQ] += 1
        T.cnt[K_SH_LD_WF] += wf
        T.cnt[K_SH_LD_CONF] += max(0, wf - ideal)
    start = max(now, T.mio_free[sm])
    T.mio_free[sm] = start + wf
    return start + T.cfg[C_SMEM_LAT] + wf - 1


@njit(cache=True, _nrt=False, error_model="numpy")
def global_atomic(T, M, sm, pc, now):
    """Atomics/reductions at L2. Lanes on one address serialise at the SM and again at the slice;
    distinct addresses in one sector share an L2 operation."""
    mask = M.tr_info[TI_MASK]
    T.cnt[K_ATOM_REQ] += 1
    T.pc_requests[pc] += 1
    worst = same_address_ways(M.tr_addr, mask)
    start = max(now, T.lsu_free[sm])
    T.lsu_free[sm] = start + T.cfg[C_LSU_II] + T.cfg[C_ATOM_SAME] * (worst - 1)
    ns = coalesce(M.tr_addr, mask, M.tr_info[TI_SIZE], T.buf)
    done = start
    for k in range(ns):
        sec = T.buf[k]
        sl = _hash(sec >> 2, T.slice_free.shape[0])
        t = max(np.float64(start + T.cfg[C_L1_LAT]), T.slice_free[sl])
        T.slice_free[sl] = t + T.cfgf[F_L2_ATOM] * worst
        r = l2_access(T, sec, np.int64(t), True)
        done = max(done, r + T.cfg[C_ATOM_LAT] - T.cfg[C_L2_LAT] + np.int64(T.cfgf[F_L2_ATOM] * worst))
    T.drain[0] = max(T.drain[0], done)
    return done


@njit(cache=True, _nrt=False, error_model="numpy")
def memory_timing(T, M, sm, pc, now, w):
    """Completion cycle of the memory instruction the executor just ran, and its scoreboard kind."""
    sp = M.tr_info[TI_SPACE]
    is_store = M.tr_info[TI_STORE] != 0
    atom = M.tr_info[TI_ATOM] != 0
    if sp == oc.SP_SHARED:
        return shared_access(T, M, sm, now, is_store and not atom, atom), 1
    if sp == oc.SP_GLOBAL:
        if atom:
            return global_atomic(T, M, sm, pc, now), 2
        return global_access(T, M, sm, pc, now, is_store, False, w), 2
    if sp == oc.SP_LOCAL:
        return global_access(T, M, sm, pc, now, is_store, True, w), 2
    return now + T.cfg[C_L1_LAT], 0         # param / const: the constant cache
