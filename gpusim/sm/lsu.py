"""Load/store unit: coalescing, then the L1 (gpusim/memory/l1.py) and the L2 behind it for global
and local memory, the shared-memory banks over the MIO pipe, atomics at the L2.

Called after the functional executor ran a memory instruction (its lane addresses are in M.tr_addr,
its shape in M.tr_info). Returns the cycle the destination registers become ready and updates the
LSU/MIO pipes. The LSU takes one request per `issue_interval` cycles per 128-byte line it touches;
warps may queue `queue` cycles of LSU work before they stall on lg_throttle.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gpusim.isa import opcodes as oc
from gpusim.memory.coalescer import coalesce, count_lines
from gpusim.memory.l1 import l1_load
from gpusim.memory.l2 import l2_access, l2_atomic
from gpusim.memory.shared_banks import wavefronts
from gpusim.sm.state import TI_ATOM, TI_MASK, TI_SIZE, TI_SPACE, TI_STORE
from gpusim.spec import param
from gpusim.timing.state_index import (
    C_ATOM_SAME,
    C_L1_LAT,
    C_LSU_II,
    C_LSU_QUEUE,
    C_MIO_QUEUE,
    C_NBANKS,
    C_SMEM_LAT,
    K_ATOM_REQ,
    K_LD_REQ,
    K_LD_SECT,
    K_LOCAL_SECT,
    K_SH_AT_CONF,
    K_SH_AT_REQ,
    K_SH_AT_WF,
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


@dataclass(frozen=True)
class LSUSpec:
    """The load/store unit of one SM (global, local and atomic traffic)."""
    issue_interval: int = param(2, "cycles", "per memory instruction and 128-B line it touches")
    queue: int = param(64, "cycles", "LSU work warps may queue ahead before they stall on lg_throttle")
    atomic_same_address_cycles: int = param(16, "cycles", "serialisation per extra lane on one address in a warp "
                                                          "(fitted: atomics)")

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.issue_interval < 1:
            raise ConfigError(f"bad value for '{prefix}issue_interval': must be at least 1")


def make_state(n_sm: int, n_warps: int) -> dict:
    return {"lsu_free": np.zeros(n_sm, np.int64), "mio_free": np.zeros(n_sm, np.int64),
            "wdrain": np.zeros(n_warps, np.int64)}


def config(lsu: LSUSpec, smem) -> dict:
    return {C_LSU_II: lsu.issue_interval, C_LSU_QUEUE: lsu.queue, C_ATOM_SAME: lsu.atomic_same_address_cycles,
            C_SMEM_LAT: smem.latency, C_NBANKS: smem.banks, C_MIO_QUEUE: smem.mio_queue}


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
    busy = max(nl, 1) * T.cfg[C_LSU_II] // 2 + (T.cfg[C_LSU_II] % 2)
    done = start + T.cfg[C_L1_LAT]
    go_on = start
    for k in range(ns):
        sec = T.buf[k]
        if is_store:      # write-through to the L2: the warp need not wait, only its exit does (drain)
            T.drain[0] = max(T.drain[0], l2_access(T, sm, sec, start + T.cfg[C_L1_LAT], True))
            continue
        t, free = l1_load(T, sm, sec, start)
        go_on = max(go_on, free)
        if t > done:
            done = t
    T.lsu_free[sm] = go_on + busy
    if is_store:          # an exiting warp waits until its stores have left the SM
        T.wdrain[w] = max(T.wdrain[w], start + busy + T.cfg[C_L1_LAT])
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
def shared_access(T, M, sm, pc, now, is_store, atom):
    size = M.tr_info[TI_SIZE]
    mask = M.tr_info[TI_MASK]
    wf = wavefronts(M.tr_addr, mask, size, T.cfg[C_NBANKS], T.buf, T.buf2)
    if atom:
        wf = max(wf, same_address_ways(M.tr_addr, mask))    # lanes on one word serialise
    active = 0
    for l in range(32):
        active += (mask >> l) & 1
    ideal = max(1, (active * size + 127) // 128)
    T.pc_wavefronts[pc] += wf
    T.pc_conflicts[pc] += max(0, wf - ideal)
    if atom:              # ATOMS: counted apart from loads and stores, as ncu does (op_atom)
        T.cnt[K_SH_AT_REQ] += 1
        T.cnt[K_SH_AT_WF] += wf
        T.cnt[K_SH_AT_CONF] += max(0, wf - ideal)
    elif is_store:
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
def global_atomic(T, M, sm, pc, now, w):
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
        done = max(done, l2_atomic(T, sm, T.buf[k], start + T.cfg[C_L1_LAT], worst))
    T.drain[0] = max(T.drain[0], done)
    T.wdrain[w] = max(T.wdrain[w], T.lsu_free[sm] + T.cfg[C_L1_LAT])    # sent off, not performed
    return done


@njit(cache=True, _nrt=False, error_model="numpy")
def memory_timing(T, M, sm, pc, now, w):
    """Completion cycle of the memory instruction the executor just ran, and its scoreboard kind."""
    sp = M.tr_info[TI_SPACE]
    is_store = M.tr_info[TI_STORE] != 0
    atom = M.tr_info[TI_ATOM] != 0
    if sp == oc.SP_SHARED:
        return shared_access(T, M, sm, pc, now, is_store, atom), 1
    if sp == oc.SP_GLOBAL:
        if atom:
            return global_atomic(T, M, sm, pc, now, w), 2
        return global_access(T, M, sm, pc, now, is_store, False, w), 2
    if sp == oc.SP_LOCAL:
        return global_access(T, M, sm, pc, now, is_store, True, w), 2
    return now + T.cfg[C_L1_LAT], 0         # param / const: the constant cache
