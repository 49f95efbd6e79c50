"""`gpusim validate` and `gpusim calibrate`: replay the recorded H100 cases and fit the preset on them
(the harness lives in validation/; the CLI may import it, the library never does)."""
from __future__ import annotations

from pathlib import Path

from gpusim import report
from gpusim.commands import _write_text, check_writable
from gpusim.errors import GpusimError
from gpusim.presets import get_preset


def cmd_validate(args):
    from validation import replay as v
    spec = get_preset(args.gpu)
    names = args.case or None
    known = [rec["case"] for rec in v.recorded_cases()]
    for name in names or []:
        if name not in known:
            raise GpusimError(f"unknown case '{name}' (recorded cases: {', '.join(known)})")
    if not names:
        out = check_writable(args.out, "--out")
        check_writable(out.with_suffix(".png"), "--out")
        check_writable(out.with_name("sim_results.json"), "--out")

    def show(row):
        report.console.print(f"{row['case']:24s} H100 {row['hw_cycles']:>12,.0f}  gpusim {row['sim_cycles']:>12,}  "
                             f"{100 * row['cycle_err']:+7.1f}%  ({row['sim_seconds']:.1f} s)")
        if names and row.get("derived"):     # the case's clock-read figures, H100 / gpusim
            report.console.print("    " + ", ".join(f"{k} {hw:,.1f} / {sim:,.1f}" for k, (hw, sim)
                                                    in row["derived"].items()), highlight=False)

    model = getattr(args, "model", "ptx") or "ptx"
    models = ["ptx", "sass"] if model == "both" else [model]
    if "sass" in models and not _sass_tools():
        if model == "sass":
            raise GpusimError("--model sass needs ptxas and nvdisasm: pip install gpusim[sass] (or gpusim[triton], "
                              "which bundles both); --model ptx needs nothing")
        report.console.print("no ptxas/nvdisasm here: only the PTX model is run (pip install gpusim[sass] for both)")
        models = ["ptx"]
    by_model = {}
    for m in models:
        if len(models) > 1:
            report.console.print(f"[bold]timing model: {m}[/bold]")
        by_model[m] = v.run_all(spec, names, progress=show, model=m)
    model = models[-1]
    rows = by_model[model]
    summary = v.summarize(rows)
    if len(models) > 1:
        summary["by_model"] = {m: v.summarize(r) for m, r in by_model.items()}
    for m, mrows in by_model.items():
        same, nregs = v.registers_equal(mrows)
        source = "ptxas's" if m == "sass" else "gpusim's PTX estimate"
        f = v.summarize(mrows)
        ho = f["held_out"]
        held = (f"held-out {ho['cycle_mape_pct']:.1f}%, p90 {ho['cycle_p90_pct']:.1f}%"
                if ho["cases"] else "no held-out case among them")
        report.console.print(f"{m} model: cycle MAPE {f['cycle_mape_pct']:.1f}% ({held}), "
                             f"registers equal to the H100's on {same}/{nregs} cases ({source})")
    out = Path(args.out)
    plot = out.with_suffix(".png") if not names else None
    if plot is not None:
        v.scatter(rows, plot)
    if not names:
        v.write_report(rows, summary, spec, out, plot, model, by_model)
        v.save_rows(rows, summary, out.with_name("sim_results.json"))
    lat = summary["latency_errors_pct"]
    pr = f"Pearson r {summary['cycle_pearson_r']:.3f} (log {summary['cycle_pearson_r_log']:.3f}), " \
        if summary["cases"] > 1 else ""
    report.console.print(
        f"[bold]{summary['cases']} cases: cycle MAPE {summary['cycle_mape_pct']:.1f}%, {pr}exact counters "
        f"{summary['exact_counters_matching']}, latency errors "
        + (", ".join(f"{k} {e:+.1f}%" for k, e in lat.items()) if lat else "(no pointer chase among them)")
        + "[/bold]")


def _sass_tools() -> bool:
    from gpusim import sassmap
    return sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None


def cmd_calibrate(args):
    from rich.table import Table

    from validation.calibrate import fit
    spec = get_preset(args.gpu)
    if args.write:
        check_writable(args.write, "--write")
    new, fitted = fit(spec, log=lambda s: report.console.print(s))
    t = Table(title=f"fitted parameters for {spec.name}", title_justify="left")
    for c in ("parameter", "preset", "fitted", "from"):
        t.add_column(c)
    for k, (old, val, why) in fitted.items():
        t.add_row(k, str(old), str(val), why)
    report.console.print(t)
    if args.write:
        from validation.calibrate import to_toml
        _write_text(Path(args.write), to_toml(spec.name, fitted))
        report.console.print(f"wrote {args.write}: use it as --gpu {args.write}, or copy the values into "
                             "gpusim/presets.py")
