"""Why a warp did not issue: the stall reasons, in Nsight Compute's names (smsp__pcsamp_warps_issue_stalled_*).

The scheduler charges every cycle of a resident warp's life to one reason: the unit that holds it
(scoreboard, pipelines, LSU/MIO queues, fetch, barrier, branch unit) or its own scheduler
(not_selected, selected).
"""
from gpusim.isa import opcodes as oc
from gpusim.jit import njit

STALLS = ["long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle",
          "math_pipe_throttle", "wait", "not_selected", "selected", "no_instruction", "branch_resolving",
          "membar", "dispatch_stall", "drain", "gmma", "imc_miss"]
(LONG_SCOREBOARD, SHORT_SCOREBOARD, BARRIER, MIO_THROTTLE, LG_THROTTLE, MATH_PIPE_THROTTLE, WAIT, NOT_SELECTED,
 SELECTED, NO_INSTRUCTION, BRANCH_RESOLVING, MEMBAR, DISPATCH_STALL, DRAIN, GMMA, IMC_MISS) = range(len(STALLS))
# barrier: also mbarrier waits (try_wait/test_wait on an incomplete phase, or before a bulk copy lands) and
# wgmma.wait_group: the H100 charges its WARPGROUP.DEPBAR to barrier (per-SASS stall sampling,
# validation/data/h100/ncu/sass_stalls_2026-11-27); membar: also cp.async.bulk.wait_group (gpusim/sm/asyncops.py);
# gmma: the H100's warpgroup-arrive stall, a few hundredths of a cycle per instruction there (not produced);
# imc_miss: a kernel parameter or launch constant not yet in the SM's immediate-constant cache (sm/fetch.py)


@njit(no_cpython_wrapper=True, inline="always")
def sampled_as(P, pc, reason, xu_alone):
    """The reason Nsight Compute samples a hold as: a warp held for the busy SFU (MUFU, xu) pipe is
    mio_throttle, not math_pipe_throttle: the MUFU goes through the MIO queue (the sfu_rate probe with every
    reason sampled, probe_sfu_rate_h200.json: at 98.6% xu occupancy mio_throttle 6.5 cycles per instruction,
    math_pipe_throttle 0.01, and wait 2.9 from the stall counts). So is one held for a conversion the SASS model
    puts on the xu pipe alone (`xu_alone`, sm/pipelines.py `xu_only`: an F2I, probe conv_rate: mio_throttle 3.6
    cycles per instruction at 96% of the xu pipe's peak, math_pipe_throttle 0.25)."""
    if reason == MATH_PIPE_THROTTLE and pc >= 0 and (P.ins[pc, oc.F_CLASS] == oc.C_SFU or xu_alone):
        return MIO_THROTTLE
    return reason

