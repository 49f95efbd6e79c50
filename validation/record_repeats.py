"""Measure every recorded case's cycles again in fresh processes, so that each case's H100 figure is a median.

A record's cycles (gpc__cycles_elapsed.max) come from one Nsight Compute run of one process. On most cases a
second run agrees within 1% (median 0.7% over the 134 cases between the first recording and the extra-stalls
pass), but a few depend on where the process's arrays land: gatomic_wrap256 ran 43.2k cycles in one process
and 82.7k in another (the atomic units its 256 counters hash to), prog_histogram 27.3k and 17.9k, local_w8
-23%. One run then says more about the allocation than about the kernel. This pass profiles every case
`passes` more times, each pass a new process (new allocations), asking ncu only for the cycles and the
instruction count (same flags: --clock-control none, --cache-control all, kernel replay), and stores the
figures in each record under ncu.repeats. `validation/replay.py hw_cycles` then takes the median of every run
of the case: the first recording, the extra-stalls pass and these.

On the device (one call):

    python3 validation/record_repeats.py profile OUTDIR [PASSES] [numba|triton|both] [case,case,...]

Here, without a GPU:

    python3 validation/record_repeats.py merge OUTDIR [validation/data/h100]
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

METRICS = ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum"]


def profile(out: Path, passes: int, which: str, only: list[str] | None = None) -> None:
    from validation._record_ncu import profile_all
    from validation.record import find_ncu
    from validation.replay import recorded_cases
    out.mkdir(parents=True, exist_ok=True)
    ncu = find_ncu()
    names = [r["case"] for r in recorded_cases()
             if not r["case"].startswith("tri_") and (not only or r["case"] in only)]
    for k in range(passes):
        t0 = time.time()
        d = out / f"pass{k + 1}"
        if which in ("numba", "both"):
            results, meta = profile_all(ncu, names, d / "numba", time.time() + 400, 2, METRICS)
            (d / "numba.json").write_text(json.dumps({"results": results, "meta": meta}, indent=1, default=str))
        if which in ("triton", "both"):
            from validation.triton import record_cases
            record_cases.profile(d / "triton", METRICS)
        print(f"pass {k + 1}: {time.time() - t0:.0f}s", flush=True)


def _profile_cli(out: Path, passes: str = "3", which: str = "both", cases: str = "") -> None:
    profile(out, int(passes), which, [c for c in cases.split(",") if c])


def _pass_cycles(d: Path) -> dict:
    """{case: cycles} of one pass."""
    import numpy as np
    got = {}
    if (d / "numba.json").exists():
        for case, rec in json.loads((d / "numba.json").read_text())["results"].items():
            v = rec["metrics"].get("gpc__cycles_elapsed.max", {}).get("value")
            if v:
                got[case] = v
    if (d / "triton" / "ncu_full.csv").exists():
        from validation.triton.record_cases import read_ncu
        for case, launches in read_ncu(d / "triton").items():
            rest = launches[1:] or launches     # the checked launch first, then the repeats of that process
            vals = [x["gpc__cycles_elapsed.max"][0] for x in rest if "gpc__cycles_elapsed.max" in x]
            if vals:
                got["tri_" + case] = float(np.median(vals))
    return got


def merge(out: Path, dest: Path) -> None:
    from validation.replay import hw_cycles, hw_runs
    when = time.strftime("%Y-%m-%d", time.gmtime(out.stat().st_mtime))
    passes = sorted(p for p in out.glob("pass*") if p.is_dir())
    per_case: dict = {}
    for p in passes:
        for case, v in _pass_cycles(p).items():
            per_case.setdefault(case, []).append(v)
    for case, vals in sorted(per_case.items()):
        path = dest / f"{case}.json"
        if not path.exists():
            continue
        rec = json.loads(path.read_text())
        rec["ncu"]["repeats"] = {
            "cycles": vals, "metric": "gpc__cycles_elapsed.max", "recorded_by": "validation/record_repeats.py",
            "date": when, "passes": len(passes),
            "note": "one ncu run per pass, each pass a new process; hw_cycles is the median of all runs"}
        path.write_text(json.dumps(rec, indent=1) + "\n")
        runs = hw_runs(rec)
        print(f"{case:28s} runs {[int(x) for x in runs]} -> median {hw_cycles(rec):,.0f} "
              f"(spread {max(runs) / min(runs) - 1:+.1%})")


def main(argv=None) -> int:
    from validation._record_ncu import profile_merge_cli
    return profile_merge_cli(__doc__, _profile_cli, merge, sys.argv[1:] if argv is None else argv,
                             HERE / "data" / "h100")


if __name__ == "__main__":
    sys.exit(main())
