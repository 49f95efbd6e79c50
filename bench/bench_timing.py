"""Timing-mode speed on the h100 preset: warp- and thread-instructions per second, slowdown against
the kernel's H100 time, and peak memory, each program in its own process (so peak RSS is per
program). Also a grid of 100,000 CTAs, for memory.

The H100 time is the one measured on the device (Nsight Compute's gpu__time_duration.sum in
validation/data/h100/prog_<name>.json, recorded at the program's default size, which these runs
use); gpusim's own predicted time is printed beside it.

    python bench/bench_timing.py [--repeats 3] [--skip-100k] [--model ptx|sass|both]

--model both runs every program under the PTX and the SASS timing model (gpusim/sassmap.py; the SASS map
is cached, so the median excludes ptxas) and prints the ratio of their speeds.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = [("vecadd", 1 << 20), ("reduce_shared", 1 << 20), ("sgemm_tiled", 256), ("softmax", 1024)]
DATA = ROOT / "validation" / "data" / "h100"


def measured_us(name: str, size: int) -> float | None:
    """The H100's kernel time for this program at this size, if recorded (ncu, one launch)."""
    from programs import all_programs
    f = DATA / f"prog_{name}.json"
    if not f.exists() or size != all_programs()[name].DEFAULT_SIZE:
        return None
    return json.loads(f.read_text())["ncu"]["metrics"]["gpu__time_duration.sum"]["value"] / 1e3


def _child(name: str, size: int, repeats: int, model: str = "ptx"):
    import gpusim
    from programs import all_programs
    mod = all_programs()[name]
    inp = mod.inputs(size)
    walls = []
    for _ in range(repeats + 1):           # the first run also loads numba's cache
        res = []
        mod.run(lambda *a: res.append(gpusim.launch(*a, mode="timing", gpu="h100", model=model)) or res[-1], inp)
        walls.append(sum(r.wall_s for r in res))
    warp = sum(r.warp_instructions for r in res)
    thread = sum(r.thread_instructions for r in res)
    cycles = sum(r.cycles for r in res)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"name": name, "model": model, "size": size, "wall": statistics.median(walls[1:]), "warp": warp,
                      "thread": thread, "cycles": cycles, "peak_mb": peak}))


def _child_100k():
    import numpy as np
    from numba import cuda

    import gpusim

    @cuda.jit
    def touch(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = x[i] * 2.0 + 1.0

    n = 100_000 * 64
    x = np.ones(n, np.float32)
    t0 = time.perf_counter()
    r = gpusim.launch(touch, 100_000, 64, x, mode="timing", gpu="h100")
    wall = time.perf_counter() - t0
    assert (x == 3.0).all()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"name": "100k_ctas", "size": 100_000, "wall": wall, "warp": r.warp_instructions,
                      "thread": r.thread_instructions, "cycles": r.cycles, "peak_mb": peak}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-100k", action="store_true")
    ap.add_argument("--model", choices=["ptx", "sass", "both"], default="ptx")
    ap.add_argument("--child", nargs=3)
    ap.add_argument("--child-100k", action="store_true")
    args = ap.parse_args()
    if args.child:
        return _child(args.child[0], int(args.child[1]), args.repeats, args.child[2])
    if args.child_100k:
        return _child_100k()
    rows = []
    models = ["ptx", "sass"] if args.model == "both" else [args.model]
    jobs = [["--child", n, str(s), m, "--repeats", str(args.repeats)] for n, s in CASES for m in models]
    if not args.skip_100k and args.model != "both":
        jobs.append(["--child-100k"])
    for job in jobs:
        out = subprocess.run([sys.executable, __file__, *job], capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr[-2000:])
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    from gpusim.presets import H100
    print(f"{'program':14s} {'model':>5s} {'size':>8s} {'warp inst':>11s} {'median s':>9s} {'warp-inst/s':>12s} "
          f"{'thread-inst/s':>14s} {'H100 us':>8s} {'sim us':>8s} {'slowdown':>10s} {'peak MB':>8s}")
    for r in rows:
        sim_us = r["cycles"] / H100.clock_mhz
        hw_us = measured_us(r["name"], r["size"]) if r["name"] != "100k_ctas" else None
        ref_us = hw_us or sim_us
        print(f"{r['name']:14s} {r.get('model', 'ptx'):>5s} {r['size']:8d} {r['warp']:11,d} {r['wall']:9.3f} "
              f"{r['warp'] / r['wall']:12,.0f} "
              f"{r['thread'] / r['wall']:14,.0f} {hw_us or float('nan'):8.1f} {sim_us:8.1f} "
              f"{r['wall'] / (ref_us * 1e-6):10,.0f} {r['peak_mb']:8.0f}")
    if args.model == "both":
        by = {(r["name"], r["model"]): r for r in rows if "model" in r}
        both = [n for n, _ in CASES if (n, "ptx") in by and (n, "sass") in by]
        ratios = [by[(n, "ptx")]["wall"] / by[(n, "sass")]["wall"] for n in both]
        for n, q in zip(both, ratios):
            print(f"SASS-model speed / PTX-model speed, {n}: {q:.2f}x")
        if ratios:
            print(f"median: {statistics.median(ratios):.2f}x (the SASS model's simulated instructions are PTX "
                  "instructions too; only the wall time is compared)")
    print("warp-inst/s: simulated warp instructions per wall second (median of repeats, numba cache warm);"
          " H100 us: the kernel's measured time (ncu, validation/data/h100); sim us: gpusim's predicted time;"
          " slowdown: wall time over the H100 time (over the predicted time where none is recorded);"
          " peak MB: max RSS of the process. Peer: Accel-Sim 12,500 warp-inst/s (REFERENCE.md).")


if __name__ == "__main__":
    main()
