"""Probe (device only): per-load L2 hit latency, to see the two L2 partitions of an H100.

One thread chases a random one-cycle chain through a 4 MiB buffer (L2-resident after one warm pass,
too big for the L1), timing every step: clock64 before the load, the loaded index stored to shared
memory (an in-order warp cannot issue past that store until the data is back), clock64 again.
Each step's cycles land in a histogram; the chain runs from several SMs (one block of many, the
others exit at once). On a GPU whose L2 is split into a near and a far partition the histogram has
two modes; their gap is the far partition's extra round trip (`noc.far_latency` in gpusim).

    python3 validation/probes/l2_near_far.py --out validation/data/h100/probe_l2_near_far.json
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402

STEPS = 2048
FOOTPRINT = 4 << 20
STRIDE = 128


@cuda.jit
def chase_timed(arr, start, warm, who, times, where):
    if cuda.blockIdx.x != who or cuda.threadIdx.x != 0:
        return
    idx = cuda.shared.array(STEPS, np.uint32)
    j = start
    for _ in range(warm):
        j = arr[j]
    for i in range(STEPS):
        t0 = clock64()
        j = arr[j]
        idx[i] = j
        t1 = clock64()
        times[i] = t1 - t0
    where[0] = smid()
    where[1] = idx[STEPS - 1]


def chain(seed: int):
    n = FOOTPRINT // 4
    nodes = np.arange(0, n, STRIDE // 4, dtype=np.int64)
    order = nodes[np.random.default_rng(seed).permutation(nodes.size)]
    arr = np.zeros(n, np.uint32)
    arr[order] = np.roll(order, -1).astype(np.uint32)
    return arr, order


def two_modes(x: np.ndarray):
    """1-D two-means: (low mean, high mean, share high, threshold)."""
    lo, hi = np.percentile(x, 10), np.percentile(x, 90)
    for _ in range(50):
        thr = (lo + hi) / 2
        a, b = x[x <= thr], x[x > thr]
        if a.size == 0 or b.size == 0:
            break
        lo, hi = a.mean(), b.mean()
    thr = (lo + hi) / 2
    return float(lo), float(hi), float((x > thr).mean()), float(thr)


def _driver():
    try:
        return list(cuda.cudadrv.driver.driver.get_version())
    except Exception as e:     # provenance only: never fail the probe over it
        return f"unknown ({e})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--blocks", default="0,17,33,50,66,83,99,115,131")
    args = ap.parse_args()
    arr, order = chain(1)
    d_arr = cuda.to_device(arr)
    runs = []
    for who in (int(b) for b in args.blocks.split(",")):
        times = cuda.device_array(STEPS, np.int64)
        where = cuda.device_array(2, np.int64)
        for _ in range(2):      # the second launch finds the chain in L2 from the first
            chase_timed[132, 32](d_arr, np.uint32(order[0]), np.int64(order.size), np.int64(who), times, where)
        cuda.synchronize()
        t = times.copy_to_host()
        w = where.copy_to_host()
        lo, hi, share, thr = two_modes(t.astype(np.float64))
        hist, edges = np.histogram(t, bins=np.arange(0, 1024, 8))
        runs.append({"block": who, "smid": int(w[0]), "median": float(np.median(t)), "mean": float(t.mean()),
                     "p05": float(np.percentile(t, 5)), "p95": float(np.percentile(t, 95)),
                     "mode_low": lo, "mode_high": hi, "share_high": share, "threshold": thr,
                     "hist_8cycle_bins": {int(edges[i]): int(hist[i]) for i in range(hist.size) if hist[i]}})
        print(f"block {who:3d} on SM {w[0]:3d}: median {np.median(t):.0f}  modes {lo:.0f} / {hi:.0f} "
              f"(high share {share:.2f})", flush=True)
    dev = cuda.get_current_device()
    import numba_cuda
    doc = {"probe": "l2_near_far", "description": __doc__.split("\n\n")[0], "steps": STEPS,
           "footprint_bytes": FOOTPRINT, "stride_bytes": STRIDE, "runs": runs,
           "summary": {"mode_low_median": float(np.median([r["mode_low"] for r in runs])),
                       "mode_high_median": float(np.median([r["mode_high"] for r in runs])),
                       "share_high_median": float(np.median([r["share_high"] for r in runs]))},
           "provenance": {"date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                          "gpu_name": dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name),
                          "compute_capability": list(dev.compute_capability),
                          "driver": _driver(),
                          "numba_cuda": numba_cuda.__version__, "clock_control": "none (clocks left alone)"}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    s = doc["summary"]
    print(f"summary: near {s['mode_low_median']:.0f}, far {s['mode_high_median']:.0f}, far share "
          f"{s['share_high_median']:.2f}")


if __name__ == "__main__":
    main()
