"""The interconnect between SMs and L2 slices: a crossbar to the near L2 partition, and the
partition link (the "L2 fabric") to the far one.

The H100's L2 is split into two partitions; an SM reaches slices of its own partition directly and
the other partition's slices over the fabric, paying `far_latency` more cycles on the round trip
(half each way). Data returning to an SM enters through its port, `port_bandwidth` bytes per cycle:
an SM streaming from L2 cannot take more than that, however many slices serve it. The base
crossbar latency is part of the L2 hit latency (gpusim/memory/l2.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gpusim.spec import param
from gpusim.timing.state_index import C_L2_PARTS, C_NOC_FAR, C_NSM, F_NOC_PORT_BW, K_L2_FAR


@dataclass(frozen=True)
class InterconnectSpec:
    """SM <-> L2 crossbar and the link between the two L2 partitions."""
    far_latency: int = param(32, "cycles", "extra round trip to a slice in the other L2 partition (measured: "
                                           "validation/probes/l2_near_far.py, modes 277 / 308 cycles)")
    port_bandwidth: float = param(64.0, "B/cycle", "data one SM can receive from the L2 per cycle")

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.port_bandwidth <= 0:
            raise ConfigError(f"bad value for '{prefix}port_bandwidth': must be positive")


def make_state(spec: InterconnectSpec, n_sm: int) -> dict:
    return {"port_free": np.zeros(n_sm, np.float64)}


def config(spec: InterconnectSpec) -> tuple[dict, dict]:
    return {C_NOC_FAR: spec.far_latency}, {F_NOC_PORT_BW: spec.port_bandwidth}


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def hop(T, sm, sl, nslices):
    """One-way extra cycles from SM `sm` to slice `sl`: 0 in the SM's partition, far_latency/2 across."""
    parts = T.cfg[C_L2_PARTS]
    if parts <= 1:
        return 0
    if (sm * parts) // T.cfg[C_NSM] == (sl * parts) // nslices:
        return 0
    T.cnt[K_L2_FAR] += 1
    return T.cfg[C_NOC_FAR] // 2


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def deliver(T, sm, t, nbytes):
    """Cycle `nbytes` arriving at SM `sm`'s port at cycle t are through it."""
    start = max(np.float64(t), T.port_free[sm])
    T.port_free[sm] = start + nbytes / T.cfgf[F_NOC_PORT_BW]
    return np.int64(start)
