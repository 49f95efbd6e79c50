"""Run speed side by side against another checkout (the commit before a change): the same programs,
sizes and repeats, alternating the two trees in fresh processes, medians and the ratio.

    git worktree add /tmp/base <rev>                       # once; its first run compiles its core
    python bench/bench_vs.py --base-dir /tmp/base [--repeats 3] [--rounds 2] [--model ptx|sass]

Timing mode: bench_timing.py's programs at their default sizes (warp-instructions/s). Functional
mode: bench_functional.py's cases. Each child process loads its tree's compiled core from the cache
(the first round also fills a cold cache; it is not counted when --rounds > 1).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMING = [("vecadd", 1 << 20), ("reduce_shared", 1 << 20), ("sgemm_tiled", 256), ("softmax", 1024)]
FUNCTIONAL = [("reduce_shared", 16384), ("sgemm_tiled", 128)]
CHILD_FUNCTIONAL = """
import json, statistics, sys
sys.path.insert(0, sys.argv[1])
import gpusim
from programs import all_programs
mod = all_programs()[sys.argv[2]]
inp = mod.inputs(int(sys.argv[3]))
walls = []
for _ in range(int(sys.argv[4]) + 1):
    res = []
    mod.run(lambda *a: res.append(gpusim.launch(*a, mode="functional")) or res[-1], inp)
    walls.append(sum(r.wall_s for r in res))
print(json.dumps({"wall": statistics.median(walls[1:]), "warp": sum(r.warp_instructions for r in res)}))
"""


def _timing(tree: Path, name: str, size: int, repeats: int, model: str = "ptx") -> dict:
    out = subprocess.run([sys.executable, str(tree / "bench" / "bench_timing.py"), "--child", name, str(size),
                          model, "--repeats", str(repeats)], capture_output=True, text=True, cwd=tree)
    if out.returncode:
        raise SystemExit(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _functional(tree: Path, name: str, size: int, repeats: int, model: str = "ptx") -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD_FUNCTIONAL, str(tree), name, str(size), str(repeats)],
                         capture_output=True, text=True, cwd=tree)
    if out.returncode:
        raise SystemExit(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-dir", required=True, type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--model", choices=["ptx", "sass"], default="ptx", help="timing model of the timing-mode runs")
    args = ap.parse_args()
    trees = {"base": args.base_dir.resolve(), "this": ROOT}
    print(f"{'mode':10s} {'program':14s} {'warp inst':>10s} {'base wi/s':>11s} {'this wi/s':>11s} {'this/base':>9s}")
    for mode, cases, run in (("timing", TIMING, _timing), ("functional", FUNCTIONAL, _functional)):
        for name, size in cases:
            walls = {k: [] for k in trees}
            warp = 0
            for rnd in range(args.rounds):
                for key, tree in trees.items():          # alternate, so drift hits both alike
                    r = run(tree, name, size, args.repeats, args.model)
                    warp = r["warp"]
                    if rnd or args.rounds == 1:
                        walls[key].append(r["wall"])
            rate = {k: warp / statistics.median(v) for k, v in walls.items()}
            print(f"{mode:10s} {name:14s} {warp:10,d} {rate['base']:11,.0f} {rate['this']:11,.0f} "
                  f"{rate['this'] / rate['base']:9.2f}")
    print("wi/s: warp instructions per wall second, median over rounds of each child's median of repeats")


if __name__ == "__main__":
    main()
