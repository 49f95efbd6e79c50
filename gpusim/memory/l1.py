"""The L1 data cache of one SM: sectored, LRU, loads allocate, stores write through (no allocate).

A load sector that hits is ready `latency` cycles after the LSU takes the request (or when a fill
already on its way arrives: misses to a pending sector merge). A miss takes a miss-status holding
register (MSHR) for the whole trip to the L2 and back; with all `mshrs` of the SM in use the next
miss waits for the oldest to return, and the LSU stalls behind it (lg_throttle).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gpusim.memory.cache import fill, make_cache, probe
from gpusim.memory.l2 import l2_access
from gpusim.spec import param
from gpusim.timing.state_index import C_L1_LAT, C_MSHRS, K_L1_HIT, K_L1_LOOK, K_MSHR_WAIT


@dataclass(frozen=True)
class L1Spec:
    """The L1 data cache beside shared memory."""
    size: int = param(262144 - 233472 + 65536, "B", "data cache left beside the largest shared-memory carve-out")
    assoc: int = param(4, "ways", "associativity")
    latency: int = param(29, "cycles", "hit latency (fitted: chase_l1, 42.8 cycles per dependent step)")
    mshrs: int = param(1024, "sectors", "outstanding sector misses per SM (fitted: the smallest count at which "
                                                "coalesce_s08 does not throttle, as the H100 does not)")

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.mshrs < 1:
            raise ConfigError(f"bad value for '{prefix}mshrs': must be at least 1")
        if self.assoc < 1:
            raise ConfigError(f"bad value for '{prefix}assoc': must be at least 1 way, got {self.assoc}")
        if self.size < 128 * self.assoc:      # 128-B lines (gpusim/memory/cache.py)
            raise ConfigError(f"bad value for '{prefix}size': must hold at least one set "
                              f"({self.assoc} ways of 128-B lines = {128 * self.assoc} B), got {self.size}")


def make_state(spec: L1Spec, n_sm: int) -> dict:
    tag, valid, dirty, rdy, lru = make_cache(n_sm, spec.size, spec.assoc)
    return {"l1_tag": tag, "l1_valid": valid, "l1_dirty": dirty, "l1_rdy": rdy, "l1_lru": lru,
            "mshr_free": np.zeros((n_sm, spec.mshrs), np.int64), "mshr_next": np.zeros(n_sm, np.int64)}


def config(spec: L1Spec) -> dict:
    return {C_L1_LAT: spec.latency, C_MSHRS: spec.mshrs}


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def l1_load(T, sm, sector, start):
    """A load sector the LSU took at `start`: (cycle its data is ready, cycle the LSU may go on)."""
    T.cnt[K_L1_LOOK] += 1
    t = start + T.cfg[C_L1_LAT]
    r = probe(T.l1_tag, T.l1_valid, T.l1_rdy, T.l1_lru, sm, sector, start)
    if r >= 0:
        T.cnt[K_L1_HIT] += 1
        return max(r, t), start
    slot = T.mshr_next[sm] % T.cfg[C_MSHRS]
    T.mshr_next[sm] += 1
    free = T.mshr_free[sm, slot]
    if free > start:               # every MSHR busy: wait for the oldest
        T.cnt[K_MSHR_WAIT] += free - start
        t += free - start
    done = l2_access(T, sm, sector, t, False)
    T.mshr_free[sm, slot] = done
    fill(T.l1_tag, T.l1_valid, T.l1_dirty, T.l1_rdy, T.l1_lru, sm, sector, done, start, False)
    return done, max(start, free)
