"""Probe (device; also runs in gpusim): do the register-bank conflicts of the divergence microbenchmarks' FMA
chain cost the H200 what chain_rate's do?

The divergence cases' chain, `acc = fma(acc, b, c)` with b loaded and c = q + 1 (validation/cases/divergence.py),
becomes in ptxas's SASS `FFMA R0, R11, R0, R16` (the chain and the addend in one bank) and `FFMA R19, R11, R19,
R16` (the chain and the multiplier in the other), which gpusim's bank rule (gpusim/sasslisting.py
`bank_conflicts`) counts as conflicts; with them gpusim runs those cases 1-3 points slower and samples 0.15
cycles of dispatch_stall per instruction where the H100 samples none. Here the chain (numba, as the cases are
written) runs WORK fused multiply-adds, timed with %clock64 per warp, one CTA per SM of 2 or 8 warps a
sub-partition:

  bc   acc = fma(acc, b, c), c = q + 1 (the divergence cases' chain, npaths = 1)
  imm  acc = fma(acc, b, 1.5)  (no conflict: `FFMA R8, R11, R8, 1.5`)

Per form and shape: cycles per FMA per warp (median over warps).

    python3 validation/probes/bank_forms.py --out validation/data/h100/probe_bank_forms_h200.json
    python3 validation/probes/bank_forms.py --gpusim --out PATH
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64  # noqa: E402
from validation.probes._device import clock_probe  # noqa: E402

WORK = 1024


def chain_bc(paths, npaths, work, b_in, out, times):
    t = cuda.grid(1)
    k = paths[t]
    b = b_in[0]
    acc = np.float32(0)
    t0 = clock64()
    for q in range(npaths):
        if k == q:
            c = np.float32(q + 1)
            for _ in range(work):
                acc = cuda.fma(acc, b, c)
    t1 = clock64()
    out[t] = acc
    if cuda.threadIdx.x % 32 == 0:
        times[t // 32] = t1 - t0


def chain_imm(paths, npaths, work, b_in, out, times):
    t = cuda.grid(1)
    k = paths[t]
    b = b_in[0]
    acc = np.float32(0)
    t0 = clock64()
    for q in range(npaths):
        if k == q:
            for _ in range(work):
                acc = cuda.fma(acc, b, np.float32(1.5))
    t1 = clock64()
    out[t] = acc
    if cuda.threadIdx.x % 32 == 0:
        times[t // 32] = t1 - t0


FORMS = {"bc": chain_bc, "imm": chain_imm}


def rows(launch, args):
    grid = args.grid
    for block in (256, 1024):
        for name, kernel in FORMS.items():
            n = grid * block
            times = np.zeros(n // 32, np.int64)
            launch(kernel, grid, block, np.zeros(n, np.int32), np.int64(1), np.int64(args.work),
                   np.ones(1, np.float32), np.zeros(n, np.float32), times)
            yield {"form": name, "grid": grid, "block": block, "warps_per_subpartition": block // 128,
                   "work": args.work, "cycles_per_fma": float(np.median(times)) / args.work}


if __name__ == "__main__":
    clock_probe("bank_forms", __doc__.split("\n\n")[0], rows, grid=(int, 132), work=(int, WORK))
