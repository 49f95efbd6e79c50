"""The L2: slices behind an address hash, split into partitions, sectored and write-back.

A sector's slice is a hash of its line. A slice serves one sector per 32 B / (bandwidth / slices)
cycles; a hit is back at the SM `latency` cycles after the request left the L1 (plus the fabric
cost for a far slice, gpusim/memory/interconnect.py); a miss asks DRAM half-way through and the
data returns the other half later. Stores write-allocate as dirty sectors; dirty sectors are
written to DRAM when evicted. Atomics are performed at the slice, `atomic_interval` cycles per
operation on one sector.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gpusim.memory.cache import fill, make_cache, probe
from gpusim.memory.dram import dram_burst_extra, dram_read, dram_writeback
from gpusim.memory.interconnect import deliver, hop
from gpusim.spec import param
from gpusim.timing.state_index import (
    C_ATOM_LAT,
    C_DRAM_PAIR,
    C_L2_LAT,
    C_L2_PARTS,
    F_L2_ATOM,
    F_L2_BW_SLICE,
    K_L2_HIT,
    K_L2_LOOK,
)


@dataclass(frozen=True)
class L2Spec:
    """The GPU-wide L2 cache."""
    size: int = param(52428800, "B", "capacity (50 MB on H100)")
    assoc: int = param(16, "ways", "associativity")
    slices: int = param(96, "count", "slices, each with its own tag pipeline and bandwidth share")
    partitions: int = param(2, "count", "partitions; slices of the other partition are reached over the fabric")
    latency: int = param(223, "cycles", "near-partition hit, L1 miss to data back at the SM (fitted: "
                                        "chase_l2, 282.7 cycles per step)")
    bandwidth: float = param(2.7e12 / 1980e6 * 1.9, "B/cycle", "whole-GPU L2 bandwidth")
    atomic_latency: int = param(300, "cycles", "a global atomic's round trip when it does not wait")
    atomic_interval: float = param(1.46, "cycles", "slice time per atomic operation on one sector (fitted: atomics)")

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.slices < 1:
            raise ConfigError(f"bad value for '{prefix}slices': must be at least 1, got {self.slices}")
        if self.partitions < 1 or self.slices % self.partitions:
            raise ConfigError(f"bad value for '{prefix}partitions': slices ({self.slices}) must split evenly "
                              f"into partitions ({self.partitions})")
        if self.assoc < 1:
            raise ConfigError(f"bad value for '{prefix}assoc': must be at least 1 way, got {self.assoc}")
        if self.size < 128 * self.assoc:      # 128-B lines (gpusim/memory/cache.py)
            raise ConfigError(f"bad value for '{prefix}size': must hold at least one set "
                              f"({self.assoc} ways of 128-B lines = {128 * self.assoc} B), got {self.size}")
        if self.bandwidth <= 0:
            raise ConfigError(f"bad value for '{prefix}bandwidth': must be positive")


def make_state(spec: L2Spec) -> dict:
    tag, valid, dirty, rdy, lru = make_cache(1, spec.size, spec.assoc)
    return {"l2_tag": tag, "l2_valid": valid, "l2_dirty": dirty, "l2_rdy": rdy, "l2_lru": lru,
            "slice_free": np.zeros(spec.slices, np.float64)}


def config(spec: L2Spec) -> tuple[dict, dict]:
    return ({C_L2_LAT: spec.latency, C_ATOM_LAT: spec.atomic_latency, C_L2_PARTS: spec.partitions},
            {F_L2_BW_SLICE: spec.bandwidth / spec.slices, F_L2_ATOM: spec.atomic_interval})


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def slice_of(sector, n):
    line = sector >> 2
    h = line ^ (line >> 7) ^ (line >> 13)
    return h % n


@njit(cache=True, _nrt=False, error_model="numpy")
def _install(T, sector, when, now, dirty):
    ev = fill(T.l2_tag, T.l2_valid, T.l2_dirty, T.l2_rdy, T.l2_lru, 0, sector, when, now, dirty)
    dram_writeback(T, sector, ev, now)


@njit(cache=True, _nrt=False, error_model="numpy")
def l2_access(T, sm, sector, now, is_write):
    """One sector from SM `sm` leaving its L1 at `now`: the cycle the data (or the write's
    acknowledgement) is back at the SM."""
    nsl = T.slice_free.shape[0]
    sl = slice_of(sector, nsl)
    h = hop(T, sm, sl, nsl)
    start = max(np.float64(now + h), T.slice_free[sl])
    T.slice_free[sl] = start + 32.0 / T.cfgf[F_L2_BW_SLICE]
    t = np.int64(start)
    half = T.cfg[C_L2_LAT] // 2
    T.cnt[K_L2_LOOK] += 1
    r = probe(T.l2_tag, T.l2_valid, T.l2_rdy, T.l2_lru, 0, sector, t)
    if r >= 0:
        T.cnt[K_L2_HIT] += 1
    if is_write:
        _install(T, sector, t, t, True)
        return t + T.cfg[C_L2_LAT] + h
    if r >= 0:
        return deliver(T, sm, max(r, t) + T.cfg[C_L2_LAT] + h, 32)
    done = dram_read(T, sector, t + half)
    _install(T, sector, done, t, False)
    if T.cfg[C_DRAM_PAIR] != 0:
        pair = sector ^ 1          # DRAM delivers 64 B: the neighbouring sector comes along
        if probe(T.l2_tag, T.l2_valid, T.l2_rdy, T.l2_lru, 0, pair, t) < 0:
            dram_burst_extra(T, sector)
            _install(T, pair, done, t, False)
    return deliver(T, sm, done + (T.cfg[C_L2_LAT] - half) + h, 32)


@njit(cache=True, _nrt=False, error_model="numpy")
def l2_atomic(T, sm, sector, now, ways):
    """An atomic on one sector at its slice, `ways` operations deep: the cycle its result is back."""
    nsl = T.slice_free.shape[0]
    sl = slice_of(sector, nsl)
    h = hop(T, sm, sl, nsl)
    t = max(np.float64(now + h), T.slice_free[sl])
    busy = T.cfgf[F_L2_ATOM] * ways          # the read-modify-write operations, one after another
    T.slice_free[sl] = t + busy + 32.0 / T.cfgf[F_L2_BW_SLICE]
    T.cnt[K_L2_LOOK] += 1
    ti = np.int64(t + busy)
    if probe(T.l2_tag, T.l2_valid, T.l2_rdy, T.l2_lru, 0, sector, ti) >= 0:
        T.cnt[K_L2_HIT] += 1
    _install(T, sector, ti, ti, True)
    # the reply carries the last operation's result: it leaves once the operations are done
    return ti + T.cfg[C_ATOM_LAT] + h + np.int64(busy)
