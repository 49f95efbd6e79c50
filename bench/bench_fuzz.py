"""PTX fuzzing at scale: thousands of seeded mutants of the repository's PTX at the loader and at launch.

    python bench/bench_fuzz.py                          # 5000 loader + 500 launch mutants, seed 1
    python bench/bench_fuzz.py --loader 20000 --launch 0 --seed 7
    python bench/bench_fuzz.py --show 1:123             # print mutant 123 of seed 1 (to reproduce a failure)
    python bench/bench_fuzz.py --boundscheck            # numba's bounds checks on: an out-of-bounds index
                                                        # in the simulator core is an IndexError, a failure

Each mutant runs in a worker process, so a signal (segfault, abort) or a hang is caught and named:
the worker is restarted and the mutant recorded as failed. Prints the counts of accepted, refused
(gpusim's own error) and failed mutants, and the SEED:INDEX of every failure. Exit status 1 when any
mutant failed. Launch mutants run on the `tiny` preset with the program's small inputs and a budget
of 20,000 warp instructions; every fourth in timing mode, the rest in functional mode.
"""
from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def worker() -> None:
    """Read `kind seed index` lines on stdin, answer one JSON line per mutant on stdout."""
    from gpusim import jitcache
    from validation import fuzz
    jitcache.QUIET["on"] = True
    files = fuzz.corpus()
    with tempfile.TemporaryDirectory() as tmp:
        for line in sys.stdin:
            kind, seed, index = line.split()
            m = fuzz.mutant(int(seed), int(index), files)
            if kind == "loader":
                outcome, detail = fuzz.check_loader(m, Path(tmp))
            else:
                mode = "timing" if int(index) % 4 == 3 else "functional"
                outcome, detail = fuzz.check_launch(m, Path(tmp), mode=mode)
            print(json.dumps([outcome, detail, m.source.name, m.ops]), flush=True)


class Pool:
    """One worker subprocess, restarted after a crash or a hang."""

    def __init__(self, timeout: float, env: dict):
        self.timeout, self.proc, self.env = timeout, None, env

    def _start(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT), **self.env)
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)

    def run(self, kind: str, seed: int, index: int, startup: float = 60.0):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
            limit = self.timeout + startup
        else:
            limit = self.timeout
        self.proc.stdin.write(f"{kind} {seed} {index}\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], limit)
        if not ready:
            self.close()
            return ["failed", f"hang: no answer within {limit:.0f} s", "?", []]
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            self.proc = None
            return ["failed", f"worker died with status {code} (signal {-code})" if code < 0
                    else f"worker exited with status {code}", "?", []]
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def campaign(kind: str, n: int, seed: int, timeout: float, env: dict) -> tuple[Counter, list]:
    pool = Pool(timeout, env)
    counts, failures = Counter(), []
    t0 = time.perf_counter()
    try:
        for i in range(n):
            outcome, detail, src, ops = pool.run(kind, seed, i)
            counts[outcome] += 1
            if outcome == "failed":
                failures.append((f"{seed}:{i}", src, ops, detail))
                print(f"  FAILED {kind} {seed}:{i} ({src}, {'+'.join(ops)}): {detail}", flush=True)
    finally:
        pool.close()
    dt = time.perf_counter() - t0
    print(f"{kind:6s} mutants: {n:6d}  accepted {counts['accepted']:6d}  refused {counts['refused']:6d}  "
          f"failed {counts['failed']:4d}  ({dt:.0f} s, seed {seed})", flush=True)
    return counts, failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--loader", type=int, default=5000, help="loader mutants (parse + decode)")
    ap.add_argument("--launch", type=int, default=500, help="launch mutants (tiny preset, small inputs)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per mutant before it counts as a hang")
    ap.add_argument("--show", metavar="SEED:INDEX", help="print one mutant's bytes and exit")
    ap.add_argument("--boundscheck", action="store_true",
                    help="compile the simulator core with numba's bounds checks (in its own cache folder, "
                         "compiled first: minutes) so an out-of-bounds index is an IndexError")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker()
        return 0
    if a.show:
        from validation import fuzz
        s, i = (int(x) for x in a.show.split(":"))
        m = fuzz.mutant(s, i)
        print(f"# {m.source.name}: {' + '.join(m.ops)}", file=sys.stderr)
        sys.stdout.buffer.write(m.data)
        return 0
    env = {}
    if a.boundscheck:
        env = {"NUMBA_BOUNDSCHECK": "1", "GPUSIM_CACHE_DIR": str(Path.home() / ".cache" / "gpusim-boundscheck")}
        print("compiling the simulator core with bounds checks ...", flush=True)
        subprocess.run([sys.executable, "-m", "gpusim.cli", "warmup"], env=dict(os.environ, PYTHONPATH=str(ROOT),
                                                                               **env), check=True)
    failures = []
    if a.loader:
        failures += campaign("loader", a.loader, a.seed, a.timeout, env)[1]
    if a.launch:
        failures += campaign("launch", a.launch, a.seed, a.timeout, env)[1]
    print(f"failures: {len(failures)}" + "".join(f"\n  {t} {src} {'+'.join(ops)}: {d}" for t, src, ops, d in failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
