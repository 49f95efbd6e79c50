"""Timing counters -> Nsight Compute-named metrics: each unit names its own counters
(`counters(state)` in its module); this module adds what needs several units or the launch."""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.memory import dram, dsm, interconnect, l1, l2, shared_banks
from gpusim.sm import asyncops, fetch, lsu, pipelines
from gpusim.sm.stalls import STALLS
from gpusim.timing.core import DIVERGENT_DELAYS, ISSUED
from gpusim.timing.residency import WARPS_LAUNCHED


def _pct(a, b):
    return 100.0 * a / b if b else 0.0


def reduction_pcs(d, sb) -> np.ndarray:
    """pcs of global atomics that ptxas emits as reductions (RED): `red`, and `atom` whose old value
    no instruction reads. ncu counts their requests under op_red, the others under op_atom."""
    op = d.ins[:, oc.F_OP]
    atomic = ((op == oc.OP["atom"]) | (op == oc.OP["red"])) & (d.ins[:, oc.F_SPACE] != oc.SPACE["shared"])
    read = set(int(r) for r in sb.reads.ravel() if r >= 0)
    unused = np.array([all(int(r) < 0 or int(r) not in read for r in sb.writes[pc]) for pc in range(d.n)], bool)
    return np.flatnonzero(atomic & ((op == oc.OP["red"]) | unused))


def timing_metrics(spec, d, U, counters, occ, cycles: int) -> dict:
    red = int(U.lsu.pc_requests[reduction_pcs(d, U.scoreboard)].sum())
    atom = int(U.lsu.counters[lsu.ATOM_REQUESTS])
    ptx_issued = int(counters[ISSUED])
    # SASS instructions issued: the PTX model issues one per PTX instruction; the SASS model what ptxas made
    issued = int(U.pipes.counters[pipelines.SLOTS_ISSUED]) // pipelines.SLOT or 1
    res = U.residency
    sm_active_sum = int(res.active_cycles.sum())
    m = {
        "gpc__cycles_elapsed.max": cycles,
        "gpu__time_duration.sum": cycles / spec.clock_mhz * 1e3,      # ns
        "sm__cycles_active.avg": sm_active_sum / spec.n_sm,
        "sm__inst_executed.avg.per_cycle_active": issued / (sm_active_sum or 1),
        "sm__warps_active.avg.pct_of_peak_sustained_active":
            _pct(int(res.warp_area.sum()), sm_active_sum * spec.sm.max_warps),
        "sm__maximum_warps_per_active_cycle_pct": occ.theoretical_pct,
        "launch__occupancy_limit_blocks": occ.limits["blocks"],
        "launch__occupancy_limit_warps": occ.limits["warps"],
        "launch__occupancy_limit_registers": occ.limits["registers"],
        # as ncu counts it: the CTAs the launch's carve-out holds (at least the CTAs resident)
        "launch__occupancy_limit_shared_mem": (
            min(spec.sm.max_ctas, (spec.l1.unified - spec.l1.size) // occ.smem_per_cta)
            if spec.l1.unified and occ.smem_per_cta else occ.limits["shared_mem"]),
        "launch__waves_per_multiprocessor": occ.waves,
        # the launch's spec holds its L1 as the carve-out left it (gpusim/timing/engine.py)
        "launch__shared_mem_config_size": spec.l1.unified - spec.l1.size if spec.l1.unified else 0,
        "gpusim__l1_data_bytes": spec.l1.size,
        "launch__registers_per_thread": occ.regs_per_thread,
        "launch__occupancy_limiter": occ.limiter,
        "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": atom - red,
        "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum": red,
    }
    # what reached DRAM during the kernel (write-backs of evicted lines), as ncu counts it; the dirty
    # data still in the L2 when the kernel ends is reported apart: it costs no kernel time
    for unit, state in ((lsu, U.lsu), (shared_banks, U.smem), (l1, U.l1), (l2, U.l2), (dram, U.dram),
                        (interconnect, U.noc), (fetch, U.fetch), (pipelines, U.pipes), (asyncops, U.asyncu),
                        (dsm, U.dsm)):
        m.update(unit.counters(state))
    warps = int(res.counters[WARPS_LAUNCHED]) or 1
    for i, name in enumerate(STALLS):     # per warp over its life, and per issued instruction
        m[f"smsp__average_warp_latency_issue_stalled_{name}.ratio"] = int(U.sched.stall[i]) / warps
        m[f"smsp__average_warps_issue_stalled_{name}_per_issue_active.ratio"] = int(U.sched.stall[i]) / issued
    if issued != ptx_issued:        # the SASS model: ncu's instruction count is of SASS
        m["gpusim__ptx_inst_executed.sum"] = ptx_issued
        m["smsp__inst_executed.sum"] = issued
        m["smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"] = 1.0   # one per SASS issue
    m["gpusim__divergent_branch_delays.sum"] = int(counters[DIVERGENT_DELAYS])
    m["smsp__issue_active.avg.pct_of_peak_sustained_active"] = _pct(
        issued, sm_active_sum * spec.scheduler.subpartitions)
    return m
