"""Timing-mode launch: builds executor and timing state, runs the kernel as simpy events
(launch overhead, CTA dispatch by the GigaThread engine, completion) around the numba core."""
from __future__ import annotations

import simpy

from gpusim.errors import KernelFault, LaunchError
from gpusim.sm.state import make_mach, make_prog
from gpusim.timing.gigathread import GigaThread
from gpusim.timing.metrics import timing_metrics
from gpusim.timing.occupancy import occupancy
from gpusim.timing.state import make_timing


def run_timing(k, d, mem, pmem, g, b, spec, shared_mem, budget, regs_per_thread=None, progress=None):
    """launch() has checked the launch shape, shared memory and options."""
    from gpusim.launch import LaunchResult, fault_message, functional_metrics
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
    wpc = occ.warps_per_cta
    resident = min(occ.ctas_per_sm, -(-total // spec.n_sm))
    maxw = ((resident * wpc + 3) // 4) * 4
    n_warps, n_ctas = spec.n_sm * maxw, spec.n_sm * resident
    P = make_prog(d)
    M = make_mach(d, n_warps, n_ctas, mem.gmem, mem.alo, mem.ahi, pmem, b, g, spec.n_sm, shared_mem, budget)
    T = make_timing(spec, d, n_warps, n_ctas)
    env = simpy.Environment()
    gt = GigaThread(P, M, T, spec, total, nthreads, resident, progress)

    def kernel(env):
        yield env.timeout(spec.gigathread.launch_overhead)
        yield env.process(gt.process(env))

    env.process(kernel(env))
    env.run()
    if gt.fault or M.err[0] != 0:
        raise KernelFault(fault_message(d, M, g, b))
    cycles = max(int(env.now), int(T.drain[0]))     # outstanding stores and atomics drain first
    res = LaunchResult(kernel=d.name, grid=g, block=b, mode="timing", gpu=spec.name, decoded=d)
    res.metrics = functional_metrics(M, d)
    res.metrics.update(timing_metrics(spec, d, M, T, occ, cycles))
    res.cycles = cycles
    res.per_pc = {"warp": M.pc_warp.copy(), "thread": M.pc_thread.copy(), "stall": T.pc_stall.copy(),
                  "sectors": T.pc_sectors.copy(), "requests": T.pc_requests.copy(),
                  "wavefronts": T.pc_wavefronts.copy(), "bank_conflicts": T.pc_conflicts.copy()}
    res.timing = {"occupancy": occ, "clock_mhz": spec.clock_mhz}
    return res
