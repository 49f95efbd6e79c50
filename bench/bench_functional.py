"""Functional-mode speed: warp- and thread-instructions per second on SGEMM and the shared-memory
reduction, and the same kernel at the same size under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1,
run in a subprocess), with the ratio.

    python bench/bench_functional.py [--repeats 5] [--no-cudasim]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = [  # (program, size): reduce_shared at 16384 = 64 blocks x 256 threads
    ("reduce_shared", 16384),
    ("sgemm_tiled", 128),
]


def _gpusim(name, size, repeats):
    import gpusim
    from programs import all_programs
    mod = all_programs()[name]
    inp = mod.inputs(size)
    t0 = time.perf_counter()
    results = []
    mod.run(lambda *a: results.append(gpusim.launch(*a, mode="functional")) or results[-1], inp)
    first = time.perf_counter() - t0
    walls = []
    for _ in range(repeats):
        results = []
        mod.run(lambda *a: results.append(gpusim.launch(*a, mode="functional")) or results[-1], inp)
        walls.append(sum(r.wall_s for r in results))
    warp = sum(r.warp_instructions for r in results)
    thread = sum(r.thread_instructions for r in results)
    return first, statistics.median(walls), warp, thread


def _cudasim(name, size):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, str(ROOT / "validation" / "cudasim_run.py"), "--program", name,
                        "--size", str(size), "--out", os.devnull], env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        return None
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-cudasim", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    import gpusim  # noqa: F401  (import + numba cache load)
    print(f"import gpusim: {time.perf_counter() - t0:.2f} s")
    rows = []
    for name, size in CASES:
        first, wall, warp, thread = _gpusim(name, size, args.repeats)
        sim = None if args.no_cudasim else _cudasim(name, size)
        rows.append((name, size, first, wall, warp, thread, sim))
    hdr = (f"{'program':14s} {'size':>6s} {'first s':>8s} {'median s':>9s} {'warp inst':>10s} "
           f"{'warp-inst/s':>12s} {'thread-inst/s':>14s} {'cudasim s':>10s} {'speedup':>8s}")
    print(hdr)
    for name, size, first, wall, warp, thread, sim in rows:
        sp = f"{sim / wall:8.0f}x" if sim else "       -"
        ss = f"{sim:10.1f}" if sim else "         -"
        print(f"{name:14s} {size:6d} {first:8.2f} {wall:9.4f} {warp:10,d} {warp / wall:12,.0f} "
              f"{thread / wall:14,.0f} {ss} {sp}")
    print("first s includes numba compilation of the kernel and (on a cold cache) of the executor; "
          "median s is the simulation wall time of the later runs; cudasim s is a whole subprocess run.")


if __name__ == "__main__":
    main()
