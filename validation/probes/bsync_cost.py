"""Probe (device; also runs in gpusim): what a warp pays at ptxas's convergence barrier (BSSY/BSYNC) around an
`if` it may diverge on, when it does not diverge.

ptxas brackets a branch a warp may diverge on with BSSY (before) and BSYNC (at the join). In the H100's
per-SASS stall tables (validation/data/h100/ncu/sass_stalls*/) the instruction after a BSYNC carries about 12
cycles of branch_resolving and 4 of wait per execution (prog_reduce_shared, ho_stencil1d, ho_reduce4_first_add,
the grid-stride reductions, l2_rmw_8mb), whether or not the warp had diverged there; gpusim charged a join
nothing. Here one warp per SM walks a loop of STEPS trips, timed with %clock64; each trip runs a dependent
integer chain and, in the forms with an `if`, a body of the same chain plus a shared-memory store under
`if lane < k` (k a kernel argument, so ptxas cannot fold it):

  0 plain     no `if`: the chain alone
  1 skipped   the `if` with k = 0: every lane skips the body (the warp takes the branch to the join)
  2 taken     the `if` with k = 32: every lane runs the body (the warp falls through to the join)
  3 divergent the `if` with k = 16: half the lanes run the body (the warp splits, and its paths meet at the join)

Per form: cycles per trip (median over the 132 warps); `if` forms minus the plain form give the join's cost.

    python3 validation/probes/bsync_cost.py --out validation/data/h100/probe_bsync_cost_h200.json
    python3 validation/probes/bsync_cost.py --gpusim [--set K=V] --out PATH
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, int32  # noqa: E402

from validation.cases._intrinsics import clock64  # noqa: E402

FORMS = ("plain", "skipped", "taken", "divergent")
STEPS = 256


def bsync_plain(k, out, rec):
    tid = cuda.threadIdx.x
    lane = tid & 31
    sh = cuda.shared.array(64, int32)
    v = int32(lane * 7 + 3)
    u = int32(lane + k)
    t0 = clock64()
    for i in range(STEPS):
        v = (v * 3 + i) ^ (v >> 2)
    t1 = clock64()
    sh[lane] = u
    cuda.syncthreads()
    g = cuda.blockIdx.x * cuda.blockDim.x + tid
    out[g] = v + u + sh[lane]
    if lane == 0:
        w = g >> 5
        rec[w, 0] = t0
        rec[w, 1] = t1


def bsync_if(k, out, rec):
    tid = cuda.threadIdx.x
    lane = tid & 31
    sh = cuda.shared.array(64, int32)
    v = int32(lane * 7 + 3)
    u = int32(lane + 1)
    sh[lane] = u
    t0 = clock64()
    for i in range(STEPS):
        v = (v * 3 + i) ^ (v >> 2)
        if lane < k:
            u = (u * 5 + v) ^ (u >> 3)
            sh[lane] = u
            u = (u * 7 + i) ^ (u >> 1)
            sh[lane + 32] = u
    t1 = clock64()
    cuda.syncthreads()
    g = cuda.blockIdx.x * cuda.blockDim.x + tid
    out[g] = v + u + sh[lane]
    if lane == 0:
        w = g >> 5
        rec[w, 0] = t0
        rec[w, 1] = t1


def run(launch, form: int, grid: int) -> dict:
    block = 32
    out = np.zeros(grid * block, np.int32)
    rec = np.zeros((grid * block // 32, 2), np.int64)
    k = {1: 0, 3: 16}.get(form, 32)
    launch(bsync_plain if form == 0 else bsync_if, grid, block, np.int32(k), out, rec)
    per_trip = (rec[:, 1] - rec[:, 0]) / STEPS
    return {"form": FORMS[form], "k": k, "cycles_per_trip": float(np.median(per_trip)),
            "min": float(per_trip.min()), "max": float(per_trip.max()), "warps": int(per_trip.size)}


def main():
    from validation.probes._device import clock_probe
    clock_probe("bsync_cost", __doc__, lambda launch, args: (run(launch, f, args.grid) for f in range(len(FORMS))),
                settings={"steps": STEPS}, grid=(int, 132))


if __name__ == "__main__":
    main()
