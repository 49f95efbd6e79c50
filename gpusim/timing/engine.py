"""Timing-mode launch: builds executor and unit state, runs the kernel as simpy events (launch
overhead, CTA dispatch by the GigaThread engine, completion) around the numba core."""
from __future__ import annotations

from dataclasses import dataclass, replace

import simpy

from gpusim.errors import LaunchError
from gpusim.sm.results import functional_metrics
from gpusim.sm.sanitize_report import collect, kernel_fault
from gpusim.sm.state import make_mach, make_prog
from gpusim.timing.ctalaunch import sample_to
from gpusim.timing.events import EventsSpec, decode
from gpusim.timing.gigathread import GigaThread
from gpusim.timing.metrics import timing_metrics
from gpusim.timing.occupancy import occupancy
from gpusim.timing.state import core_counters, make_units


@dataclass
class TimingRun:
    cycles: int
    metrics: dict
    per_pc: dict
    occupancy: object
    sanitizer: object = None
    events: object = None       # gpusim/timing/events.py Events, when recorded


def run_timing(d, mem, pmem, g, b, spec, shared_mem, budget, regs_per_thread=None, progress=None,
               stack_size=None, checks=(0, ()), cluster=((1, 1, 1), False), events: int = 0, slots=None,
               spill_bytes: int = 0) -> TimingRun:
    """launch() has checked the launch shape, shared memory and options; checks: sanitizer (flags, names);
    cluster: (dims, explicit); events: record events (gpusim/timing/events.py), sampling warp states every
    `events` cycles (0: off); slots: SASS issue slots per pc (x16, the SASS model: gpusim/sassmap.py);
    spill_bytes: each thread's spill area (ptxas's spill stores, the SASS model)."""
    nthreads = b[0] * b[1] * b[2]
    total = g[0] * g[1] * g[2]
    regs = regs_per_thread or d.regs_per_thread
    smem = d.shared_static + shared_mem
    if regs * nthreads > spec.sm.regs:
        raise LaunchError(f"a block of {nthreads} threads x {regs} registers exceeds the {spec.sm.regs} "
                          "registers of an SM")
    occ = occupancy(spec, nthreads, regs, smem, total)
    if occ.ctas_per_sm < 1:
        raise LaunchError(f"a block does not fit on an SM (limited by {occ.limiter})")
    resident = min(occ.ctas_per_sm, -(-total // spec.n_sm))
    ncl = cluster[0][0] * cluster[0][1] * cluster[0][2]
    if ncl > 1:     # a cluster's CTAs are resident together on the SMs of one GPC
        gpc = spec.n_sm // spec.gigathread.gpcs
        if gpc * occ.ctas_per_sm < ncl:
            raise LaunchError(f"a cluster of {ncl} CTAs does not fit on one GPC of {spec.name} ({gpc} SMs x "
                              f"{occ.ctas_per_sm} CTAs per SM, limited by {occ.limiter})")
        resident = max(resident, min(occ.ctas_per_sm, -(-ncl // gpc)))
    # the driver's shared-memory carve-out for this kernel, from its CTAs' shared memory (the reservation per CTA
    # included) and how many of them its other limits let an SM hold
    others = min(occ.limits["warps"], occ.limits["blocks"], occ.limits["registers"])
    carve, l1_size = spec.l1.carveout_for(occ.smem_per_cta, others, nthreads, smem, spec.sm.max_ctas)
    if l1_size != spec.l1.size:
        spec = replace(spec, l1=replace(spec.l1, size=l1_size))
    nsub = spec.scheduler.subpartitions
    warps_per_sm = -(-resident * occ.warps_per_cta // nsub) * nsub
    P = make_prog(d)
    M = make_mach(d, spec.n_sm * warps_per_sm, spec.n_sm * resident, mem.gmem, mem.alo, mem.ahi, pmem, b, g,
                  spec.n_sm, shared_mem, budget, stack_size, checks=checks[0], cluster=cluster[0],
                  explicit_cluster=cluster[1])
    if slots is not None and slots.shape[1] > 20:
        M.defer[:] = slots[:, 20]       # what a warp gone on past a bar.sync may issue (launch, SASS model)
    U = make_units(spec, d, warps_per_sm, resident, EventsSpec(interval=events), total, slots, spill_bytes)
    counters = core_counters()
    env = simpy.Environment()
    gt = GigaThread(P, M, U, counters, spec.n_sm, total, nthreads, resident, progress, cluster[0],
                    spec.gigathread.gpcs, spec.gigathread.cta_interval)

    def kernel(env):
        yield env.timeout(spec.gigathread.launch_overhead)
        yield env.process(gt.process(env))

    env.process(kernel(env))
    env.run()
    if gt.fault or M.err[0] != 0:
        raise kernel_fault(d, M, g, b, checks[1])
    cycles = max(int(env.now), int(U.lsu.last_drain[0]))     # outstanding stores and atomics drain first
    if events:       # close every interval up to the end, and the one the end falls in
        sample_to(M.wstat, U.events, U.sched, U.residency, U.l1, U.l2, U.dram, cycles)
        if U.events.next_at[0] - U.events.interval[0] < cycles:
            sample_to(M.wstat, U.events, U.sched, U.residency, U.l1, U.l2, U.dram, int(U.events.next_at[0]))
    metrics = functional_metrics(M, d)
    metrics.update(timing_metrics(spec, d, U, counters, occ, cycles))
    per_pc = {"warp": M.pc_warp.copy(), "thread": M.pc_thread.copy(), "stall": U.sched.pc_stall.copy(),
              "sectors": U.lsu.pc_sectors.copy(), "requests": U.lsu.pc_requests.copy(),
              "wavefronts": U.smem.pc_wavefronts.copy(), "bank_conflicts": U.smem.pc_conflicts.copy()}
    rec = decode(U.events, cycles, spec.clock_mhz, nsub, spec.l2.slices, total)
    return TimingRun(cycles, metrics, per_pc, occ, collect(d, M, b, checks[1]), rec)
