"""Probe (device only): how do independent load chains per thread add up on the H100?

The mlp microbenchmarks sum a 69 MB int32 array with 1, 2 or 4 independent dependent-address load chains
per thread (validation/cases/mechanisms/mlp.py): the H100 takes 209k, 124k and 207k cycles, so four chains
run as slowly as one, while gpusim, whose loads overlap as their count says, runs mlp_l4 at 70k (-66%).
Here the same loop runs with K = 1, 2, 3, 4, 6 and 8 chains, in two layouts:

- rows: chain k of thread t reads element (j K + k) nth + t at step j, as mlp_l{K} does (the K rows of a
  step lie nth words apart: a step of the whole grid reads K consecutive rows of the array);
- blocks: the array is split into K contiguous blocks, chain k reading block k (row j of it at step j):
  K streams 69 / K MB apart.

and with 2 CTAs of 256 threads per SM (264 CTAs, as mlp) or 1 (132). ncu gives the cycles, the DRAM
bytes and throughput, the hit rates and the stall mix per kernel: whether the slowdown is a cliff at some
number of loads in flight, and whether the layout (DRAM pages) or the count decides it.

    python3 validation/probes/mlp_chains.py --out validation/data/h100/probe_mlp_chains.json
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

CHAINS = (1, 2, 3, 4, 6, 8)
LAYOUTS = ("rows", "blocks")
GRIDS = (264, 132)
BLOCK = 256
ROWS = 192                    # a multiple of every K: each chain makes ROWS / K steps
STALLS = ("long_scoreboard", "lg_throttle", "wait", "not_selected", "selected")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "dram__bytes_read.sum", "lts__t_sector_hit_rate.pct",
                      "l1tex__t_sector_hit_rate.pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                      "sm__warps_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum"])


def source() -> str:
    """One kernel per (K, layout): K chains of `ROWS / K` dependent loads per thread."""
    out = []
    for k in CHAINS:
        for layout in LAYOUTS:
            if layout == "rows":
                init = [f"long i{c} = (long)t + {c}L * nth;" for c in range(k)]
                step = f"{k}L * nth"
            else:
                init = [f"long i{c} = (long)t + {c}L * ({ROWS // k}L * nth);" for c in range(k)]
                step = "nth"
            body = "\n".join(f"        int v{c} = a[i{c}]; s += v{c}; i{c} += {step} + (v{c} >> 8);" for c in range(k))
            inits = "\n    ".join(init)
            out.append(f'''extern "C" __global__ void mlpk_{layout}_{k}(const int* __restrict__ a, long long* out) {{
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long nth = (long)gridDim.x * blockDim.x;
    long long s = 0;
    {inits}
    for (int j = 0; j < {ROWS // k}; ++j) {{
{body}
    }}
    out[t] = s;
}}
''')
    return "\n".join(out)


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source())
    for grid in GRIDS:
        n = grid * BLOCK * ROWS
        a = (cp.arange(n, dtype=cp.int32) * 7 + 3) % 8          # small values: v >> 8 is 0, as in mlp
        want = None
        for k in CHAINS:
            for layout in LAYOUTS:
                out = cp.zeros(grid * BLOCK, dtype=cp.int64)
                mod.get_function(f"mlpk_{layout}_{k}")((grid,), (BLOCK,), (a, out))
                cp.cuda.Device(0).synchronize()
                total = int(out.sum())
                want = total if want is None else want
                print(f"kernel mlpk_{layout}_{k} grid {grid} sum {total} same {total == want}", flush=True)


def main():
    out = ncu_out(inner, "probe_mlp_chains.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:mlpk_", METRICS)
    order = [(grid, k, layout) for grid in GRIDS for k in CHAINS for layout in LAYOUTS]
    results = [{"kernel": name, "grid": grid, "chains": k, "layout": layout, **m}
               for (grid, k, layout), (name, m) in zip(order, launches)]
    write(out, ncu_record("validation/probes/mlp_chains.py", t0, results, stdout, stderr, "kernel",
                          kernels=source(), block=BLOCK, rows=ROWS))
    for r in results:
        print(r["grid"], r["layout"], r["chains"], r.get("gpc__cycles_elapsed.max"), r.get("dram__bytes_read.sum"),
              r.get("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"))


if __name__ == "__main__":
    main()
