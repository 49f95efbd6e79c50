"""Compile time and fixed costs, each measured in a fresh process with an empty compiled-code cache
(GPUSIM_CACHE_DIR pointed at a new temporary directory):

  warmup timing      `gpusim warmup --mode timing`: the cold compile of timing mode
  warmup functional  `gpusim warmup --mode functional`: the cold compile of functional mode
  warmup both        `gpusim warmup`: both modes, as .ci/run does
  first run          `gpusim run reduce_shared` on an empty cache: what a newcomer waits for after
                     `pip install` (compile, kernel compile by numba-cuda, simulation, check)
  warm first launch  a new process with the cache filled: import gpusim, then the first timing-mode
                     launch of a raw PTX kernel on h100 (no numba-cuda compile), and a second one

    python bench/bench_compile.py [--repeats 1] [--serial]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WARM_PROBE = """
import time
t0 = time.perf_counter()
import numpy as np
import gpusim
t1 = time.perf_counter()
k = gpusim.load_ptx("programs/ptx/vecadd_cu.ptx")["vecadd"]
a, b, c = np.ones(4096, np.float32), np.ones(4096, np.float32), np.zeros(4096, np.float32)
t2 = time.perf_counter()
gpusim.launch(k, 16, 256, a, b, c, np.int32(4096))
t3 = time.perf_counter()
gpusim.launch(k, 16, 256, a, b, c, np.int32(4096))
t4 = time.perf_counter()
print(t1 - t0, t3 - t2, t4 - t3)
"""


def _timed(cmd, cache: str, extra_env=None) -> tuple[float, str]:
    env = dict(os.environ, GPUSIM_CACHE_DIR=cache, **(extra_env or {}))
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr[-3000:]}")
    return dt, out.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--serial", action="store_true", help="compile in one process (no parallel warm-up)")
    args = ap.parse_args()
    gpusim = [sys.executable, "-m", "gpusim.cli"]
    extra = {"GPUSIM_SERIAL_WARMUP": "1"} if args.serial else {}
    rows = {}
    for _ in range(args.repeats):
        for name, cmd in (("warmup timing", gpusim + ["warmup", "--mode", "timing"]),
                          ("warmup functional", gpusim + ["warmup", "--mode", "functional"]),
                          ("warmup both", gpusim + ["warmup"]),
                          ("first run", gpusim + ["run", "reduce_shared"])):
            with tempfile.TemporaryDirectory() as cache:
                rows.setdefault(name, []).append(_timed(cmd, cache, extra)[0])
        with tempfile.TemporaryDirectory() as cache:
            _timed(gpusim + ["warmup", "--mode", "timing"], cache, extra)
            _, out = _timed([sys.executable, "-c", WARM_PROBE], cache)
            imp, first, second = (float(x) for x in out.split())
            rows.setdefault("warm: import gpusim", []).append(imp)
            rows.setdefault("warm: first launch", []).append(first)
            rows.setdefault("warm: second launch", []).append(second)
    print(f"{'measure':22s} {'median s':>9s}   (cores: {os.cpu_count()}, {'serial' if args.serial else 'parallel'} "
          f"warm-up, {args.repeats} repeat(s))")
    for name, vals in rows.items():
        print(f"{name:22s} {statistics.median(vals):9.2f}")


if __name__ == "__main__":
    main()
