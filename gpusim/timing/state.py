"""The timing state of one launch: every unit's state, allocated from its spec (specs apart from state)."""
from __future__ import annotations

import numpy as np

from gpusim.memory import dram, dsm, interconnect, l1, l2, shared_banks
from gpusim.sm import asyncops, atomics, fetch, lsu, pipelines, scheduler, scoreboard
from gpusim.timing import events, residency
from gpusim.timing.core import Units


def make_units(spec, d, warps_per_sm: int, ctas_per_sm: int, record: events.EventsSpec = events.EventsSpec(),
               total_ctas: int = 1, slots=None, spill_bytes: int = 0) -> Units:
    """State for `d` (a decoded kernel) on `spec` with the given warp and CTA slots per SM; `record`:
    what the event recorder keeps (off by default); slots: SASS issue slots per pc (the SASS model:
    slots, ALU, FMA, aggregated, spill loads, spill stores, vector shared bytes, stall cycles, yield, read
    barriers set and waited on, constant-bank blocks its ULDCs read first, MUFU instructions, a BSYNC at the
    line's first pc, the cycles its SASS waits on its own xu results, the cycles it holds the dispatch and the
    cycles such a hold is only sampled, at a branch the SASS of the block ptxas predicated instead, its
    uniform-pipe cycles, the cycles its register reads hold the other warps' dispatch, whether a warp gone on
    past a bar.sync may issue it, and at such a branch the block's shared accesses and dependent load steps);
    spill_bytes: each thread's spill area."""
    nsm, n_warps = spec.n_sm, spec.n_sm * warps_per_sm
    return Units(
        sched=scheduler.make_state(spec.scheduler, nsm, warps_per_sm, d.n,
                                   None if slots is None else slots[:, 7:9]),
        scoreboard=scoreboard.make_state(d, n_warps, None if slots is None else slots[:, 9:11], spec.pipes.lat_shfl,
                                         spec.pipes.lat_s2r, None if slots is None else slots[:, 3]),
        pipes=pipelines.make_state(spec.pipes, nsm * spec.scheduler.subpartitions, spec.l1.latency,
                                   spec.l2.atomic_latency, d, spec.scheduler.subpartitions,
                                   None if slots is None else slots[:, [0, 1, 2, 12, 13, 14, 15, 16, 17, 18, 19]]),
        fetch=fetch.make_state(spec.fetch, nsm, n_warps, d, None if slots is None else slots[:, 11],
                               spec.scheduler.subpartitions, scoreboard.S2R_SREGS, slots is not None),
        lsu=lsu.make_state(spec.lsu, nsm, n_warps, d.n, None if slots is None else slots[:, 3],
                           atomics.float_atomics(d), None if slots is None else slots[:, 4:6], spill_bytes,
                           spec.l2.slices if atomics.global_atomics(d) else 0, atomics.release_pcs(d)),
        smem=shared_banks.make_state(spec.smem, nsm, d.n, None if slots is None else slots[:, 6], slots is not None,
                                     None if slots is None or slots.shape[1] < 23 else slots[:, 21:23]),
        l1=l1.make_state(spec.l1, nsm, slots is not None),
        noc=interconnect.make_state(spec.noc, nsm, spec.l2.partitions),
        l2=l2.make_state(spec.l2),
        dram=dram.make_state(spec.dram),
        residency=residency.make_state(nsm, warps_per_sm, ctas_per_sm, spec.gigathread.cta_launch_latency),
        asyncu=asyncops.make_state(spec.asyncops, nsm * spec.scheduler.subpartitions, n_warps, nsm,
                                   nsm * ctas_per_sm),
        dsm=dsm.make_state(spec.dsm, nsm, nsm * ctas_per_sm),
        events=events.make_state(record, nsm, warps_per_sm, nsm * spec.scheduler.subpartitions, ctas_per_sm,
                                 total_ctas),
    )


def core_counters() -> np.ndarray:
    """The core's own counters (instructions issued, divergent-branch delays: gpusim/timing/core.py)."""
    return np.zeros(2, np.int64)
