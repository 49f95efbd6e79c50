"""The interconnect between SMs and L2 slices: a crossbar to the near L2 partition, and the
partition link (the "L2 fabric") to the far one.

The H100's L2 is split into two partitions; an SM reaches slices of its own partition directly and
the other partition's slices over the fabric, paying `far_latency` more cycles on the round trip
(half each way). Data returning to an SM enters through its port, `port_bandwidth` bytes per cycle:
an SM streaming from L2 cannot take more than that, however many slices serve it. The base
crossbar latency is part of the L2 hit latency (gpusim/memory/l2.py).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.jit import njit
from gpusim.memory.timeline import book, make_timeline
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class InterconnectSpec:
    """SM <-> L2 crossbar and the link between the two L2 partitions."""
    far_latency: int = param(32, "cycles", "extra round trip to a slice in the other L2 partition (measured: "
                                           "validation/probes/l2_near_far.py, modes 277 / 308 cycles)", (0, MAX_CYCLES))
    port_bandwidth: float = param(64.0, "B/cycle", "data one SM can receive from the L2 per cycle", (1e-3, 1e6))
    port_order: int = param(1, "flag", "1: the SM's port takes returns in the order they arrive (a timeline); 0: "
                                       "in the order gpusim computes them (one free-at cycle an SM: data computed "
                                       "later but back earlier waits behind data back later; until the "
                                       "thirty-seventh pass)", (0, 1))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.port_bandwidth <= 0:
            raise ConfigError(f"bad value for '{prefix}port_bandwidth': must be positive")


NoC = namedtuple("NoC", "n_sm partitions far_latency port_bandwidth port_free counters arrival port")
FAR_SECTORS = 0       # counters


def make_state(spec: InterconnectSpec, n_sm: int, l2_partitions: int) -> NoC:
    return NoC(np.int64(n_sm), np.int64(l2_partitions), np.int64(spec.far_latency), np.float64(spec.port_bandwidth),
               np.zeros(n_sm, np.float64), np.zeros(1, np.int64), spec.port_order == 1,
               make_timeline(n_sm if spec.port_order == 1 else 1))


def counters(n: NoC) -> dict:
    return {"gpusim__l2_far_partition_sectors.sum": int(n.counters[FAR_SECTORS])}


@njit(inline="always")
def hop(n, sm, sl, nslices):
    """One-way extra cycles from SM `sm` to slice `sl`: 0 in the SM's partition, far_latency/2 across."""
    if n.partitions <= 1:
        return 0
    if (sm * n.partitions) // n.n_sm == (sl * n.partitions) // nslices:
        return 0
    n.counters[FAR_SECTORS] += 1
    return n.far_latency // 2


@njit(inline="always")
def deliver(n, sm, t, nbytes):
    """Cycle `nbytes` arriving at SM `sm`'s port at cycle t are through it."""
    if n.arrival:
        return np.int64(book(n.port, sm, np.float64(t), nbytes / n.port_bandwidth))
    start = max(np.float64(t), n.port_free[sm])
    n.port_free[sm] = start + nbytes / n.port_bandwidth
    return np.int64(start)
