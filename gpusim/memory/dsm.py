"""The SM-to-SM network of a GPC: distributed shared memory and the cluster barrier (sm_90).

A shared-memory access whose lanes address another CTA of the cluster (a `.shared::cluster` address
with a rank, gpusim/isa/spaces.py) leaves the SM: it takes `latency` cycles more than a local access
(the request crosses the network and the owner's shared memory answers), and the SM's network port
moves `bytes_per_cycle` bytes per cycle, so a stream of remote accesses is limited by the port
rather than by the banks. `barrier.cluster` travels the same network: a phase completes
`barrier_latency + barrier_per_cta x (CTAs in the cluster)` cycles after the last thread arrives
(what every waiting warp sees, and what a wait issued after the last arrival still waits for).

Fitted on the H100 (validation/tensor cluster_bench, validation/data/h100/tensor/cluster_bench.json):
a dependent chain of remote loads 192 cycles per load against 33 locally; barrier.cluster round
trips 757 / 772 / 816 cycles for clusters of 2 / 4 / 8; 14.9 B/cycle/SM reading a neighbour's shared
memory with 256 threads.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.isa.spaces import CLUSTER_SHIFT
from gpusim.jit import njit
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class DSMSpec:
    """Distributed shared memory and the cluster barrier over the SM-to-SM network."""
    latency: int = param(180, "cycles", "extra cycles of a remote shared-memory access over a local one (fitted: "
                                        "dsm_lat_c2, 192 cycles per dependent load)", (0, MAX_CYCLES))
    bytes_per_cycle: float = param(15.0, "B/cycle", "bytes one SM's network port moves per cycle (fitted: dsm_bw_c2 "
                                                    "14.9)", (1e-3, 1e6))
    barrier_latency: int = param(737, "cycles", "barrier.cluster: from the last arrival to the waiting warps' "
                                                "release (fitted: cluster_sync_c2/c4/c8)", (0, MAX_CYCLES))
    barrier_per_cta: int = param(10, "cycles", "barrier.cluster: more per CTA of the cluster", (0, MAX_CYCLES))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.bytes_per_cycle <= 0:
            raise ConfigError(f"bad value for '{prefix}bytes_per_cycle': must be positive")


DSM = namedtuple("DSM", "latency bytes_per_cycle barrier_latency barrier_per_cta port_free release counters")
REMOTE_REQUESTS, REMOTE_BYTES, CLUSTER_BARRIERS = range(3)     # counters


def make_state(spec: DSMSpec, n_sm: int, n_cta_slots: int) -> DSM:
    return DSM(np.int64(spec.latency), np.float64(spec.bytes_per_cycle), np.int64(spec.barrier_latency),
               np.int64(spec.barrier_per_cta), np.zeros(n_sm, np.float64), np.zeros(n_cta_slots, np.int64),
               np.zeros(3, np.int64))


def counters(d: DSM) -> dict:
    return {"gpusim__dsm_requests.sum": int(d.counters[REMOTE_REQUESTS]),
            "gpusim__dsm_bytes.sum": int(d.counters[REMOTE_BYTES]),
            "gpusim__cluster_barrier_phases.sum": int(d.counters[CLUSTER_BARRIERS])}


@njit(no_cpython_wrapper=True)
def remote_access(d, tr_addr, mask, size, own_rank, sm, now, local_done):
    """Completion of a shared-memory access (local part done at local_done) whose lanes may address
    other CTAs of the cluster; local_done itself when none does."""
    nbytes = 0
    for l in range(32):
        if (mask >> l) & 1:
            rank = (tr_addr[l] >> CLUSTER_SHIFT) - 1
            if rank >= 0 and rank != own_rank:
                nbytes += size
    if nbytes == 0:
        return local_done
    d.counters[REMOTE_REQUESTS] += 1
    d.counters[REMOTE_BYTES] += nbytes
    start = max(float(now), d.port_free[sm])
    d.port_free[sm] = start + nbytes / d.bytes_per_cycle
    return max(local_done, np.int64(d.port_free[sm]) + d.latency)


@njit(no_cpython_wrapper=True)
def barrier_completed(d, lead, ncta, now):
    """A cluster-barrier phase of the cluster led by CTA slot `lead` completed at `now`: the cycle its
    waiters are released."""
    d.counters[CLUSTER_BARRIERS] += 1
    d.release[lead] = now + d.barrier_latency + d.barrier_per_cta * ncta
    return d.release[lead]
