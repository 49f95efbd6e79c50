"""The cost of recording events (gpusim/timing/events.py): each example program at its default size
on h100, timed with events off and on (alternating, after a warm-up run), medians and their ratio.
The target: events on takes at most 1.5x as long as events off.

    python bench/bench_events.py [--repeats 5] [--programs vecadd,sgemm_tiled]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = ["vecadd", "reduce_shared", "sgemm_tiled", "softmax", "histogram", "transpose_tiled"]


def _run(mod, inp, events) -> float:
    import gpusim
    wall = 0.0

    def launcher(kernel, grid, block, *args):
        nonlocal wall
        r = gpusim.launch(kernel, grid, block, *args, gpu="h100", events=events)
        wall += r.wall_s
        return r

    mod.run(launcher, inp)
    return wall


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--programs", default=",".join(CASES))
    args = ap.parse_args()
    from programs import all_programs
    progs = all_programs()
    print(f"{'program':18} {'off (s)':>9} {'on (s)':>9} {'ratio':>7}")
    worst = 0.0
    for name in args.programs.split(","):
        mod = progs[name]
        inp = mod.inputs(mod.DEFAULT_SIZE)
        _run(mod, inp, False)
        _run(mod, inp, True)          # warm: compiled, caches loaded
        off, on = [], []
        for _ in range(args.repeats):
            off.append(_run(mod, inp, False))
            on.append(_run(mod, inp, True))
        a, b = statistics.median(off), statistics.median(on)
        worst = max(worst, b / a)
        print(f"{name:18} {a:9.3f} {b:9.3f} {b / a:7.2f}", flush=True)
    print(f"worst ratio {worst:.2f} (target <= 1.5); {time.strftime('%Y-%m-%d')}, simulator wall time per "
          f"program (launch wall_s summed), median of {args.repeats}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
