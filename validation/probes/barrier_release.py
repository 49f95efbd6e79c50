"""Probe (device only): what a bar.sync round costs as the block grows.

One block per SM (132) of 32 to 1024 threads runs LOOP_ITERS back-to-back bar.syncs (every warp arrives
together); thread 0 reads %clock64 around the loop. Cycles per round, median over the SMs: on the H100
31.4 for one warp, 41.9 for 8, 64.7 for 16 and 115.8 for 32: past 8 warps each further warp adds about 3
cycles, however few instructions it issues. (A first version timed each warp's wake-up with %clock64
reads around the barrier; it was dropped: the reads gave no usable order.)

    python3 validation/probes/barrier_release.py --out validation/data/h100/probe_barrier_release.json
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402
from validation.probes._device import provenance, write  # noqa: E402

LOOP_ITERS = 2000


@cuda.jit
def bar_loop(iters, rec):
    """iters back-to-back bar.syncs (every warp arrives together): cycles per barrier round."""
    tid = cuda.threadIdx.x
    t0 = clock64()
    for _ in range(iters):
        cuda.syncthreads()
    t1 = clock64()
    if tid == 0:
        rec[cuda.blockIdx.x, 0] = smid()
        rec[cuda.blockIdx.x, 1] = t1 - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    loops = []
    for block in (32, 64, 128, 256, 512, 1024):
        rec = cuda.device_array((132, 2), np.int64)
        for _ in range(3):
            bar_loop[132, block](np.int64(LOOP_ITERS), rec)
        cuda.synchronize()
        r = rec.copy_to_host()
        per = float(np.median(r[:, 1])) / LOOP_ITERS
        loops.append({"block": block, "warps": block // 32, "cycles_per_barrier_median": per})
        print("bar_loop", block, per, flush=True)
    doc = {"probe": "barrier_release", "description": __doc__.split("\n\n")[0], "bar_loop": loops,
           "provenance": provenance()}
    write(args.out, doc)


if __name__ == "__main__":
    main()
