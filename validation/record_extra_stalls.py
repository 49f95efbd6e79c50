"""Record the stall reasons the first recordings did not ask Nsight Compute for, and merge them into the records.

The suite's stall list (validation/_ncu.py STALL_REASONS) began with the fourteen reasons of Volta-era
kernels. Hopper's ncu has five more: gmma (waiting for a warpgroup MMA), imc_miss (the immediate-constant
cache), misc, sleeping and tex_throttle. gpusim reports gmma for wgmma waits; without the H100's own figure a
comparison of stall mixes counted that reason against nothing. This pass profiles every recorded case once
more with only those metrics (the same flags: --clock-control none, --cache-control all, kernel replay) and
adds them to each record's ncu metrics, noting the pass under ncu.extra_stalls. The rest of a record is
untouched (stall figures are per issued instruction, so a second run's values sit beside the first's).

On the device (one call):

    python3 validation/record_extra_stalls.py profile OUTDIR numba|triton|case,case,...

profiles the numba cases through record.py's --ncu-target (as the first recording did), or the Triton
programs through validation/triton/record_cases.py's runner. Here, without a GPU:

    python3 validation/record_extra_stalls.py merge OUTDIR [validation/data/h100]
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

EXTRA_REASONS = ["gmma", "imc_miss", "misc", "sleeping", "tex_throttle"]


def extra_metrics() -> list[str]:
    from validation._ncu import STALL_FAMILIES
    names = ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum"]      # to check the pass against the record
    for fam in STALL_FAMILIES:
        names += [fam.format(r) for r in EXTRA_REASONS]
    return names


def profile(out: Path, only: list[str]) -> None:
    from validation._record_ncu import profile_all
    from validation.record import find_ncu
    from validation.replay import recorded_cases
    out.mkdir(parents=True, exist_ok=True)
    ncu = find_ncu()
    t0 = time.time()
    if only == ["triton"]:
        from validation.triton import record_cases
        record_cases.profile(out / "triton", extra_metrics())
        print(f"triton done in {time.time() - t0:.0f}s", flush=True)
        return
    names = [r["case"] for r in recorded_cases() if not r["case"].startswith("tri_")]
    if only != ["numba"]:
        names = [n for n in names if n in only]
    results, meta = profile_all(ncu, names, out / "numba", time.time() + 540, 2, extra_metrics())
    (out / "numba.json").write_text(json.dumps({"results": results, "meta": meta}, indent=1, default=str))
    print(f"numba cases: {len(results)} of {len(names)} in {time.time() - t0:.0f}s", flush=True)


def _profile_cli(out: Path, only: str = "numba") -> None:
    profile(out, only.split(","))


def merge(out: Path, dest: Path) -> None:
    import numpy as np
    when = time.strftime("%Y-%m-%d", time.gmtime(out.stat().st_mtime))
    per_case: dict = {}
    if (out / "numba.json").exists():
        for case, rec in json.loads((out / "numba.json").read_text())["results"].items():
            per_case[case] = rec["metrics"]
    tri = out / "triton"
    if (tri / "ncu_full.csv").exists():
        from validation.triton.record_cases import read_ncu
        for case, launches in read_ncu(tri).items():
            rest = launches[1:] or launches
            m = {}
            for k in rest[0]:
                vals = [x[k][0] for x in rest if k in x and isinstance(x[k][0], float)]
                if vals:
                    v = float(np.median(vals))
                    m[k] = {"value": int(v) if v.is_integer() else v, "unit": rest[0][k][1]}
            per_case["tri_" + case] = m
    keep = set(extra_metrics()[2:])
    for case, m in sorted(per_case.items()):
        path = dest / f"{case}.json"
        if not path.exists():
            continue
        rec = json.loads(path.read_text())
        added = {k: v for k, v in m.items() if k in keep and v.get("value") is not None}
        rec["ncu"]["metrics"].update(added)
        cyc = m.get("gpc__cycles_elapsed.max", {}).get("value")
        rec["ncu"]["extra_stalls"] = {
            "reasons": EXTRA_REASONS, "recorded_by": "validation/record_extra_stalls.py", "date": when,
            "cycles_this_pass": cyc, "cycles_recorded": rec["ncu"]["metrics"]["gpc__cycles_elapsed.max"]["value"],
            "note": "a second ncu pass with only these metrics; stall figures are per issued instruction"}
        path.write_text(json.dumps(rec, indent=1) + "\n")
        print(f"{case:28s} +{len(added)} metrics, cycles {cyc} (recorded "
              f"{rec['ncu']['extra_stalls']['cycles_recorded']})")


def main(argv=None) -> int:
    from validation._record_ncu import profile_merge_cli
    return profile_merge_cli(__doc__, _profile_cli, merge, sys.argv[1:] if argv is None else argv,
                             HERE / "data" / "h100")


if __name__ == "__main__":
    sys.exit(main())
