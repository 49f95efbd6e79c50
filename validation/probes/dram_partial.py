"""What a partly written sector costs when the L2 writes it back to DRAM. ho_local_hist_mode's local stores write
4 bytes of a 32-byte sector each; the L2 writes its dirty local lines back early (89 MB on the H100) and the
kernel runs 1.44x as long on the H100 as on an H200 (validation/probes/local_rmw.py), whose memory is faster.
Each kernel here writes one word pattern over a 96-MB buffer (twice the L2, so every dirty line goes back to
DRAM) and nothing else; ncu flushes the caches before each:

- full: every word (whole lines dirty)
- word_sector: one word in each 32-B sector (every sector partly written)
- word_line: one word in each 128-B line
- sector_pair: the first 32-B sector of each 64-B pair, wholly (full sectors, half of each DRAM burst)
- sector_line: the first sector of each line, wholly
- half_line: the first 64 B of each line
- sector_by_warps: every word, but each 32-B sector's 8 words from 8 warps of a CTA, one word each (each store a
  partial write; together they cover the sector)

    python3 validation/probes/dram_partial.py --out PATH      (on the GPU: ncu's counters per kernel, ~1 minute)
    python3 validation/probes/dram_partial.py --inner         (what ncu runs)
    python3 validation/probes/dram_partial.py --gpusim [--set K=V]   (the same kernels in gpusim, h100, SASS model)
    python3 validation/probes/dram_partial.py --read PATH     (a recorded file, with gpusim's side if it has one)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
if not hasattr(np, "row_stack"):       # numba-cuda calls it; numpy 2.5 dropped it
    np.row_stack = np.vstack
from numba import cuda  # noqa: E402

WORDS = (96 << 20) // 4
GRID, BLOCK = 132, 1024
# variant -> (words written in a row, the stride between the rows' starts, in words)
VARIANTS = {"full": (1, 1), "word_sector": (1, 8), "word_line": (1, 32), "sector_pair": (8, 16),
            "sector_line": (8, 32), "half_line": (16, 32), "sector_by_warps": (1, 1)}
METRICS = ",".join(["gpc__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
                    "lts__t_sectors_op_write.sum", "lts__t_sectors_op_read.sum", "lts__t_sector_hit_rate.pct",
                    "smsp__inst_executed.sum", "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
                    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio"])


def pattern_store(buf, group, stride, n):
    """Thread-word k of the grid writes word (k // group) * stride + k % group, for k < n."""
    k = cuda.grid(1)
    while k < n:
        buf[(k // group) * stride + k % group] = k
        k += cuda.gridsize(1)


def sector_by_warps(buf, group, stride, n):
    """Warp w's lane l writes word w % 8 of sector (w // 8) * 32 + l: 8 warps fill 32 sectors, a word each."""
    k = cuda.grid(1)
    while k < n:
        w = k >> 5
        buf[(((w >> 3) << 5) + (k & 31)) * 8 + (w & 7)] = k
        k += cuda.gridsize(1)


KERNELS = {"sector_by_warps": sector_by_warps}


def args(v: str) -> tuple:
    group, stride = VARIANTS[v]
    return np.int64(group), np.int64(stride), np.int64(WORDS // stride * group)


def inner() -> None:
    ks = {f: cuda.jit(f) for f in (pattern_store, sector_by_warps)}
    buf = cuda.to_device(np.zeros(WORDS, np.int32))
    for v in VARIANTS:
        ks[KERNELS.get(v, pattern_store)][GRID, BLOCK](buf, *args(v))
        cuda.synchronize()
        print("inner", v, flush=True)


def in_gpusim(argv: list) -> dict:
    import gpusim
    from validation.probes._device import gpusim_h100
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    gpu, over = gpusim_h100(sets)
    out = {}
    buf = np.zeros(WORDS, np.int32)
    for v in VARIANTS:
        r = gpusim.launch(cuda.jit(KERNELS.get(v, pattern_store)), GRID, BLOCK, buf, *args(v), gpu=gpu,
                          mode="timing", model="sass")
        m = r.metrics
        out[v] = {"gpc__cycles_elapsed.max": float(m["gpc__cycles_elapsed.max"]),
                  "dram__bytes_read.sum": float(m["dram__bytes_read.sum"]),
                  "dram__bytes_write.sum": float(m["dram__bytes_write.sum"])}
        print(v, out[v], flush=True)
    return {"gpusim": out, "overrides": over}


def table(rec: dict, sim: dict | None = None) -> None:
    gpu = {r["variant"]: r for r in rec.get("results", [])}
    print(f"{'variant':12s} {'written MB':>10s} {'GPU cycles':>10s} {'DRAM rd MB':>10s} {'wr MB':>7s} "
          f"{'cyc/KB written':>14s}" + (f" {'gpusim':>9s} {'rd MB':>6s} {'wr MB':>6s}" if sim else ""))
    for v in VARIANTS:
        group, stride = VARIANTS[v]
        mb = WORDS // stride * group * 4 / 1e6
        g = gpu.get(v, {})
        c = g.get("gpc__cycles_elapsed.max", float("nan"))
        line = (f"{v:12s} {mb:10.1f} {c:10.0f} {g.get('dram__bytes_read.sum', float('nan')) / 1e6:10.1f} "
                f"{g.get('dram__bytes_write.sum', float('nan')) / 1e6:7.1f} {c / (mb * 1e3):14.2f}")
        if sim:
            s = sim[v]
            line += (f" {s['gpc__cycles_elapsed.max']:9.0f} {s['dram__bytes_read.sum'] / 1e6:6.1f} "
                     f"{s['dram__bytes_write.sum'] / 1e6:6.1f}")
        print(line)


def main() -> None:
    from validation.probes._device import probe_main
    if probe_main(inner, in_gpusim, table, "probe_dram_partial_h200.json"):
        return
    from validation.probes._device import kernel_code, ncu_record, out_path, under_ncu, write
    path = out_path()
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:(pattern_store|sector_by_warps)", METRICS)
    results = [{"variant": v, "kernel": name, **vals} for v, (name, vals) in zip(VARIANTS, launches)]
    rec = ncu_record("validation/probes/dram_partial.py", t0, results, stdout, stderr, "inner",
                     words=WORDS, grid=GRID, block=BLOCK)
    k = cuda.jit(pattern_store)
    k[1, 32](cuda.to_device(np.zeros(64, np.int32)), np.int64(1), np.int64(1), np.int64(32))   # its code for the record
    rec["code"] = kernel_code(k)
    write(path, rec)
    table(rec)


if __name__ == "__main__":
    main()
