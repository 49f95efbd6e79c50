"""numba-cuda's own `cudapy` test suite on gpusim, against numba's CUDA simulator.

    python validation/conformance.py            # runs both, writes docs/CONFORMANCE.md (~15 min on 2 cores)
    python validation/conformance.py --only test_atomics test_warp_ops

Each test module runs in its own process (a hang or a crash costs one module, not the run), twice:
under numba's simulator (NUMBA_ENABLE_CUDASIM=1) and under gpusim's drop-in (functional mode: the
suite checks values; timing mode runs the same executor). A gpusim failure is classified by what it
raised: gpusim's own error (a feature refused by name), an assertion (a wrong value: the worst
kind), or anything else.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "CONFORMANCE.md"
SUITE = "numba.cuda.tests.cudapy"
TIMEOUT = 900

_CHILD = r'''
import json, sys, unittest, warnings, traceback
warnings.simplefilter("ignore")
sim, module, out = sys.argv[1], sys.argv[2], sys.argv[3]
if sim == "gpusim":
    import gpusim.dropin
    gpusim.dropin.enable(mode="functional")
from gpusim.errors import GpusimError
res = {}

class R(unittest.TestResult):
    def _cls(self, err):
        et, ev, tb = err
        if isinstance(ev, GpusimError) or any(isinstance(c, GpusimError) for c in _chain(ev)):
            kind = "gpusim-error"
        elif isinstance(ev, AssertionError):
            kind = "assertion"
        else:
            kind = "error"
        msg = (et.__name__ + ": " + str(ev)).strip().splitlines()
        return kind, " ".join(msg[:3])[:400]
    def addSuccess(self, t):
        if t.id() not in res:       # a test whose subtests failed is not a success
            res[t.id()] = ["pass", ""]
    def addFailure(self, t, err): res[t.id()] = ["fail", *self._cls(err)]
    def addError(self, t, err):
        if t.id() not in res or res[t.id()][0] == "pass":
            res[t.id()] = ["fail", *self._cls(err)]
    def addSubTest(self, t, st, err):
        if err is not None and (t.id() not in res or res[t.id()][0] == "pass"):
            res[t.id()] = ["fail", *self._cls(err)]
    def addSkip(self, t, why): res[t.id()] = ["skip", str(why)[:200]]
    def addExpectedFailure(self, t, err): res[t.id()] = ["xfail", ""]
    def addUnexpectedSuccess(self, t): res[t.id()] = ["pass", "unexpected success"]

def _chain(e):
    seen = []
    while e is not None and len(seen) < 10:
        seen.append(e)
        e = e.__cause__ or e.__context__
    return seen

try:
    suite = unittest.defaultTestLoader.loadTestsFromName(module)
    suite.run(R())
except Exception as e:
    res[module] = ["fail", "error", "could not load: " + repr(e)[:300]]
json.dump(res, open(out, "w"))
'''


def modules() -> list[str]:
    import importlib.util
    spec = importlib.util.find_spec(SUITE)
    d = Path(spec.submodule_search_locations[0])
    return sorted(f"{SUITE}.{p.stem}" for p in d.glob("test_*.py"))


def run_module(sim: str, module: str, tmp: Path) -> dict:
    out = tmp / f"{sim}-{module}.json"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1" if sim == "cudasim" else "0", GPUSIM_QUIET="1")
    if sim == "gpusim":     # the environment switch: processes the tests start run on gpusim too
        import gpusim.dropin
        env = gpusim.dropin.child_env(env)
        env["GPUSIM_MODE"] = "functional"
    t0 = time.time()
    try:
        subprocess.run([sys.executable, "-c", _CHILD, sim, module, str(out)], env=env, timeout=TIMEOUT,
                       capture_output=True, cwd=tmp)
    except subprocess.TimeoutExpired:
        return {module: ["fail", "error", f"timeout after {TIMEOUT} s"]}
    if not out.exists():
        return {module: ["fail", "error", "the test process died"]}
    res = json.loads(out.read_text())
    res["__time__"] = time.time() - t0
    return res


def run(sim: str, mods: list[str], tmp: Path, jobs: int, reuse: bool = False) -> dict:
    """Each module's results under one simulator. reuse: numba's simulator's results are kept per
    numba-cuda version (they do not depend on gpusim) and read back instead of run again."""
    cache = tmp / f"cudasim-{_numba_cuda_version()}.json"
    old = json.loads(cache.read_text()) if reuse and cache.exists() else {}
    todo = [m for m in mods if m not in old]
    with ThreadPoolExecutor(jobs) as ex:
        parts = dict(ex.map(lambda m: (m, run_module(sim, m, tmp)), todo))
    if sim == "cudasim":
        cache.write_text(json.dumps({**old, **parts}))
    return {m: old.get(m) or parts[m] for m in mods}


def _kept(sim: str, mods: list[str], tmp: Path) -> dict:
    out = {}
    for m in mods:
        f = tmp / f"{sim}-{m}.json"
        out[m] = json.loads(f.read_text()) if f.exists() else {m: ["fail", "error", "no result kept"]}
    return out


def _numba_cuda_version() -> str:
    from importlib.metadata import version
    return version("numba-cuda")


def summarise(cs: dict, gs: dict) -> dict:
    rows, totals = [], dict(sim_pass=0, both=0, wrong=0, refused=0, other=0, skipped=0, extra=0)
    failures = []
    for mod in sorted(cs):
        c, g = cs[mod], gs.get(mod, {})
        tests = sorted(t for t in set(c) | set(g) if not t.startswith("__"))
        r = dict(module=mod.rsplit(".", 1)[1], sim_pass=0, both=0, gfail=0, skip=0, extra=0)
        for t in tests:
            cr, gr = c.get(t, ["missing"]), g.get(t, ["missing"])
            if cr[0] in ("pass",):
                r["sim_pass"] += 1
                if gr[0] == "pass":
                    r["both"] += 1
                else:
                    r["gfail"] += 1
                    kind = gr[1] if len(gr) > 1 else "missing"
                    if gr[0] in ("skip", "xfail"):      # a test of numba's simulator itself, or one that
                        kind = gr[0]                    # numba expects to fail on a GPU: as on a GPU
                    key = {"assertion": "wrong", "gpusim-error": "refused", "skip": "skipped",
                           "xfail": "skipped"}.get(kind, "other")
                    totals[key] += 1
                    failures.append((t, kind, gr[2] if len(gr) > 2 else (gr[1] if len(gr) > 1 else gr[0])))
            elif gr[0] == "pass":
                r["extra"] += 1
            else:
                r["skip"] += 1
        for k in ("sim_pass", "both", "extra"):
            totals[k] += r[k]
        rows.append(r)
    return dict(rows=rows, totals=totals, failures=failures)


def write_doc(s: dict, seconds: float, reused: bool = False):
    t = s["totals"]
    pct = 100.0 * t["both"] / max(t["sim_pass"], 1)
    lines = ["# numba-cuda conformance", "",
             "Generated by `python validation/conformance.py` (do not edit): numba-cuda's own `cudapy` test suite "
             "(the copy inside the installed numba-cuda wheel), run unchanged through `gpusim.dropin` "
             "(functional mode, h100) and on numba's CUDA simulator, one process per test module.", "",
             f"- gpusim commit: {_commit()}",
             f"- tests that pass on numba's simulator: **{t['sim_pass']}**",
             f"- of those, pass on gpusim: **{t['both']} ({pct:.1f}%)**",
             f"- of those, fail on gpusim with a wrong value (an assertion, no gpusim error): **{t['wrong']}**",
             f"- fail with gpusim's error naming what is not modelled: {t['refused']}",
             f"- skipped or expected to fail on gpusim as on a GPU (tests of numba's simulator itself, "
             f"`skip_unless_cudasim`; numba's own `expectedFailure`), counted as not passing: {t['skipped']}",
             f"- fail otherwise (another exception): {t['other']}",
             f"- tests the simulator skips or fails that pass on gpusim: {t['extra']}",
             f"- numba-cuda {_numba_cuda_version()}; numba's simulator's results "
             f"{'reused from an earlier run of the same numba-cuda' if reused else 'run afresh'}",
             f"- wall time: {seconds / 60:.1f} min", "",
             "| test module | pass on numba's simulator | pass on gpusim too | fail on gpusim | "
             "skipped or failing on the simulator | of those, pass on gpusim |", "|---|---:|---:|---:|---:|---:|"]
    for r in s["rows"]:
        lines.append(f"| {r['module']} | {r['sim_pass']} | {r['both']} | {r['gfail']} | {r['skip'] + r['extra']} | "
                     f"{r['extra']} |")
    lines += ["", "## Every failure on gpusim of a test that passes on numba's simulator", "",
              "kind: `gpusim-error` (gpusim refused by name), `assertion` (a wrong value), `error` (another "
              "exception), `skip`/`xfail` (skipped, or expected to fail, on gpusim as on a GPU).", "",
              "| test | kind | message |", "|---|---|---|"]
    for test, kind, msg in s["failures"]:
        msg = msg.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {test.replace(SUITE + '.', '')} | {kind} | {msg[:300]} |")
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text("\n".join(lines) + "\n")


def _commit() -> str:
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="test modules (e.g. test_atomics)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tmp", default="/tmp/gpusim-conformance")
    ap.add_argument("--from-results", type=float, default=0.0, metavar="SECONDS",
                    help="write the report from the results the last run kept in --tmp (its wall time given)")
    ap.add_argument("--fresh-sim", action="store_true",
                    help="run numba's simulator again even where its results for this numba-cuda are kept")
    a = ap.parse_args(argv)
    mods = modules()
    if a.only:
        mods = [m for m in mods if m.rsplit(".", 1)[1] in a.only]
    tmp = Path(a.tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    cs = run("cudasim", mods, tmp, a.jobs, reuse=not a.fresh_sim)
    gs = _kept("gpusim", mods, tmp) if a.from_results else run("gpusim", mods, tmp, a.jobs)
    s = summarise(cs, gs)
    if not a.only:
        write_doc(s, a.from_results or time.time() - t0, reused=not a.fresh_sim)
    t = s["totals"]
    print(f"{t['both']}/{t['sim_pass']} pass on gpusim of those passing on numba's simulator; "
          f"{t['wrong']} wrong values, {t['refused']} refused by name, {t['other']} other")
    for test, kind, msg in s["failures"]:
        print(f"  {kind:13s} {test.replace(SUITE + '.', '')}: {msg[:200]}")


if __name__ == "__main__":
    main()
