"""Timing counters -> Nsight Compute-named metrics (pure functions of the state arrays)."""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.memory.cache import dirty_sectors
from gpusim.timing import state_index as ts


def _pct(a, b):
    return 100.0 * a / b if b else 0.0


def reduction_pcs(d, T) -> np.ndarray:
    """pcs of global atomics that ptxas emits as reductions (RED): `red`, and `atom` whose old value
    no instruction reads. ncu counts their requests under op_red, the others under op_atom."""
    op = d.ins[:, oc.F_OP]
    atomic = ((op == oc.OP["atom"]) | (op == oc.OP["red"])) & (d.ins[:, oc.F_SPACE] != oc.SPACE["shared"])
    read = set(int(r) for r in T.srcregs.ravel() if r >= 0)
    unused = np.array([all(int(r) < 0 or int(r) not in read for r in T.dstregs[pc]) for pc in range(d.n)], bool)
    return np.flatnonzero(atomic & ((op == oc.OP["red"]) | unused))


def timing_metrics(spec, d, M, T, occ, cycles: int) -> dict:
    c = T.cnt
    red = int(T.pc_requests[reduction_pcs(d, T)].sum())
    issued = int(c[ts.K_ISSUED]) or 1
    active = [int(x) for x in T.sm_active]
    area = [int(x) for x in T.sm_area]
    sm_active_sum = sum(active)
    m = {
        "gpc__cycles_elapsed.max": cycles,
        "gpu__time_duration.sum": cycles / spec.clock_mhz * 1e3,      # ns
        "sm__cycles_active.avg": sm_active_sum / spec.n_sm,
        "sm__inst_executed.avg.per_cycle_active": issued / (sm_active_sum or 1),
        "sm__warps_active.avg.pct_of_peak_sustained_active":
            _pct(sum(area), sm_active_sum * spec.sm.max_warps),
        "sm__maximum_warps_per_active_cycle_pct": occ.theoretical_pct,
        "launch__occupancy_limit_blocks": occ.limits["blocks"],
        "launch__occupancy_limit_warps": occ.limits["warps"],
        "launch__occupancy_limit_registers": occ.limits["registers"],
        "launch__occupancy_limit_shared_mem": occ.limits["shared_mem"],
        "launch__waves_per_multiprocessor": occ.waves,
        "launch__registers_per_thread": occ.regs_per_thread,
        "launch__occupancy_limiter": occ.limiter,
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": int(c[ts.K_LD_REQ]),
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": int(c[ts.K_LD_SECT]),
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": int(c[ts.K_ST_REQ]),
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": int(c[ts.K_ST_SECT]),
        "l1tex__t_sectors_pipe_lsu_mem_local_op.sum": int(c[ts.K_LOCAL_SECT]),
        "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": int(c[ts.K_ATOM_REQ]) - red,
        "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum": red,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": int(c[ts.K_SH_LD_WF]),
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": int(c[ts.K_SH_ST_WF]),
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": int(c[ts.K_SH_LD_CONF]),
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": int(c[ts.K_SH_ST_CONF]),
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": int(c[ts.K_SH_AT_WF]),
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum": int(c[ts.K_SH_AT_CONF]),
        "l1tex__t_sector_hit_rate.pct": _pct(c[ts.K_L1_HIT], c[ts.K_L1_LOOK]),
        "lts__t_sector_hit_rate.pct": _pct(c[ts.K_L2_HIT], c[ts.K_L2_LOOK]),
        "dram__bytes_read.sum": int(c[ts.K_DRAM_RD]),
        # what reached DRAM during the kernel (write-backs of evicted lines), as ncu counts it; the
        # dirty data still in the L2 when the kernel ends is reported apart: it costs no kernel time
        "dram__bytes_write.sum": int(c[ts.K_DRAM_WR]),
        "gpusim__l2_dirty_bytes_at_end.sum": 32 * dirty_sectors(T.l2_dirty),
    }
    for k, req in (("ld", ts.K_LD_REQ), ("st", ts.K_ST_REQ)):
        m[f"gpusim__sectors_per_request_global_{k}"] = c[req - 0 + 1] / c[req] if c[req] else 0.0
    warps = int(c[ts.K_WARPS]) or 1
    for i, name in enumerate(ts.STALLS):     # per warp over its life, and per issued instruction
        m[f"smsp__average_warp_latency_issue_stalled_{name}.ratio"] = int(T.stall[i]) / warps
        m[f"smsp__average_warps_issue_stalled_{name}_per_issue_active.ratio"] = int(T.stall[i]) / issued
    m["gpusim__l2_far_partition_sectors.sum"] = int(c[ts.K_L2_FAR])
    m["gpusim__l1_mshr_wait_cycles.sum"] = int(c[ts.K_MSHR_WAIT])
    m["gpusim__icache_misses.sum"] = int(c[ts.K_IC_MISS])
    m["gpusim__divergent_branch_delays.sum"] = int(c[ts.K_DIVERGED])
    m["smsp__issue_active.avg.pct_of_peak_sustained_active"] = _pct(
        issued, sm_active_sum * spec.scheduler.subpartitions)
    return m
