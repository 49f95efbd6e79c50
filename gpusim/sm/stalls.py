"""Why a warp did not issue: the stall reasons, in Nsight Compute's names (smsp__pcsamp_warps_issue_stalled_*).

The scheduler charges every cycle of a resident warp's life to one reason: the unit that holds it
(scoreboard, pipelines, LSU/MIO queues, fetch, barrier, branch unit) or its own scheduler
(not_selected, selected).
"""
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
