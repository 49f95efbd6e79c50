"""Does the L2 keep a thread's local memory as it keeps the same bytes in global memory? ho_local_hist_mode's
kernel (probe local_rmw) beside a twin that keeps its 128 bins in a global array laid out as local memory is
(lane-interleaved words: bin b of warp w's lane l at word (w * 128 + b) * 32 + l), so that both move the same
bytes of the same pattern; 1, 2 and 3 CTAs of 256 threads an SM (17, 35 and 52 MB of bins).

- local_g132 / local_g264 / local_g396: the bins in local memory (local_g264 is ho_local_hist_mode)
- glob_g132 / glob_g264 / glob_g396: the bins in the global array

Where the twins read alike from DRAM, what the L2 keeps depends on the pattern; where the local kernel re-reads
more, on where the hardware puts local memory (its addresses are the driver's: a window per SM and warp slot).

    python3 validation/probes/local_layout.py --out PATH   (on the GPU: ncu's counters per kernel, caches flushed
                                                          before each; about 30 s)
    python3 validation/probes/local_layout.py --inner      (what ncu runs)
    python3 validation/probes/local_layout.py --gpusim [--set K=V]   (the same kernels in gpusim, h100, SASS model)
    python3 validation/probes/local_layout.py --read PATH  (a recorded file against gpusim's table)
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

from validation.probes.local_rmw import gpusim_side, make_kernel, run_variants  # noqa: E402

BINS, BLOCK, PER_THREAD = 128, 256, 64
VARIANTS = {f"{kind}_g{g}": (kind, g) for kind in ("local", "glob") for g in (132, 264, 396)}
METRICS = ("gpc__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sector_hit_rate.pct,"
           "lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum")


def glob_hist(x, per_thread, mode, count, g):
    """local_hist's algorithm with its bins in g, laid out as local memory (lane-interleaved)."""
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    base = (t // 32) * (128 * 32) + (t % 32)
    for b in range(128):
        g[base + b * 32] = 0
    for k in range(per_thread):
        i = base + (x[k * nth + t] & 127) * 32
        g[i] += 1
    best = 0
    top = g[base]
    for b in range(1, 128):
        c = g[base + b * 32]
        if c > top:
            top = c
            best = b
    mode[t] = best
    count[t] = top


def inputs(v: str) -> tuple:
    """(kernel, grid, block, host arguments) of a variant, with ho_local_hist_mode's data (probe local_rmw)."""
    kind, grid = VARIANTS[v]
    nth = grid * BLOCK
    x = np.random.default_rng(0).integers(0, 1 << 20, nth * PER_THREAD, dtype=np.int32)
    args = (x, np.int64(PER_THREAD), np.zeros(nth, np.int32), np.zeros(nth, np.int32))
    if kind == "glob":
        return glob_hist, grid, BLOCK, args + (np.zeros(nth * BINS, np.int32),)
    return make_kernel(BINS), grid, BLOCK, args


def in_gpusim(argv: list) -> dict:
    return gpusim_side(VARIANTS, inputs, argv)


def table(record: dict, sim: dict | None = None) -> None:
    """Per variant: the GPU's cycles, DRAM MB read / written and L2 hit rate; gpusim's beside them."""
    ncu = {r["variant"]: r for r in record.get("ncu", [])}
    print(f"{'variant':11s} {'GPU cycles':>10s} {'rd MB':>6s} {'wr MB':>6s} {'L2 %':>5s}"
          + (f" | {'gpusim':>8s} {'rd MB':>6s} {'wr MB':>6s} {'L2 %':>5s}" if sim else ""))
    for v in VARIANTS:
        n = ncu.get(v, {})
        line = (f"{v:11s} {n.get('gpc__cycles_elapsed.max', float('nan')):10.0f} "
                f"{n.get('dram__bytes_read.sum', 0) / 1e6:6.1f} {n.get('dram__bytes_write.sum', 0) / 1e6:6.1f} "
                f"{n.get('lts__t_sector_hit_rate.pct', float('nan')):5.1f}")
        if sim:
            s = sim[v]
            line += (f" | {s['cycles']:8.0f} {s['dram_read'] / 1e6:6.1f} {s['dram_write'] / 1e6:6.1f} "
                     f"{s['l2_hit']:5.1f}")
        print(line)


def inner() -> None:
    run_variants(VARIANTS, inputs)


def main() -> None:
    from validation.probes._device import probe_main
    if probe_main(inner, in_gpusim, table, "probe_local_layout_h200.json"):
        return
    from validation.probes._device import ncu_provenance, out_path, provenance, under_ncu, write

    path = out_path()
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:local_hist|glob_hist", METRICS)
    ncu = [{"variant": v, "kernel": name, **vals} for v, (name, vals) in zip(VARIANTS, launches)]
    rec = {"probe": "local_layout", "description": __doc__.split("\n\n")[0],
           "variants": {v: list(x) for v, x in VARIANTS.items()}, "ncu": ncu, "ncu_stderr_tail": stderr[-2000:],
           "ncu_provenance": ncu_provenance(), "provenance": provenance(),
           "l2_cache_size": cuda.get_current_device().L2_CACHE_SIZE, "wall_s": round(time.time() - t0, 1)}
    write(path, rec)
    table(rec)


if __name__ == "__main__":
    main()
