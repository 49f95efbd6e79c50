"""Probe (device only): does the H100's warp scheduler starve warps when spinning warps fill its issue slots?

Every thread spins on %clock64 for SPIN cycles from its first clock read, counting its loop trips; lane 0
of each warp records %smid, that first read, the read that ended its spin and the trips. A strictly greedy
scheduler (gto/gty in gpusim) that keeps issuing the older (or younger) warps' spin loops leaves warps it
puts last without an issue slot: they read their first clock late (a wide spread of first reads) and make
few trips. Round robin gives every warp about the same trips. Two kernels: `spin_first` reads the clock
first; `spin_late` runs a 48-step dependent integer chain before it (a prologue during which a greedy
order could already starve young warps). Blocks of 1024 threads, 1 and 2 per SM (grids 132 and 264).

    python3 validation/probes/sched_spin.py --out validation/data/h100/probe_sched_spin.json
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

SPIN = 20000
CHAIN = 48


@cuda.jit
def spin_first(cycles, seed, rec):
    t0 = clock64()
    trips = 0
    t = t0
    while t - t0 < cycles:
        t = clock64()
        trips += 1
    tid = cuda.threadIdx.x
    if tid % 32 == 0:
        w = (cuda.blockIdx.x * cuda.blockDim.x + tid) // 32
        rec[w, 0] = smid()
        rec[w, 1] = t0
        rec[w, 2] = t
        rec[w, 3] = trips


@cuda.jit
def spin_late(cycles, seed, rec):
    x = seed[cuda.threadIdx.x]
    for _ in range(CHAIN):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    t0 = clock64()
    trips = 0
    t = t0
    while t - t0 < cycles:
        t = clock64()
        trips += 1
    tid = cuda.threadIdx.x
    if tid % 32 == 0:
        w = (cuda.blockIdx.x * cuda.blockDim.x + tid) // 32
        rec[w, 0] = smid()
        rec[w, 1] = t0
        rec[w, 2] = t
        rec[w, 3] = trips + (x & 1) * 0      # keeps the chain


def per_sm(rec: np.ndarray) -> dict:
    spreads, ends, trips_ratio = [], [], []
    for s in np.unique(rec[:, 0]):
        r = rec[rec[:, 0] == s]
        spreads.append(int(r[:, 1].max() - r[:, 1].min()))
        ends.append(int(r[:, 2].max() - r[:, 1].min()))
        trips_ratio.append(float(r[:, 3].min() / max(1, r[:, 3].max())))
    return {"first_read_spread_median": float(np.median(spreads)), "first_read_spread_max": int(max(spreads)),
            "span_median": float(np.median(ends)), "trips_min_over_max_median": float(np.median(trips_ratio))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    seed = cuda.to_device(np.arange(1024, dtype=np.int64))
    runs = []
    for name, k in (("spin_first", spin_first), ("spin_late", spin_late)):
        for grid in (132, 264):
            rec = cuda.device_array((grid * 32, 4), np.int64)
            for _ in range(2):
                k[grid, 1024](np.int64(SPIN), seed, rec)
            cuda.synchronize()
            r = rec.copy_to_host()
            one = r[r[:, 0] == r[0, 0]]
            t0 = one[:, 1] - one[:, 1].min()
            run = {"kernel": name, "grid": grid, "block": 1024, **per_sm(r),
                   "sm0_first_read_rel": t0.tolist(), "sm0_trips": one[:, 3].tolist()}
            runs.append(run)
            print(name, grid, {k2: v for k2, v in run.items() if not k2.startswith("sm0")}, flush=True)
    doc = {"probe": "sched_spin", "description": __doc__.split("\n\n")[0], "spin_cycles": SPIN, "runs": runs,
           "provenance": provenance()}
    write(args.out, doc)


if __name__ == "__main__":
    main()
