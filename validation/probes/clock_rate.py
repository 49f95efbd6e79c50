"""Probe (device; also runs in gpusim): how many %clock64 reads per cycle does an SM's sub-partition issue?

The sched_spin probe found a spin trip on %clock64 costing ~10 cycles per scheduler whatever the number of
warps, far below the issue rate, and named the clock read (CS2R SR_CLOCKLO) as the likely shared, slow
part. Here each warp of one CTA per SM reads %clock64 eight times per loop iteration, folding the values
with XOR (so no read is dead) -- `clock_reads` -- or does the same number of 64-bit XORs of a loop-carried
value with no clock read -- `xor_only`, the control. Lane 0 of every warp records %smid and the clock
around its loop; per SM the loop's span over the reads (or XOR steps) all its warps made gives reads per
cycle, for 1 to 32 warps per SM (0.25 to 8 per sub-partition).

    python3 validation/probes/clock_rate.py --out validation/data/h100/probe_clock_rate.json
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402

GRID, ITERS = 132, 64
BLOCKS = (32, 128, 256, 512, 1024)
STEPS = 8                          # clock reads (or XOR steps) per iteration


def clock_reads(iters, out, rec):
    acc = 0
    t0 = clock64()
    for _ in range(iters):
        acc ^= clock64()
        acc ^= clock64()
        acc ^= clock64()
        acc ^= clock64()
        acc ^= clock64()
        acc ^= clock64()
        acc ^= clock64()
        acc ^= clock64()
    t1 = clock64()
    # lane 0 records the warp's SM and loop clocks (inline: gpusim compiles kernels without a CUDA driver)
    g = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    out[g] = acc
    if cuda.threadIdx.x % 32 == 0:
        rec[g // 32, 0] = smid()
        rec[g // 32, 1] = t0
        rec[g // 32, 2] = t1


def xor_only(iters, out, rec):
    acc = iters * 0 + cuda.threadIdx.x
    t0 = clock64()
    for i in range(iters):
        acc ^= i
        acc ^= acc << 1
        acc ^= i + 3
        acc ^= acc >> 2
        acc ^= i + 5
        acc ^= acc << 3
        acc ^= i + 7
        acc ^= acc >> 1
    t1 = clock64()
    g = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    out[g] = acc
    if cuda.threadIdx.x % 32 == 0:
        rec[g // 32, 0] = smid()
        rec[g // 32, 1] = t0
        rec[g // 32, 2] = t1


KERNELS = {"clock_reads": clock_reads, "xor_only": xor_only}


def analyse(rec: np.ndarray, iters: int) -> dict:
    """Steps (clock reads or XORs) per cycle per SM and per sub-partition, median over SMs."""
    rates = []
    for s in np.unique(rec[:, 0]):
        r = rec[rec[:, 0] == s]
        span = float(r[:, 2].max() - r[:, 1].min())
        rates.append(STEPS * iters * r.shape[0] / span)
    per_sm = float(np.median(rates))
    return {"warp_steps_per_cycle_per_sm": per_sm, "cycles_per_step_per_subpartition": 4.0 / per_sm}


def run(launch, name: str, block: int, iters: int = ITERS, grid: int = GRID) -> np.ndarray:
    out = np.zeros(grid * block, np.int64)
    rec = np.zeros((grid * block // 32, 3), np.int64)
    launch(KERNELS[name], grid, block, np.int64(iters), out, rec)
    return rec


def main():
    from validation.probes._device import device_launch, measure, out_path, write
    out = out_path()
    launch = device_launch()
    write(out, measure("clock_rate", __doc__, ({"kernel": name, "block": block, "warps_per_sm": block // 32,
                                                **analyse(run(launch, name, block), ITERS)}
                                               for name in KERNELS for block in BLOCKS),
                       grid=GRID, iters=ITERS, steps_per_iteration=STEPS))


if __name__ == "__main__":
    main()
