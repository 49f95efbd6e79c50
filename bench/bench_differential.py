"""Differential random-kernel testing at scale: generated numba.cuda kernels (tests/fuzz/kernelgen.py)
run on gpusim (functional, and timing on the tiny preset) and on numba's CUDA simulator; every
difference is a finding. Seeded and reproducible: seeds START .. START+COUNT-1.

    python bench/bench_differential.py [--start 0] [--count 5000] [--chunk 40] [--jobs 2]
                                       [--modes functional,timing] [--shrink] [--json FILE]

Prints the kernels run, the kernels the simulator could not run (skipped, with the first errors),
the differences per mode and their seeds, and the wall time. --shrink minimises each finding's source
(tests/fuzz/differential.py: shrink) and prints it. Exit status 1 if any difference was found.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FUZZ = ROOT / "tests" / "fuzz"
for p in (str(ROOT), str(FUZZ)):
    if p not in sys.path:
        sys.path.insert(0, p)


def _chunk(args):
    seeds, modes = args
    import differential

    import gpusim.jitcache as jc
    jc.QUIET["on"] = True
    findings, sim_errors = differential.check(differential.gen_cases(seeds), modes=modes)
    return [f.__dict__ for f in findings], sim_errors, len(seeds)


def _kind(detail: str) -> str:
    """A finding's kind: the failure message up to its first detail, or which outputs differ."""
    if detail.startswith("gpusim failed"):
        return re.sub(r"\d+", "N", detail.split(" for (")[0].split(" at ")[0])[:120]
    return "values differ in " + ", ".join(part.split(":")[0] for part in detail.split("; "))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--chunk", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--modes", default="functional,timing")
    ap.add_argument("--shrink", action="store_true")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    modes = tuple(a.modes.split(","))
    seeds = list(range(a.start, a.start + a.count))
    chunks = [(seeds[i:i + a.chunk], modes) for i in range(0, len(seeds), a.chunk)]
    t0 = time.perf_counter()
    findings, sim_errors, done = [], [], 0
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for f, e, n in pool.map(_chunk, chunks):
            findings += f
            sim_errors += e
            done += n
            new = sorted({(x["seed"], x["mode"]) for x in f})
            print(f"  {done}/{len(seeds)} kernels, {len(findings)} differences, {len(sim_errors)} skipped, "
                  f"{time.perf_counter() - t0:.0f} s{'; new: ' + str(new) if new else ''}", flush=True)
    wall = time.perf_counter() - t0
    by_mode = {m: sorted({f["seed"] for f in findings if f["mode"] == m}) for m in modes}
    print(f"seeds {a.start}..{a.start + a.count - 1}: {done} kernels run in {wall:.0f} s "
          f"({done / wall:.1f} kernels/s), {len(sim_errors)} skipped (the simulator could not run them)")
    for m in modes:
        print(f"  {m}: {len(by_mode[m])} kernels differ; seeds {by_mode[m][:50]}")
    kinds = {}
    for f in findings:
        kinds.setdefault(_kind(f["detail"]), set()).add(f["seed"])
    for kind, seeds_ in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(seeds_)} kernels: {kind}; seeds {sorted(seeds_)[:20]}")
    for seed, err in sim_errors[:5]:
        print(f"  skipped seed {seed}: {err[:160]}")
    for f in findings[:20]:
        print(f"  seed {f['seed']} {f['mode']}: {f['detail'][:240]}")
    if a.shrink:
        import differential
        from kernelgen import generate
        for seed in sorted({f["seed"] for f in findings})[:10]:
            mode = next(f["mode"] for f in findings if f["seed"] == seed)
            small, detail = differential.shrink(generate(seed), mode)
            print(f"\n== seed {seed} ({mode}), minimised: {detail}\n{small.source}")
    if a.json:
        a.json.write_text(json.dumps(dict(start=a.start, count=a.count, kernels=done, wall_s=wall,
                                          skipped=sim_errors, findings=findings), indent=1))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
