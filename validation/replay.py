"""gpusim validate: replay every recorded H100 case in gpusim and compare, without a GPU.

Like is compared with like: cycles are Nsight Compute's gpc__cycles_elapsed.max against gpusim's
(both include the launch overhead); sectors, requests and bank conflicts are counted the same way;
latencies come from the same in-kernel %clock64 reads. gpusim counts PTX instructions where ncu
counts SASS, so instruction counts are shown, not scored.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "validation" / "data" / "h100"

EXACT = ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
         "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
SHOWN = ["l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum",
         "dram__bytes_write.sum", "sm__warps_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum",
         "launch__shared_mem_config_size"]
LATENCY_CASES = {"chase_l1": "L1", "chase_l2": "L2", "chase_dram": "DRAM", "chase_shared": "shared",
                 "chase_dram_4m": "DRAM 4 MiB", "chase_dram_seq": "DRAM in order",
                 "chase_dram_seq1k": "DRAM in order, 1 KiB"}
# groups never used to fit the preset (`gpusim calibrate` reads only microbenchmarks): the held-out kernels
HELD_OUT_GROUPS = {"programs"}
THRESHOLDS = ROOT / "validation" / "thresholds.json"


def counter_exceptions() -> dict:
    """{case: {counter: {"within_pct", "why"}}}: counters known to differ, each with its bound and cause."""
    return json.loads(THRESHOLDS.read_text()).get("counter_exceptions", {})


def recorded_cases(data_dir: Path = DATA) -> list[dict]:
    out = []
    for f in sorted(data_dir.glob("*.json")):
        d = json.loads(f.read_text())
        if "ncu" in d and "case" in d:
            out.append(d)
    return out


def _ncu(rec, key):
    v = rec["ncu"]["metrics"].get(key)
    return None if v is None else v.get("value")


def simulate(case, spec, model: str = "ptx") -> tuple[dict, dict, float]:
    """Run one validation case in timing mode (model: "ptx", or "sass" for ptxas's resources, gpusim/ptxas.py);
    returns (metrics of its last launch, derived, seconds)."""
    import gpusim
    inp = case.inputs(0)
    results = []

    def launch(kernel, grid, block, *args, **opts):
        r = gpusim.launch(kernel, grid, block, *args, gpu=spec, mode="timing", fma=True, model=model, **opts)
        results.append(r)
        return r

    t0 = time.perf_counter()
    out = case.run(launch, inp)
    dt = time.perf_counter() - t0
    ref = case.reference(inp)
    check = case.check(out, ref)
    derived = case.derive(out, inp) if case.derive else {}
    m = dict(results[-1].metrics)
    m.pop("opcodes", None)
    m["_passed"] = bool(check["passed"])
    return m, derived, dt


def hw_runs(rec: dict) -> list:
    """Every H100 run of the case's cycles (gpc__cycles_elapsed.max): the recording, the extra-stalls pass
    (validation/record_extra_stalls.py) and the repeats (validation/record_repeats.py), each its own process."""
    runs = [_ncu(rec, "gpc__cycles_elapsed.max")]
    extra = rec["ncu"].get("extra_stalls", {}).get("cycles_this_pass")
    if extra:
        runs.append(extra)
    runs += rec["ncu"].get("repeats", {}).get("cycles", [])
    return [float(x) for x in runs if x]


# Cases whose time follows where the driver put their arrays, with a probe that ran them with the array at each
# placement: their H100 figure is the probe's runs at the placement a fresh process gets, the one gpusim lays out
# (gpusim/memory/device.py; validation/probes/alloc_placement.py). prog_histogram's recording and repeats ran in
# processes that had made other cases' allocations first: the recording had the 1-KiB histogram aligned (27.3k
# cycles), the four others 512 B past (17.9-18.6k; the probe: 29.1k at offset 0, 18.2k at 512 B).
PLACEMENT_PROBES = {"prog_histogram": "probe_histogram_placement.json"}
FRESH_PLACEMENT = 2 << 20       # a fresh process's small arrays start its driver's pool, 2-MiB aligned


def placed_runs(rec: dict) -> list:
    """The H100 runs of a PLACEMENT_PROBES case at a fresh process's placement (empty for the others)."""
    probe = PLACEMENT_PROBES.get(rec.get("case"))
    if probe is None:
        return []
    res = json.loads((DATA / probe).read_text())["results"]
    return [float(r["gpc__cycles_elapsed.max"]) for r in res if r["offset_bytes"] % FRESH_PLACEMENT == 0]


def hw_cycles(rec: dict) -> float:
    """The case's H100 cycles: the median of its runs (a few cases move with where their arrays land), or of
    its runs at a fresh process's placement where a probe measured them (`placed_runs`)."""
    import numpy as np
    return float(np.median(placed_runs(rec) or hw_runs(rec)))


def compare(rec: dict, sim: dict, derived: dict) -> dict:
    hw_cycles_ = hw_cycles(rec)
    row = {"case": rec["case"], "group": rec["group"], "hw_cycles": hw_cycles_,
           "hw_runs": len(placed_runs(rec) or hw_runs(rec)), "sim_cycles": sim["gpc__cycles_elapsed.max"],
           "passed": sim["_passed"]}
    row["cycle_err"] = (row["sim_cycles"] - hw_cycles_) / hw_cycles_
    row["exact"] = {k: (_ncu(rec, k), sim.get(k)) for k in EXACT}
    row["shown"] = {k: (_ncu(rec, k), sim.get(k)) for k in SHOWN}
    pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    # every reason either side reports: one gpusim does not model (imc_miss, misc, ...) counts 0 there, so
    # the H100's top 3 is its own, whatever gpusim names
    keys = [k for k in sim if k.startswith(pre) and k.endswith(post)]
    keys += [k for k in rec["ncu"]["metrics"] if k.startswith(pre) and k.endswith(post) and k not in sim]
    stalls = {k[len(pre):-len(post)]: (_ncu(rec, k), sim.get(k, 0.0)) for k in keys}
    row["stalls"] = stalls
    hw3, sim3 = top3_stalls(stalls, 0), top3_stalls(stalls, 1)
    row["stall_top3"] = (sorted(hw3), sorted(sim3))
    row["stall_top3_match"] = (hw3 == sim3) if hw3 else None
    hw_i, sim_i = _ncu(rec, "smsp__inst_executed.sum"), sim.get("smsp__inst_executed.sum")
    row["inst_err"] = (sim_i - hw_i) / hw_i if hw_i and sim_i else None
    from validation.calibrate import CLOCK_RUN
    run = rec.get("clock64", {}).get(CLOCK_RUN.get(rec["case"], "warm"), {})
    # the case's own figures from its in-kernel clock reads (derive), the H100's run beside gpusim's
    row["derived"] = {k: (run[k], v) for k, v in derived.items()
                      if isinstance(v, (int, float)) and isinstance(run.get(k), (int, float))}
    if rec["case"] in LATENCY_CASES:
        row["latency"] = (LATENCY_CASES[rec["case"]], run["cycles_per_step"], derived.get("cycles_per_step"))
    return row


def pearson(x, y) -> float:
    x, y = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    return float(np.corrcoef(x, y)[0, 1]) if len(x) > 1 else float("nan")


def _cycle_figures(rows: list[dict]) -> dict:
    hw, sim = [r["hw_cycles"] for r in rows], [r["sim_cycles"] for r in rows]
    errs = [abs(r["cycle_err"]) for r in rows]
    worst = max(rows, key=lambda r: abs(r["cycle_err"])) if rows else None
    top3 = [r["stall_top3_match"] for r in rows if r.get("stall_top3_match") is not None]
    return {"cases": len(rows),
            "cycle_mape_pct": 100.0 * float(np.mean(errs)) if rows else float("nan"),
            "cycle_p90_pct": 100.0 * float(np.percentile(errs, 90)) if rows else float("nan"),
            "worst": (worst["case"], 100.0 * worst["cycle_err"]) if worst else None,
            "cycle_pearson_r": float(np.corrcoef(hw, sim)[0, 1]) if len(rows) > 1 else float("nan"),
            "cycle_pearson_r_log": pearson(hw, sim),
            "stall_top3_match": f"{sum(top3)}/{len(top3)}"}


NOT_STALLS = {"selected"}


def top3_stalls(stalls: dict, side: int) -> set:
    """The three largest stall reasons (cycles per issued instruction) of one side (0: H100, 1: gpusim)."""
    vals = [(v[side] or 0.0, k) for k, v in stalls.items() if k not in NOT_STALLS]
    return {k for v, k in sorted(vals, reverse=True)[:3] if v > 0}


def counter_mismatches(rows: list[dict]) -> list[tuple]:
    """(row, counter, hw, sim, exception or None) for every exact-tier counter that is not equal."""
    exc = counter_exceptions()
    return [(r, k, h, s, exc.get(r["case"], {}).get(k)) for r in rows for k, (h, s) in r["exact"].items()
            if h is not None and s is not None and not counter_matches(k, h, s, r)]


def summarize(rows: list[dict]) -> dict:
    exact_n = sum(1 for r in rows for k, (h, s) in r["exact"].items() if h is not None and s is not None)
    bad = counter_mismatches(rows)
    lat = {r["latency"][0]: r["latency"][1:] for r in rows if "latency" in r}
    return {
        **_cycle_figures(rows),
        "fitted": _cycle_figures([r for r in rows if r["group"] not in HELD_OUT_GROUPS]),
        "held_out": _cycle_figures([r for r in rows if r["group"] in HELD_OUT_GROUPS]),
        "exact_counters_matching": f"{exact_n - len(bad)}/{exact_n}",
        "counter_exceptions_within_bound": sum(1 for row, k, h, s, e in bad if e and exception_holds(e, k, h, s, row)),
        "latency_errors_pct": {k: 100.0 * (s - h) / h for k, (h, s) in lat.items() if s},
        "outputs_correct": sum(r["passed"] for r in rows),
    }


def exception_holds(exc: dict, key: str, hw, sim, row: dict) -> bool:
    """A known counter difference stays within its stated bound: percent of the case's H100
    shared-load wavefronts for shared-memory counters (conflicts can be 0 on one side), else of
    the H100's value."""
    scale = row["exact"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"][0] if "shared" in key else hw
    return abs(sim - hw) <= exc["within_pct"] / 100.0 * max(abs(scale or 0), 1.0)


BANK_SLACK = 0.001


def counter_matches(key, hw, sim, row) -> bool:
    """Sector and request counts must be equal. ncu's shared-memory wavefront and bank-conflict
    counters carry a few hundred extra wavefronts per launch that no load of the kernel explains
    (seen on every bank case, e.g. 273 'conflicts' for conflict-free stride 1), so those match when
    within 0.1% of the case's shared-load wavefronts."""
    if "shared" not in key:
        return int(round(hw)) == int(round(sim))
    wf = row["exact"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"][0] or 0
    return abs(hw - sim) <= max(1.0, BANK_SLACK * wf)


def run_all(spec, names: list[str] | None = None, progress=None, model: str = "ptx") -> list[dict]:
    from validation.cases import all_cases
    cases = all_cases()
    rows = []
    for rec in recorded_cases():
        if names and rec["case"] not in names:
            continue
        case = cases[rec["case"]]
        sim, derived, dt = simulate(case, spec, model)
        row = compare(rec, sim, derived)
        # the launched function's registers on the H100 (CU_FUNC_ATTRIBUTE_NUM_REGS, recorded by numba), and
        # ncu's launch__registers_per_thread, which reads 16 for kernels of 8-15 and 32 for one of 31
        row["regs"] = (rec.get("kernel", {}).get("regs_per_thread"), sim.get("launch__registers_per_thread"))
        row["regs_ncu"] = (_ncu(rec, "launch__registers_per_thread"), sim.get("launch__registers_per_thread"))
        row["sim_seconds"] = dt
        rows.append(row)
        if progress:
            progress(row)
    return rows


MODEL_TEXT = {"ptx": "gpusim's PTX-only model",
              "sass": "the SASS model: ptxas's registers, and per PTX line the SASS instructions and pipes ptxas made"}


def registers_equal(rows: list[dict]) -> tuple[int, int]:
    """(cases whose registers per thread equal the H100's launched function's, cases with both known)."""
    regs = [r["regs"] for r in rows if r.get("regs") and r["regs"][0] is not None and r["regs"][1] is not None]
    return sum(int(round(h)) == int(s) for h, s in regs), len(regs)


def _median_abs(xs) -> float:
    xs = [abs(x) for x in xs if x is not None]
    return 100.0 * float(np.median(xs)) if xs else float("nan")


def models_section(by_model: dict) -> list[str]:
    """Both timing models side by side: figures per model, then per case. by_model: {model: rows}."""
    models = list(by_model)
    lines = ["## Both timing models", "",
             "| model | set | cases | cycle MAPE | p90 error | worst | Pearson r | top-3 stalls = ncu's | "
             "registers = the H100's | instructions (median error) |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|"]
    for m in models:
        rows = by_model[m]
        for label, sel in (("held-out programs", [r for r in rows if r["group"] in HELD_OUT_GROUPS]),
                           ("microbenchmarks", [r for r in rows if r["group"] not in HELD_OUT_GROUPS]),
                           ("all", rows)):
            if not sel:
                continue
            f = _cycle_figures(sel)
            same, regs = registers_equal(sel)
            w = f["worst"]
            lines.append(f"| {m} | {label} | {f['cases']} | {f['cycle_mape_pct']:.1f}% | {f['cycle_p90_pct']:.1f}% | "
                         f"{w[0]} {w[1]:+.1f}% | {f['cycle_pearson_r']:.3f} | {f['stall_top3_match']} | "
                         f"{same}/{regs} | {_median_abs(r.get('inst_err') for r in sel):.1f}% |")
    lines += ["", "Registers: the launched function's registers per thread on the H100 (the driver's "
              "CU_FUNC_ATTRIBUTE_NUM_REGS, as numba recorded it), against gpusim's (the SASS model: ptxas's on "
              "the PTX a GPU runs, for numba kernels numba's compile without line info; the PTX model: its "
              "estimate). ncu's launch__registers_per_thread reads "
              "16 for every kernel of 8 to 15 registers and 32 for smem_ld64's 31, so it is not compared.", "",
              "Instructions: gpusim's smsp__inst_executed.sum against ncu's (SASS). The PTX model counts PTX "
              "instructions; the SASS model counts what its PTX-to-SASS map (gpusim/sassmap.py) says they issue "
              "as.", ""]
    head = "| case | group | H100 cycles | " + " | ".join(f"{m} error" for m in models) + \
        " | registers (H100 / " + " / ".join(models) + ") | " + " | ".join(f"{m} instr. error" for m in models) + \
        " | top-3 stalls, ncu | top-3 stalls, " + models[-1] + " |"
    lines += [head, "|---|---|---:|" + "---:|" * len(models) + "---|" + "---:|" * len(models) + "---|---|"]
    first = by_model[models[0]]
    index = {m: {r["case"]: r for r in by_model[m]} for m in models}
    for r in first:
        cs = [index[m].get(r["case"]) for m in models]
        errs = " | ".join(f"{100 * c['cycle_err']:+.1f}%" if c else "-" for c in cs)
        regs = " / ".join(str(c["regs"][1]) if c and c.get("regs") else "-" for c in cs)
        hw_regs = f"{r['regs'][0]:.0f}" if r.get("regs") and r["regs"][0] is not None else "-"
        ins = " | ".join(f"{100 * c['inst_err']:+.1f}%" if c and c.get("inst_err") is not None else "-" for c in cs)
        t3 = (cs[-1] or r).get("stall_top3", ([], []))
        lines.append(f"| {r['case']} | {r['group']} | {r['hw_cycles']:,.0f} | {errs} | {hw_regs} / {regs} | "
                     f"{ins} | {', '.join(t3[0])} | {', '.join(t3[1])} |")
    return lines + [""]


def write_report(rows: list[dict], summary: dict, spec, path: Path, plot: Path | None, model: str = "ptx",
                 by_model: dict | None = None):
    lines = ["# gpusim vs H100: validation report", "",
             "Generated by `gpusim validate` from the measurements in `validation/data/h100/` "
             f"(preset `{spec.name}`; the detailed tables are of the `{model}` timing model, {MODEL_TEXT[model]}"
             + ("; both models side by side below" if by_model and len(by_model) > 1 else "")
             + "). Do not edit by hand. H100 cycles are the median of each case's Nsight Compute runs (up to "
             "five, each its own process: `hw_runs`; a few cases move with where their arrays land).", "",
             f"**Summary:** {summary['cases']} cases, cycle MAPE {summary['cycle_mape_pct']:.1f}%, "
             f"Pearson r {summary['cycle_pearson_r']:.3f} (log-log {summary['cycle_pearson_r_log']:.3f}), "
             f"exact counters {summary['exact_counters_matching']}, outputs correct "
             f"{summary['outputs_correct']}/{summary['cases']}.", "",
             f"- **Microbenchmarks** (the preset's latencies, bandwidths and overheads are fitted on these): "
             f"{_figures_text(summary['fitted'])}.",
             f"- **Programs, held out** (the example programs at their default sizes; never used for fitting): "
             f"{_figures_text(summary['held_out'])}.", ""]
    if summary["latency_errors_pct"]:
        lines.append("Pointer-chase latency error: " + ", ".join(
            f"{k} {v:+.1f}%" for k, v in summary["latency_errors_pct"].items()) + "\n")
    if plot is not None:
        lines += [f"![simulated vs measured cycles]({plot.name})", ""]
    if by_model:
        lines += models_section(by_model)
    lines += [f"## Per case ({model} model)", ""]
    lines += ["| case | group | H100 cycles | gpusim cycles | error | ld sectors (hw/sim) | st sectors | "
              "bank conflicts | L1 hit % | L2 hit % | DRAM read B | sim s |",
              "|---|---|---:|---:|---:|---|---|---|---|---|---|---:|"]

    def pair(r, k, fmt="{:.0f}"):
        h, s = r["exact"].get(k) or r["shown"].get(k)
        def f(v):
            return "-" if v is None else fmt.format(v)
        return f"{f(h)} / {f(s)}"

    for r in rows:
        lines.append(
            f"| {r['case']} | {r['group']} | {r['hw_cycles']:,.0f} | {r['sim_cycles']:,} "
            f"| {100 * r['cycle_err']:+.1f}% "
            f"| {pair(r, EXACT[0])} | {pair(r, EXACT[1])} | {pair(r, EXACT[4])} "
            f"| {pair(r, SHOWN[0], '{:.1f}')} | {pair(r, SHOWN[1], '{:.1f}')} | {pair(r, SHOWN[2])} "
            f"| {r['sim_seconds']:.1f} |")
    bad = counter_mismatches(rows)
    if bad:
        lines += ["", "## Exact-tier counters that differ", "",
                  "Each is a known difference with a stated bound and cause (`validation/thresholds.json`); "
                  "one without an entry is a regression.", "",
                  "| case | counter | H100 | gpusim | bound | cause |", "|---|---|---:|---:|---|---|"]
        for row, key, h, s, exc in bad:
            bound = "none: regression" if not exc else (
                f"{exc['within_pct']}% {'holds' if exception_holds(exc, key, h, s, row) else 'EXCEEDED'}")
            lines.append(f"| {row['case']} | `{key}` | {h:,.0f} | {s:,.0f} | {bound} | {exc['why'] if exc else ''} |")
    lines += ["", "## Latencies (cycles per dependent step, in-kernel %clock64)", "",
              "| level | H100 | gpusim | error |", "|---|---:|---:|---:|"]
    for r in rows:
        if "latency" in r:
            name, h, s = r["latency"]
            lines.append(f"| {name} | {h:.1f} | {s:.1f} | {100 * (s - h) / h:+.1f}% |")
    lines += ["", f"## Stall mix (cycles per issued instruction: H100 SASS / gpusim, {model} model)", ""]
    reasons = ["long_scoreboard", "short_scoreboard", "barrier", "wait", "math_pipe_throttle", "not_selected",
               "lg_throttle", "mio_throttle", "branch_resolving", "no_instruction", "imc_miss", "drain"]
    lines += ["| case | " + " | ".join(reasons) + " |", "|---|" + "---|" * len(reasons)]
    for r in rows:
        cells = []
        for k in reasons:
            h, s = r["stalls"].get(k, (None, None))
            cells.append(f"{h or 0:.1f}/{s or 0:.1f}")
        lines.append(f"| {r['case']} | " + " | ".join(cells) + " |")
    path.write_text("\n".join(lines) + "\n")


def _figures_text(f: dict) -> str:
    return (f"{f['cases']} cases, cycle MAPE {f['cycle_mape_pct']:.1f}%, 90th percentile {f['cycle_p90_pct']:.1f}%, "
            f"worst {f['worst'][0]} {f['worst'][1]:+.1f}%, Pearson r {f['cycle_pearson_r']:.3f} "
            f"(log-log {f['cycle_pearson_r_log']:.3f}), top-3 stall reasons equal to ncu's {f['stall_top3_match']}")


def scatter(rows: list[dict], path: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    hw = [r["hw_cycles"] for r in rows]
    sim = [r["sim_cycles"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 6), dpi=110)
    groups = sorted({r["group"] for r in rows})
    for g in groups:
        xs = [r["hw_cycles"] for r in rows if r["group"] == g]
        ys = [r["sim_cycles"] for r in rows if r["group"] == g]
        ax.scatter(xs, ys, label=g, s=22)
    lo, hi = min(hw + sim) / 1.5, max(hw + sim) * 1.5
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="1:1")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("H100 cycles (ncu gpc__cycles_elapsed.max)")
    ax.set_ylabel("gpusim cycles")
    ax.set_title("gpusim vs H100")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def save_rows(rows, summary, path: Path):
    path.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1, default=float) + "\n")


def mape(rows) -> float:
    return 100.0 * float(np.mean([abs(r["cycle_err"]) for r in rows]))


