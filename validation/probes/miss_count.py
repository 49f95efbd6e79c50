"""Probe (device; also runs in gpusim): one SM's misses in flight when every load asks for whole lines.

The miss_capacity probe (one sector per line) found one SM sending the L2 about one request a cycle past ~600
sectors a round, from the L2 and DRAM alike: a rate, which bounds the SM's count of sector misses in flight only
from below (~650). This probe asks for four sectors a request: one block of W warps on ONE SM (grid 1), ITERS
rounds, each warp issuing LOADS independent coalesced loads a round, each a fresh 128-B line (lane l reads word l),
of a buffer that a 256 MiB write evicted from the L2 before the launch. A round asks for W * LOADS line requests
and four times as many sectors. Cycles per round (%clock64 around the loop, thread 0):
  - a rate of one line request a cycle gives about W * LOADS cycles past the round trip;
  - a rate of one sector (32 B) a cycle, four times that;
  - a count of M sector misses in flight, about (4 * W * LOADS / M) round trips.
`l2` (device only): the same after a first launch put the buffer in the L2; `l2_in_kernel` (both): the block
first reads the buffer into the L2 and 1 MiB more past the L1, then runs the rounds. gpusim keeps `l1.mshrs`
sector misses per SM and sends one line request per `l1.miss_interval` cycles.

    python3 validation/probes/miss_count.py --out validation/data/h100/probe_miss_count_h200.json
    python3 validation/probes/miss_count.py --gpusim [--set l1.mshrs=4096] --out PATH
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
from validation.probes.miss_capacity import fill  # noqa: E402  (the same flush kernel)

ITERS, LOADS = 8, 16
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
        g = ((it * nw + warp) * LOADS) * LINE_WORDS + lane     # load k: line g / 32 + k, lane l its word l
        s0 = buf[g + 0 * LINE_WORDS]
        s1 = buf[g + 1 * LINE_WORDS]
        s2 = buf[g + 2 * LINE_WORDS]
        s3 = buf[g + 3 * LINE_WORDS]
        s4 = buf[g + 4 * LINE_WORDS]
        s5 = buf[g + 5 * LINE_WORDS]
        s6 = buf[g + 6 * LINE_WORDS]
        s7 = buf[g + 7 * LINE_WORDS]
        s8 = buf[g + 8 * LINE_WORDS]
        s9 = buf[g + 9 * LINE_WORDS]
        s10 = buf[g + 10 * LINE_WORDS]
        s11 = buf[g + 11 * LINE_WORDS]
        s12 = buf[g + 12 * LINE_WORDS]
        s13 = buf[g + 13 * LINE_WORDS]
        s14 = buf[g + 14 * LINE_WORDS]
        s15 = buf[g + 15 * LINE_WORDS]
        acc += (((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))) + (((s8 + s9) + (s10 + s11))
                                                                     + ((s12 + s13) + (s14 + s15)))
    t1 = clock64()
    out[tid] = acc
    if tid == 0:
        cycles[0] = t1 - t0


def rounds_l2(buf, evict, out, cycles):
    """rounds with the buffer in the L2 and out of the L1: the block reads it, then 1 MiB more (an LRU L1 of
    224-256 KiB keeps none of it), then runs the rounds (gpusim, whose launches start with cold caches)."""
    tid = cuda.threadIdx.x
    acc = float32(0)
    for i in range(tid, buf.size, cuda.blockDim.x):        # every sector of it
        acc += buf[i]
    for i in range(tid * LINE_WORDS, evict.size, cuda.blockDim.x * LINE_WORDS):
        acc += evict[i]
    cuda.syncthreads()
    lane = tid & 31
    warp = tid >> 5
    nw = cuda.blockDim.x >> 5
    t0 = clock64()
    for it in range(ITERS):
        g = ((it * nw + warp) * LOADS) * LINE_WORDS + lane
        s0 = buf[g + 0 * LINE_WORDS]
        s1 = buf[g + 1 * LINE_WORDS]
        s2 = buf[g + 2 * LINE_WORDS]
        s3 = buf[g + 3 * LINE_WORDS]
        s4 = buf[g + 4 * LINE_WORDS]
        s5 = buf[g + 5 * LINE_WORDS]
        s6 = buf[g + 6 * LINE_WORDS]
        s7 = buf[g + 7 * LINE_WORDS]
        s8 = buf[g + 8 * LINE_WORDS]
        s9 = buf[g + 9 * LINE_WORDS]
        s10 = buf[g + 10 * LINE_WORDS]
        s11 = buf[g + 11 * LINE_WORDS]
        s12 = buf[g + 12 * LINE_WORDS]
        s13 = buf[g + 13 * LINE_WORDS]
        s14 = buf[g + 14 * LINE_WORDS]
        s15 = buf[g + 15 * LINE_WORDS]
        acc += (((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))) + (((s8 + s9) + (s10 + s11))
                                                                     + ((s12 + s13) + (s14 + s15)))
    t1 = clock64()
    out[tid] = acc
    if tid == 0:
        cycles[0] = t1 - t0


def row(source, w, per):
    lines = w * LOADS
    return {"source": source, "warps": w, "line_requests_per_round": lines, "sectors_per_round": 4 * lines,
            "cycles_per_round": per, "cycles_per_round_median": float(np.median(per))}


def gpusim_round(source, w, gpu=None):
    """gpusim's cycles a round (h100 preset or `gpu`, SASS model): `dram` with cold caches, `l2_in_kernel`."""
    import gpusim
    from gpusim.presets import get_preset
    gpu = gpu if gpu is not None else get_preset("h100")
    out = np.zeros(32 * w, np.float32)
    cyc = np.zeros(1, np.int64)
    if source == "dram":
        buf = np.ones(ITERS * 32 * LOADS * LINE_WORDS, np.float32)
        gpusim.launch(rounds, 1, 32 * w, buf, out, cyc, gpu=gpu, mode="timing", model="sass")
    else:
        buf = np.ones(ITERS * w * LOADS * LINE_WORDS, np.float32)      # what the rounds read, in the L2
        gpusim.launch(rounds_l2, 1, 32 * w, buf, np.ones(1 << 18, np.float32), out, cyc, gpu=gpu,
                      mode="timing", model="sass")
    return int(cyc[0]) / ITERS


def on_gpusim(sets):
    from validation.probes._device import gpusim_h100
    gpu, over = gpusim_h100(sets)
    runs = []
    for source in ("dram", "l2_in_kernel"):
        for w in WARPS:
            runs.append(row(source, w, [gpusim_round(source, w, gpu)]))
            print(runs[-1], flush=True)
    return {"probe": "miss_count", "where": "gpusim (h100, SASS model)", "overrides": over, "iters": ITERS,
            "loads": LOADS, "runs": runs}


def on_device():
    from validation.probes._device import kernel_code, provenance
    words = ITERS * 32 * LOADS * LINE_WORDS
    buf = cuda.to_device(np.ones(words, np.float32))
    k = cuda.jit(rounds)
    fk = cuda.jit(fill)
    flush = cuda.device_array(1 << 26, np.float32)
    runs = []
    for source in ("dram", "l2"):
        for w in WARPS:
            per = []
            for _ in range(3):
                fk[(flush.size + 255) // 256, 256](flush)         # 256 MiB: the L2 holds none of buf
                out = cuda.device_array(32 * w, np.float32)
                cyc = cuda.device_array(1, np.int64)
                if source == "l2":      # a first launch brings buf into the L2; the L1 starts cold
                    k[1, 32 * w](buf, out, cyc)
                k[1, 32 * w](buf, out, cyc)
                cuda.synchronize()
                per.append(int(cyc.copy_to_host()[0]) / ITERS)
            runs.append(row(source, w, per))
            print(runs[-1], flush=True)
    k2 = cuda.jit(rounds_l2)
    evict = cuda.to_device(np.ones(1 << 18, np.float32))
    for w in WARPS:         # gpusim's form of `l2`: the block itself reads the buffer into the L2 first
        per = []
        part = cuda.to_device(np.ones(ITERS * w * LOADS * LINE_WORDS, np.float32))
        for _ in range(3):
            fk[(flush.size + 255) // 256, 256](flush)
            out = cuda.device_array(32 * w, np.float32)
            cyc = cuda.device_array(1, np.int64)
            k2[1, 32 * w](part, evict, out, cyc)
            cuda.synchronize()
            per.append(int(cyc.copy_to_host()[0]) / ITERS)
        runs.append(row("l2_in_kernel", w, per))
        print(runs[-1], flush=True)
    return {"probe": "miss_count", "description": __doc__.split("\n\n")[0], "iters": ITERS, "loads": LOADS,
            "runs": runs, "code": kernel_code(k), "provenance": provenance()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpusim", action="store_true", help="run in gpusim (h100, SASS model) instead of the GPU")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="gpusim: a preset override")
    args = ap.parse_args()
    from validation.probes._device import write
    write(args.out, on_gpusim(args.set) if args.gpusim else on_device())


if __name__ == "__main__":
    main()
