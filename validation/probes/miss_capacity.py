"""Probe (device only; also runs in gpusim): how many sector misses can one SM have in flight?

One block of W warps on ONE SM (grid 1, so the SM has DRAM to itself) runs ITERS rounds; in each round
every warp issues LOADS independent loads, each lane reading one word of its own 128-B line (32 lines,
32 sectors per warp load) of an 8 MiB buffer that a 256 MiB write evicted from the L2 before the launch,
no line read twice: every sector a miss to DRAM. Then it adds them up. Cycles per round (%clock64 around
the loop, thread 0) against the sectors a round asks for (W * LOADS * 32): while the SM can keep them all
in flight a round costs about one DRAM round trip plus the LSU's tag lookups; past its miss capacity M,
about (sectors / M) round trips. `l2`: the same after a first launch put the buffer in the L2 (a
shorter round trip: a capacity limit gives shorter rounds, a bandwidth limit the same).
gpusim keeps `l1.mshrs` (1024) sector misses per SM.

    python3 validation/probes/miss_capacity.py --out validation/data/h100/probe_miss_capacity.json
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, float32  # noqa: E402

from validation.cases._intrinsics import clock64  # noqa: E402

ITERS, LOADS = 16, 4
WARPS = (1, 2, 4, 8, 16, 32)
LINE_WORDS = 32


def rounds(buf, out, cycles):
    tid = cuda.threadIdx.x
    lane = tid & 31
    warp = tid >> 5
    nw = cuda.blockDim.x >> 5
    acc = float32(0)
    t0 = clock64()
    for it in range(ITERS):
        # load k of warp w in round it: 32 fresh lines, lane l in line l of that group
        g = ((it * nw + warp) * LOADS) * 32 + lane
        s0 = buf[(g + 0 * 32) * LINE_WORDS]
        s1 = buf[(g + 1 * 32) * LINE_WORDS]
        s2 = buf[(g + 2 * 32) * LINE_WORDS]
        s3 = buf[(g + 3 * 32) * LINE_WORDS]
        acc += (s0 + s1) + (s2 + s3)
    t1 = clock64()
    out[tid] = acc
    if tid == 0:
        cycles[0] = t1 - t0


def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from validation.probes._device import provenance, write
    words = ITERS * 32 * LOADS * 32 * LINE_WORDS
    buf = cuda.to_device(np.ones(words, np.float32))
    k = cuda.jit(rounds)
    fk = cuda.jit(fill)
    flush = cuda.device_array(1 << 26, np.float32)
    runs = []
    for source in ("dram", "l2"):
        for w in WARPS:
            per = []
            for rep in range(3):
                fk[(flush.size + 255) // 256, 256](flush)         # 256 MiB: the L2 holds none of buf
                out = cuda.device_array(32 * w, np.float32)
                cyc = cuda.device_array(1, np.int64)
                if source == "l2":      # a first launch brings buf (8 MiB) into the L2; the L1 starts cold
                    k[1, 32 * w](buf, out, cyc)
                k[1, 32 * w](buf, out, cyc)
                cuda.synchronize()
                per.append(int(cyc.copy_to_host()[0]) / ITERS)
            sectors = w * LOADS * 32
            runs.append({"source": source, "warps": w, "sectors_per_round": sectors, "cycles_per_round": per,
                         "cycles_per_round_median": float(np.median(per))})
            print(source, w, sectors, per, flush=True)
    write(args.out, {"probe": "miss_capacity", "description": __doc__.split("\n\n")[0], "iters": ITERS,
                     "loads": LOADS, "runs": runs, "provenance": provenance()})


if __name__ == "__main__":
    main()
