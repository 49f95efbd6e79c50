"""Probe (device; also runs in gpusim): how long does a warp shuffle take to its consumer?

gpusim gives a SHFL's result to its consumer after `pipes.lat_misc` cycles (12) plus the MIO queue. On the H200,
tri_softmax's reductions (a SHFL.BFLY, then an FMNMX or FADD on its result, five times per row) wait about 1.8x
longer on short_scoreboard per step than gpusim's (data/h100/ncu/sass_stalls_triton_2026-11-28). Here each
warp walks a dependent chain of STEPS steps, timed with %clock64, in one of three forms:

  0 shfl      v = shfl_xor(v, m)                 the shuffle alone (int32)
  1 shfl_max  v = max(v, shfl_xor(v, m))         a max-reduction step, as Triton's (float32)
  2 shfl_add  v = v + shfl_xor(v, m)             a sum-reduction step (float32)

with m cycling through 16, 8, 4, 2, 1 (the butterfly of a warp reduction), at 1 warp per SM (block 32), one per
sub-partition (block 128) and four per sub-partition (block 512), one CTA per SM (132 CTAs). Per form and block:
cycles per step (median over the warps: the warp's clock span over its steps).

    python3 validation/probes/shfl_chain.py --out validation/data/h100/probe_shfl_chain_h200.json
    python3 validation/probes/shfl_chain.py --gpusim [--set K=V] --out PATH
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, float32, int32  # noqa: E402

from validation.cases._intrinsics import clock64  # noqa: E402

FORMS = ("shfl", "shfl_max", "shfl_add")
BLOCKS = (32, 128, 512)
STEPS = 640                     # 128 butterflies of five shuffles
FULL = 0xFFFFFFFF


def shfl_chain(form, out, rec):
    tid = cuda.threadIdx.x
    lane = tid & 31
    v = int32(lane * 7 + 3)
    f = float32(lane) * float32(0.5)
    t0 = clock64()
    if form == 0:
        for _ in range(STEPS // 5):
            v = cuda.shfl_xor_sync(FULL, v, 16)
            v = cuda.shfl_xor_sync(FULL, v, 8)
            v = cuda.shfl_xor_sync(FULL, v, 4)
            v = cuda.shfl_xor_sync(FULL, v, 2)
            v = cuda.shfl_xor_sync(FULL, v, 1)
    elif form == 1:
        for _ in range(STEPS // 5):
            f = max(f, cuda.shfl_xor_sync(FULL, f, 16))
            f = max(f, cuda.shfl_xor_sync(FULL, f, 8))
            f = max(f, cuda.shfl_xor_sync(FULL, f, 4))
            f = max(f, cuda.shfl_xor_sync(FULL, f, 2))
            f = max(f, cuda.shfl_xor_sync(FULL, f, 1))
            f = f - float32(1.0)
    else:
        for _ in range(STEPS // 5):
            f = f + cuda.shfl_xor_sync(FULL, f, 16)
            f = f + cuda.shfl_xor_sync(FULL, f, 8)
            f = f + cuda.shfl_xor_sync(FULL, f, 4)
            f = f + cuda.shfl_xor_sync(FULL, f, 2)
            f = f + cuda.shfl_xor_sync(FULL, f, 1)
            f = f * float32(0.0009765625)
    t1 = clock64()
    g = cuda.blockIdx.x * cuda.blockDim.x + tid
    out[g] = f + float32(v)
    if lane == 0:
        w = g >> 5
        rec[w, 0] = t0
        rec[w, 1] = t1


def run(launch, form: int, block: int, grid: int) -> dict:
    out = np.zeros(grid * block, np.float32)
    rec = np.zeros((grid * block // 32, 2), np.int64)
    launch(shfl_chain, grid, block, np.int64(form), out, rec)
    per_step = (rec[:, 1] - rec[:, 0]) / STEPS
    return {"form": FORMS[form], "block": block, "warps_per_subpartition": max(1, block // 128),
            "cycles_per_step": float(np.median(per_step)), "min": float(per_step.min()),
            "max": float(per_step.max()), "warps": int(per_step.size)}


def main():
    from validation.probes._device import clock_probe
    clock_probe("shfl_chain", __doc__, lambda launch, args: (run(launch, f, b, args.grid) for f in range(len(FORMS))
                                                            for b in BLOCKS),
                settings={"steps": STEPS}, grid=(int, 132))


if __name__ == "__main__":
    main()
