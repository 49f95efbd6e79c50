"""Post-processing (no GPU): one tidy CSV per kernel launch, one row per SASS instruction in address order,
with the sampled stall reasons as columns, from the two exports collect.sh writes per launch:
  csv/<k>.source_sass.csv  `ncu --import R --page source --csv --print-source sass` (18 reason columns; it has
                           no warpgroup_arrive column)
  csv/<k>.pcsamp.csv       dump_pcsamp.py (ncu_report): every smsp__pcsamp_* metric per PC, warpgroup_arrive included
Writes <k>.sass_stalls.csv beside this file (from run_fine/) and run_auto/<k>.sass_stalls.csv, and checks that the
two exports agree on every reason they share. Usage: python3 make_tables.py [--print] [--dir DIR]
(--dir: another collection's folder, its run_fine/ only, every launch it holds; sass_stalls_atomics_2026-11-27)"""
import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS = ["tri_matmul_fp16_ns1", "tri_matmul_fp16", "tri_sum", "tri_vecadd", "prog_vecadd", "store_s01"]
REASONS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle", "long_scoreboard",
           "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instructions", "not_selected", "selected",
           "short_scoreboard", "sleeping", "tex_throttle", "wait", "warpgroup_arrive"]
SOURCE_COL = {"barrier": "stall_barrier", "branch_resolving": "stall_branch_resolving",
              "dispatch_stall": "stall_dispatch", "drain": "stall_drain", "imc_miss": "stall_imc",
              "lg_throttle": "stall_lg", "long_scoreboard": "stall_long_sb", "math_pipe_throttle": "stall_math",
              "membar": "stall_membar", "mio_throttle": "stall_mio", "misc": "stall_misc",
              "no_instructions": "stall_no_inst", "not_selected": "stall_not_selected", "selected": "stall_selected",
              "short_scoreboard": "stall_short_sb", "sleeping": "stall_sleep", "tex_throttle": "stall_tex",
              "wait": "stall_wait"}
P = "smsp__pcsamp_warps_issue_stalled_"


def _int(v):
    v = (v or "").replace(",", "").strip()
    return int(float(v)) if v not in ("", "-", "n/a") else 0


def tidy(run: Path, k: str):
    src = list(csv.reader((run / "csv" / f"{k}.source_sass.csv").open()))
    h, rows = src[1], src[2:]
    col = {c: i for i, c in enumerate(h)}
    pcs = list(csv.DictReader((run / "csv" / f"{k}.pcsamp.csv").open()))
    by_pc = {int(r["pc"], 16): r for r in pcs}
    base = int(rows[0][col["Address"]], 16)
    out, bad = [], []
    for r in rows:
        pc = int(r[col["Address"]], 16)
        p = by_pc.get(pc, {})
        rec = {"offset": f"0x{pc - base:04x}", "address": r[col["Address"]], "sass": r[col["Source"]].strip(),
               "inst_executed": _int(r[col["Instructions Executed"]]),
               "samples": _int(r[col["Warp Stall Sampling (All Samples)"]]),
               "samples_not_issued": _int(r[col["Warp Stall Sampling (Not-issued Samples)"]])}
        for rs in REASONS:
            rec[rs] = _int(p.get(P + rs))
            if rs in SOURCE_COL and _int(r[col[SOURCE_COL[rs]]]) != rec[rs]:
                bad.append((rec["offset"], rs, r[col[SOURCE_COL[rs]]], rec[rs]))
        for rs in REASONS:
            rec[rs + "_not_issued"] = _int(p.get(P + rs + "_not_issued"))
        if sum(rec[rs] for rs in REASONS) != rec["samples"]:
            bad.append((rec["offset"], "sum", rec["samples"], sum(rec[rs] for rs in REASONS)))
        out.append(rec)
    return out, bad


def write(path: Path, recs):
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(recs[0]))
        w.writeheader()
        w.writerows(recs)


def fmt(rec, top=None):
    items = sorted(((rs, rec[rs]) for rs in REASONS if rec[rs]), key=lambda x: -x[1])
    return ", ".join(f"{rs} {v}" for rs, v in items[:top])


def main():
    show = "--print" in sys.argv
    runs, kernels = ((HERE / "run_fine", HERE), (HERE / "run_auto", HERE / "run_auto")), KERNELS
    if "--dir" in sys.argv:
        there = Path(sys.argv[sys.argv.index("--dir") + 1]).resolve()
        runs = ((there / "run_fine", there),)
        kernels = sorted(f.name[:-len(".source_sass.csv")]
                         for f in (there / "run_fine" / "csv").glob("*.source_sass.csv"))
    for run, dest in runs:
        for k in kernels:
            recs, bad = tidy(run, k)
            write(dest / f"{k}.sass_stalls.csv", recs)
            if bad:
                print(f"{run.name}/{k}: MISMATCH {bad[:5]}")
            if not show or run.name != "run_fine":
                continue
            tot = {rs: sum(r[rs] for r in recs) for rs in REASONS}
            n = sum(r["samples"] for r in recs)
            print(f"\n### {k}  ({n} samples, {len(recs)} SASS instructions)")
            print("totals: " + ", ".join(f"{rs} {v} ({100 * v / n:.1f}%)" for rs, v in
                                         sorted(tot.items(), key=lambda x: -x[1]) if v))
            print("| off | SASS | exec | samples | split |\n|---|---|---|---|---|")
            for r in sorted(recs, key=lambda r: -r["samples"])[:10]:
                print(f"| {r['offset']} | `{r['sass'][:48]}` | {r['inst_executed']} | {r['samples']} | {fmt(r)} |")
            if "matmul" in k:
                print("WARPGROUP/HGMMA/BAR:")
                for r in recs:
                    if any(t in r["sass"] for t in ("WARPGROUP", "HGMMA", "BAR.SYNC", "BAR.", "FENCE")):
                        print(f"| {r['offset']} | `{r['sass'][:52]}` | {r['inst_executed']} | "
                              f"{r['samples']} | {fmt(r)} |")
            for rs in ("imc_miss", "no_instructions"):
                hits = sorted((r for r in recs if r[rs]), key=lambda r: -r[rs])
                print(f"{rs} ({tot[rs]}): " + "; ".join(f"{r['offset']} `{r['sass'][:40]}` {r[rs]}" for r in hits[:12])
                      + (f"; +{len(hits) - 12} more" if len(hits) > 12 else ""))


if __name__ == "__main__":
    main()
