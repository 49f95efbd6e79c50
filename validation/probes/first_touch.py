"""Probe (device only): what the first load to a page costs an SM, against later DRAM misses to the same page.

One warp per SM (132 x 32; lane 0 works), each SM in its own 4 MiB of a 528 MiB buffer: a chain of dependent
loads, each to a line nothing has read yet (a DRAM miss), timed one by one (clock64 before the load, the value
stored to global memory, clock64 again). The steps, in order:
  0  page 0, line at +0            the SM's first load: cold translation, cold DRAM row
  1  page 0, +1 MiB - 8 KiB        same 2-MiB page, another 64-KiB page of it
  2  page 0, +256 KiB              same 2-MiB page
  3  page 0, +8 KiB                same 64-KiB page as step 0
  4  page 1, +2 MiB + 24 KiB       the SM's first load to its second 2-MiB page
  5  page 1, +3 MiB                same 2-MiB page
  6  page 0, +0                    step 0's line again: an L2 hit
  7  page 0, +512 KiB + 40 KiB     a last DRAM miss in page 0
The kernel runs three times in the process, each launch on lines 128 B further on (new DRAM misses, the same
pages). If the first load to a page pays a translation miss the H100's TLBs keep, steps 0 and 4 of the first
launch are slower than steps 1-3, 5 and 7, and the later launches' are not.

    python3 validation/probes/first_touch.py --out validation/data/h100/probe_first_touch.json
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402
from validation.probes._device import provenance  # noqa: E402

REGION = 4 << 20             # bytes per SM
STEPS = 8
OFFSETS = np.array([0, (1 << 20) - 8192, 256 << 10, 8192, (2 << 20) + 24576, 3 << 20, 0, (512 << 10) + 40960],
                   np.int64) // 4        # in int32 words
LAUNCHES = 3


@cuda.jit
def first_touch(a, offs, shift, times, seen, where):
    if cuda.threadIdx.x != 0:
        return
    blk = cuda.blockIdx.x
    base = blk * (REGION // 4) + shift
    v = 0
    for i in range(STEPS):
        j = base + offs[i] + (v >> 30)          # v < 2**30: always + 0, but the load must wait for v
        t0 = clock64()
        v = a[j]
        seen[blk * STEPS + i] = v               # the store waits for the load's data; the clock is read after it
        t1 = clock64()
        times[blk * STEPS + i] = t1 - t0
    where[blk] = smid()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    grid = 132
    a = cuda.to_device(np.zeros(grid * REGION // 4, np.int32))
    offs = cuda.to_device(OFFSETS)
    runs = []
    for k in range(LAUNCHES):
        times = cuda.device_array(grid * STEPS, np.int64)
        where = cuda.device_array(grid, np.int64)
        seen = cuda.device_array(grid * STEPS, np.int32)
        first_touch[grid, 32](a, offs, np.int64(32 * k), times, seen, where)
        cuda.synchronize()
        t = times.copy_to_host().reshape(grid, STEPS).astype(np.float64)
        runs.append({"launch": k, "shift_bytes": 128 * k,
                     "median_per_step": [float(np.median(t[:, i])) for i in range(STEPS)],
                     "p10_per_step": [float(np.percentile(t[:, i], 10)) for i in range(STEPS)],
                     "p90_per_step": [float(np.percentile(t[:, i], 90)) for i in range(STEPS)],
                     "smids": sorted(set(int(x) for x in where.copy_to_host()))[:4]})
        print(f"launch {k}: median cycles per step {[int(x) for x in runs[-1]['median_per_step']]}", flush=True)
    doc = {"probe": "first_touch", "description": __doc__.split("\n\n")[0], "region_bytes": REGION,
           "offsets_bytes": [int(x) * 4 for x in OFFSETS], "grid": grid, "runs": runs, "provenance": provenance()}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
