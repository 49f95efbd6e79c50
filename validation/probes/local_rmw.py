"""Why ho_local_hist_mode (a thread-private 128-bin histogram in local memory) runs 1.5x as long on the GPU as in
gpusim. Its loop is a local read-modify-write per value, h[x & 127] += 1: one LDL and one STL that touch up to
32 lines a warp (lane l's bin b lies in line b of the warp's 16-KB window). Variants of the very kernel separate
what could cost the time:

- base: ho_local_hist_mode (128 bins, random data, 264 CTAs of 256 threads, 64 values a thread; 256 KB of
  local data an SM against an L1 of 224 KB, 34.6 MB in all)
- bins64 / bins32: 64 / 32 bins (128 / 64 KB an SM: it fits the L1)
- lane: 128 bins, lane l counts into bin l (32 lines an access as base, the same 32 lines every time: L1 hits)
- same: 128 bins, every lane into bin 0 (one line an access)
- g132 / g396: 1 / 3 CTAs an SM (128 KB / 384 KB of local data an SM; 17 / 52 MB in all)
- pt16: 16 values a thread (the initialisation and the final scan weigh four times as much)

    python3 validation/probes/local_rmw.py --out PATH     (on the GPU: cuda events after a clean flush, median of
                                                          7, then ncu's counters per variant; about 1 minute)
    python3 validation/probes/local_rmw.py --inner        (what ncu runs)
    python3 validation/probes/local_rmw.py --gpusim [--set K=V]   (the same kernels in gpusim, h100, SASS model)
    python3 validation/probes/local_rmw.py --read PATH    (a recorded file against gpusim's table)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
if not hasattr(np, "row_stack"):       # numba-cuda calls it; numpy 2.5 dropped it
    np.row_stack = np.vstack
from numba import cuda, int32  # noqa: E402

# variant -> (bins, data, grid, block, values a thread)
VARIANTS = {"base": (128, "rand", 264, 256, 64), "bins64": (64, "rand", 264, 256, 64),
            "bins32": (32, "rand", 264, 256, 64), "lane": (128, "lane", 264, 256, 64),
            "same": (128, "same", 264, 256, 64), "g132": (128, "rand", 132, 256, 64),
            "g396": (128, "rand", 396, 256, 64), "pt16": (128, "rand", 264, 256, 16)}
STALLS = ("long_scoreboard", "lg_throttle", "wait", "drain", "not_selected", "no_instruction", "selected")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "l1tex__t_sector_hit_rate.pct",
                      "lts__t_sector_hit_rate.pct", "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum",
                      "dram__bytes_read.sum", "dram__bytes_write.sum",
                      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
                      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
                      "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"])


def make_kernel(bins: int):
    """ho_local_hist_mode's kernel (validation/cases/heldout/spills.py) with `bins` bins."""
    mask = bins - 1

    def local_hist(x, per_thread, mode, count):
        h = cuda.local.array(bins, int32)
        t = cuda.grid(1)
        nth = cuda.gridsize(1)
        for b in range(bins):
            h[b] = 0
        for k in range(per_thread):
            h[x[k * nth + t] & mask] += 1
        best = 0
        top = h[0]
        for b in range(1, bins):
            c = h[b]
            if c > top:
                top = c
                best = b
        mode[t] = best
        count[t] = top
    local_hist.__name__ = f"local_hist_{bins}"
    return local_hist


def inputs(v: str) -> tuple:
    """(kernel, grid, block, host arguments) of a variant."""
    bins, data, grid, block, pt = VARIANTS[v]
    nth = grid * block
    if data == "rand":      # as ho_local_hist_mode's inputs(0)
        x = np.random.default_rng(0).integers(0, 1 << 20, nth * pt, dtype=np.int32)
    elif data == "lane":
        x = np.tile((np.arange(nth) & 31).astype(np.int32), pt)
    else:
        x = np.zeros(nth * pt, np.int32)
    return make_kernel(bins), grid, block, (x, np.int64(pt), np.zeros(nth, np.int32), np.zeros(nth, np.int32))


def gpusim_side(variants, inputs, argv: list) -> dict:
    """Each variant (`inputs(v)`: kernel, grid, block, host arguments) in gpusim, h100 preset with the `--set`
    options of argv, SASS model: cycles, DRAM bytes, L1 and L2 hit rates."""
    import gpusim
    from validation.probes._device import gpusim_h100
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    gpu, over = gpusim_h100(sets)
    out = {}
    for v in variants:
        k, grid, block, args = inputs(v)
        m = gpusim.launch(cuda.jit(k), grid, block, *args, gpu=gpu, mode="timing", model="sass").metrics
        out[v] = {"cycles": float(m["gpc__cycles_elapsed.max"]), "dram_read": m["dram__bytes_read.sum"],
                  "dram_write": m["dram__bytes_write.sum"], "l1_hit": m["l1tex__t_sector_hit_rate.pct"],
                  "l2_hit": m["lts__t_sector_hit_rate.pct"]}
        print(v, out[v], flush=True)
    return {"gpusim": out, "overrides": over}


def run_variants(variants, inputs) -> None:
    """Each variant once on the GPU (what ncu runs: it flushes the caches before each)."""
    for v in variants:
        k, grid, block, args = inputs(v)
        dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        cuda.jit(k)[grid, block](*dev)
        cuda.synchronize()
        print("inner", v, flush=True)


def in_gpusim(argv: list) -> dict:
    return gpusim_side(VARIANTS, inputs, argv)


def table(record: dict, sim: dict | None = None) -> None:
    """Per variant: the GPU's cycles (ncu) and time (events), as ratios to base; gpusim's beside them."""
    ncu = {r["variant"]: r for r in record.get("ncu", [])}
    ev = record.get("gpu", {})
    b_ncu = ncu.get("base", {}).get("gpc__cycles_elapsed.max")
    print(f"{'variant':8s} {'GPU cycles':>11s} {'x base':>7s} {'events us':>10s} {'x base':>7s}"
          + (f" {'gpusim':>9s} {'x base':>7s} {'gpusim/GPU':>10s}" if sim else "")
          + "  DRAM rd/wr MB, L1 / L2 hit % (GPU)")
    for v in VARIANTS:
        c = ncu.get(v, {}).get("gpc__cycles_elapsed.max", float("nan"))
        t = ev.get(v, float("nan"))
        line = f"{v:8s} {c:11.0f} {c / b_ncu if b_ncu else float('nan'):7.2f} {t:10.1f} {t / ev['base']:7.2f}" \
            if ev else f"{v:8s} {c:11.0f}"
        if sim:
            s = sim[v]["cycles"]
            line += f" {s:9.0f} {s / sim['base']['cycles']:7.2f} {s / c:10.2f}"
        n = ncu.get(v, {})
        line += (f"  {n.get('dram__bytes_read.sum', 0) / 1e6:.1f}/{n.get('dram__bytes_write.sum', 0) / 1e6:.1f}, "
                 f"{n.get('l1tex__t_sector_hit_rate.pct', float('nan')):.1f} / "
                 f"{n.get('lts__t_sector_hit_rate.pct', float('nan')):.1f}")
        print(line)


def inner() -> None:
    run_variants(VARIANTS, inputs)


def main() -> None:
    from validation.probes._device import probe_main
    if probe_main(inner, in_gpusim, table, "probe_local_rmw_h200.json"):
        return
    from validation.probes._device import kernel_code, ncu_provenance, out_path, provenance, under_ncu, write
    from validation.record import Timer

    path = out_path()
    t0 = time.time()
    timer = Timer()         # its flush: 256 MiB written, then another 256 MiB read (a clean L2)
    runs: dict = {v: [] for v in VARIANTS}
    code = {}
    for v in VARIANTS:
        k, grid, block, args = inputs(v)
        kj = cuda.jit(k)
        dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        for rep in range(8):
            timer.flush()
            a, b = cuda.event(), cuda.event()
            a.record()
            kj[grid, block](*dev)
            b.record()
            b.synchronize()
            if rep:             # the first compiles and warms the code
                runs[v].append(cuda.event_elapsed_time(a, b) * 1000.0)
        code[v] = kernel_code(kj)
    times = {v: float(np.median(x)) for v, x in runs.items()}
    launches, stdout, stderr = under_ncu(__file__, "regex:local_hist", METRICS)
    ncu = [{"variant": v, "kernel": name, **vals} for v, (name, vals) in zip(VARIANTS, launches)]
    rec = {"probe": "local_rmw", "description": __doc__.split("\n\n")[0], "variants": VARIANTS, "gpu": times,
           "gpu_runs_us": runs, "unit": {"gpu": "us (cuda events, median of 7, L2 flushed clean before each)"},
           "ncu": ncu, "ncu_stderr_tail": stderr[-2000:], "ncu_provenance": ncu_provenance(),
           "code": code, "provenance": provenance(), "wall_s": round(time.time() - t0, 1)}
    write(path, rec)
    table(rec)


if __name__ == "__main__":
    main()
