"""Probe (device only): in what order does DRAM return lines that many warps ask for at once?

The burst microbenchmarks (validation/cases/mechanisms/burst.py) show a CTA's warps getting their DRAM data
300-1,250 cycles apart on the H100 where gpusim, whose channels serve requests strictly in arrival order
(gpusim/memory/dram.py), has them 30-130 apart: the H100's barrier waits there are 4-12x gpusim's. Here each warp
loads one 128-B line (every lane one int32) and lane 0 records %smid and %clock64 before the load and after
its first use, so each line's latency is known with when it was asked for. A fresh 256-MiB allocation is touched
once by a first kernel (page mapping), the L2 is flushed by writing another 256 MiB, then the probe runs. Per
configuration: the latency percentiles, how much of a line's latency its issue order within its SM explains
(Spearman rank correlation), and the latency by line address bits (which bit splits fast from slow lines).

    python3 validation/probes/dram_order.py --out validation/data/h100/probe_dram_order.json

Without a GPU, what DEVIATIONS.md quotes from a recorded run (latency spread within and between blocks of 256 B to
8 KiB, within a CTA, per-SM medians) is printed by

    python3 validation/probes/dram_order.py --read validation/data/h100/probe_dram_order_h200.json
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):      # numba-cuda calls it at import; numpy 2.5 dropped it
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402
from validation.probes._device import out_path, provenance, write  # noqa: E402

CONFIGS = ((132, 256, 1), (1056, 256, 1), (2112, 256, 1), (1056, 256, 7))   # grid, block, line stride


def one_line(a, rec, stride):
    w = cuda.grid(1) // 32
    lane = cuda.threadIdx.x % 32
    t0 = clock64()
    v = a[(w * stride) * 32 + lane]
    if v == -12345:                # never true: the clock below waits for the load
        rec[w, 3] = v
    t1 = clock64()
    if lane == 0:
        rec[w, 0] = smid()
        rec[w, 1] = t0
        rec[w, 2] = t1 + (v & 0)


def fill(buf):
    i = cuda.grid(1)
    while i < buf.size:
        buf[i] = i
        i += cuda.gridsize(1)


def analyse(rec: np.ndarray, stride: int) -> dict:
    sm, t0, t1 = rec[:, 0], rec[:, 1].astype(np.float64), rec[:, 2].astype(np.float64)
    lat = t1 - t0
    line = np.arange(len(rec)) * stride
    order = np.empty(len(rec))
    for s in np.unique(sm):         # issue order within each SM
        m = sm == s
        order[m] = np.argsort(np.argsort(t0[m])) / max(1, m.sum() - 1)
    arrive = t1.copy()
    for s in np.unique(sm):
        m = sm == s
        arrive[m] -= t0[m].min()

    def spearman(x, y):
        rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
        return float(np.corrcoef(rx, ry)[0, 1])
    bits = {}
    for b in range(0, 16):          # line address bit b (byte bit b + 7): median latency with it 0 and 1
        on = ((line >> b) & 1) == 1
        if on.any() and (~on).any():
            bits[b + 7] = (float(np.median(lat[~on])), float(np.median(lat[on])))
    return {"lines": int(len(rec)), "latency_p10_p50_p90": [float(np.percentile(lat, q)) for q in (10, 50, 90)],
            "arrival_p10_p50_p90": [float(np.percentile(arrive, q)) for q in (10, 50, 90)],
            "spearman_issue_order_vs_latency": spearman(order, lat),
            "spearman_issue_order_vs_arrival": spearman(order, arrive),
            "median_latency_by_byte_address_bit": bits}


def blocks(path: str) -> None:
    """Per recorded run with its raw clocks: the latency's standard deviation within and between address blocks
    of 256 B to 8 KiB (a block's lines sharing a channel come back together), and the per-SM medians."""
    import json
    for r in json.loads(Path(path).read_text())["runs"]:
        if not r.get("raw_sm_t0_t1"):
            continue
        h = np.array(r["raw_sm_t0_t1"], np.float64)
        lat = h[:, 2] - h[:, 1]
        line = np.arange(len(h)) * r["line_stride"]
        print(f"grid {r['grid']} x {r['block']}, lines {r['line_stride']} apart: latency std {lat.std():.1f}")
        for size in (256, 512, 1024, 2048, 4096, 8192):
            blk = line // (size // 128)
            ids = np.unique(blk)
            within = [lat[blk == b].std() for b in ids if (blk == b).sum() > 1]
            between = np.array([lat[blk == b].mean() for b in ids]).std()
            w = f"{np.mean(within):6.1f}" if within else "     -"
            print(f"  {size:5d}-B blocks: std within {w}, between {between:6.1f}")
        cta = np.arange(len(h)) // (r["block"] // 32)
        spread = [np.ptp(lat[cta == c]) for c in np.unique(cta)]
        print("  a CTA's warps' latencies apart, median / p90:", np.percentile(spread, [50, 90]).round(0).tolist())
        med = [np.median(lat[h[:, 0] == s]) for s in np.unique(h[:, 0])]
        print("  per-SM median latency p10 / p50 / p90:", np.percentile(med, [10, 50, 90]).round(0).tolist())


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--read":
        blocks(sys.argv[2])
        return
    path = out_path()
    k = cuda.jit(one_line)
    f = cuda.jit(fill)
    a = cuda.device_array(64 << 20, np.int32)        # 256 MiB
    flush = cuda.device_array(64 << 20, np.int32)
    f[1056, 256](a)
    runs = []
    for grid, block, stride in CONFIGS:
        rec = cuda.to_device(np.zeros((grid * block // 32, 4), np.int64))
        f[1056, 256](flush)                             # the L2 now holds the flush buffer, not `a`
        cuda.synchronize()
        k[grid, block](a, rec, stride)
        cuda.synchronize()
        h = rec.copy_to_host()
        res = {"grid": grid, "block": block, "line_stride": stride, **analyse(h, stride),
               "raw_sm_t0_t1": h[:, :3].tolist() if grid <= 1056 else None}
        print({x: y for x, y in res.items() if x != "raw_sm_t0_t1"}, flush=True)
        runs.append(res)
    write(path, {"probe": "dram_order", "description": __doc__.split("\n\n")[0], "runs": runs,
                 "provenance": provenance()})


if __name__ == "__main__":
    main()
