"""What the sanitizers cost in functional mode: bench_functional.py's cases run with no check, with
racecheck, synccheck and both, in one process, the checks alternating round by round. Times are CPU
seconds of the process (time.process_time), which other processes on a shared machine disturb less
than wall time; medians over the rounds, and the ratio to no check.

    python bench/bench_sanitizers.py [--rounds 7]

(The cost of the hooks with no check on is measured against the commit before them with
bench/bench_vs.py.)
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = [("reduce_shared", 16384), ("sgemm_tiled", 128)]
CHECKS = [None, "racecheck", "synccheck", "racecheck,synccheck"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    import gpusim
    from programs import all_programs
    print(f"{'program':14s} {'size':>6s} {'check':22s} {'cpu s':>8s} {'x no check':>10s} {'hazards':>8s}")
    for name, size in CASES:
        mod = all_programs()[name]
        inp = mod.inputs(size)
        times: dict = {c: [] for c in CHECKS}
        found: dict = {}
        for rnd in range(args.rounds + 1):          # round 0 compiles and warms up: not counted
            for c in CHECKS:
                res = []
                t0 = time.process_time()
                mod.run(lambda *a: res.append(gpusim.launch(*a, mode="functional", check=c)) or res[-1], inp)
                dt = time.process_time() - t0
                if rnd:
                    times[c].append(dt)
                found[c] = sum(len(r.sanitizer.reports) for r in res if r.sanitizer)
        base = statistics.median(times[None])
        for c in CHECKS:
            t = statistics.median(times[c])
            print(f"{name:14s} {size:6d} {c or 'none':22s} {t:8.4f} {t / base:10.2f} {found[c]:8d}")


if __name__ == "__main__":
    main()
