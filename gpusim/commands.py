"""Implementations of the CLI subcommands (glue between programs, launch and report)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from gpusim import report, report_lines
from gpusim.errors import GpusimError, LaunchError
from gpusim.launch import DEFAULT_BUDGET, launch
from gpusim.presets import PRESETS, get_preset
from gpusim.sm.sanitize_report import parse_checks
from gpusim.textfmt import qualified_name


def cmd_list(args):
    from rich.table import Table

    from programs.ptx_programs import PTX_PROGRAMS
    t = Table(title="example programs", title_justify="left")
    t.add_column("name")
    t.add_column("default size", justify="right")
    t.add_column("description")
    for name, mod in _all_programs().items():
        t.add_row(name, str(mod.DEFAULT_SIZE), mod.DESCRIPTION + (" (Triton)" if _is_triton(mod) else ""))
    for name, spec in PTX_PROGRAMS.items():
        t.add_row(name, "-", f"PTX from CUDA C: {spec['file']} kernel {spec['kernel']}")
    report.console.print(t)
    p = Table(title="GPU presets", title_justify="left")
    p.add_column("name")
    p.add_column("SMs", justify="right")
    p.add_column("clock MHz", justify="right")
    p.add_column("description")
    for s in PRESETS.values():
        p.add_row(s.name, str(s.n_sm), f"{s.clock_mhz:.0f}", s.description)
    report.console.print(p)


def cmd_presets(args):
    from rich.table import Table
    names = [args.name] if args.name else list(PRESETS)
    for n in names:
        spec = get_preset(n)
        t = Table(title=f"{spec.name}: {spec.description}", title_justify="left")
        t.add_column("field")
        t.add_column("value", justify="right")
        t.add_column("unit")
        t.add_column("meaning")
        for k, v, u, doc in spec.describe():
            t.add_row(k, report.fmt(v), u, doc)
        report.console.print(t)


def _all_programs():
    """The numba.cuda programs of programs/ and the Triton programs of programs/triton/."""
    from programs import all_programs
    from programs.triton import all_programs as triton_programs
    return {**all_programs(), **triton_programs()}


def _is_triton(mod) -> bool:
    return getattr(mod, "TRITON", False)


def _program(name):
    progs = _all_programs()
    if name not in progs:
        raise LaunchError(f"unknown program '{name}' (see `gpusim list`)")
    return progs[name]


def cmd_ptx(args):
    from gpusim.kernels import numba_kernel
    from programs.ptx_programs import PTX_DIR, PTX_PROGRAMS
    if args.program in PTX_PROGRAMS:
        print((PTX_DIR / PTX_PROGRAMS[args.program]["file"]).read_text())
        return
    mod = _program(args.program)
    if _is_triton(mod):         # compiled for its launches (h100) at the small size, not run
        from gpusim.triton import compile_for
        mod.run(lambda fn, grid, *a, **meta: print(compile_for(fn, *a, **meta).ptx), mod.inputs(mod.SMALL_SIZE))
        return
    for fn, sig in mod.KERNELS:
        print(numba_kernel(fn, tuple(sig)).ptx)


def _mode(args):
    return args.mode or "timing"


def _launch_opts(opts):
    """progress is a CLI nicety; functional mode has no use for it."""
    return {k: v for k, v in opts.items() if not (k == "progress" and opts.get("mode") != "timing")}


def _ensure_compiled(modes) -> None:
    """Compile the simulator core on first use, saying so: a newcomer must not think it hung."""
    from gpusim import jitcache, warmup
    todo = [m for m in modes if not jitcache.is_warm(m)]
    if not todo:
        return
    what = " and ".join(todo)
    msg = (f"compiling gpusim's {what}-mode core with numba: once per install, a few minutes "
           f"(cached in {jitcache.install()})")
    if report.err_console.is_terminal:
        with report.err_console.status(msg):
            secs = warmup.warmup(todo)
    else:
        print(f"gpusim: {msg}", file=sys.stderr, flush=True)
        secs = warmup.warmup(todo)
    print(f"gpusim: compiled in {secs:.0f} s", file=sys.stderr, flush=True)


def cmd_warmup(args):
    from gpusim import jitcache
    modes = [args.mode] if args.mode else ["timing", "functional"]
    if all(jitcache.is_warm(m) for m in modes):
        print(f"gpusim: already compiled ({', '.join(modes)}) in {jitcache.install()}")
        return 0
    _ensure_compiled(modes)
    return 0


def check_writable(path: str | Path, what: str) -> Path:
    """Refuse, before any work is done, an output path that cannot be written (a directory, a missing
    folder, no permission): finding out after a long run would throw the run away."""
    p = Path(path)
    if p.is_dir():
        raise GpusimError(f"{what} {path}: is a directory")
    if not p.parent.is_dir():
        raise GpusimError(f"{what} {path}: folder {p.parent} does not exist")
    try:
        if p.exists():
            with open(p, "r+b"):
                pass
        else:
            with open(p, "xb"):
                pass
            p.unlink()
    except OSError as e:
        raise GpusimError(f"{what} {path}: cannot write: {e.strerror}") from None
    return p


def _write_text(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as e:
        raise GpusimError(f"{path}: cannot write: {e.strerror}") from None


def cmd_run(args):
    trace = getattr(args, "trace", None)
    if trace:
        check_writable(trace, "--trace")
    # the HTML report shows the run's timeline and animation: record events for it too (timing mode)
    html_events = bool(getattr(args, "html", None)) and _mode(args) == "timing"
    results, ok, found = _run_target(args, events=bool(trace) or html_events)
    if trace:
        from gpusim.viz import trace as chrome_trace
        chrome_trace.write(results, trace, qualified_name)
        report.console.print(f"trace: {trace} (open it in ui.perfetto.dev)")
    return 0 if ok is not False and not found else 1


def cmd_animate(args):
    """Run a program recording events; write the animated playback of one launch."""
    check_writable(args.html, "--html")
    results, ok, found = _run_target(args, events=True)
    if args.launch >= len(results):
        raise GpusimError(f"--launch {args.launch}: the program made {len(results)} launch(es)")
    from gpusim.viz import animate
    animate.write(results[args.launch], args.html, qualified_name(results[args.launch].kernel))
    report.console.print(f"animation: {args.html}")
    return 0 if ok is not False and not found else 1


def _run_target(args, events=False):
    target = args.target
    if events and _mode(args) != "timing":
        raise GpusimError("recording events (--trace, animate) needs timing mode")
    if args.json:
        check_writable(args.json, "--json")
    if args.csv:
        check_writable(args.csv, "--csv")
        check_writable(Path(args.csv).with_suffix(".lines.csv"), "--csv")
    if getattr(args, "html", None):
        check_writable(args.html, "--html")
    spec = get_preset(args.gpu)
    budget = DEFAULT_BUDGET if args.max_instructions is None else args.max_instructions
    check = getattr(args, "check", None)
    parse_checks(check)                 # a misspelt check fails now, not after the run
    _ensure_compiled([_mode(args)])
    opts = dict(gpu=spec, mode=_mode(args), shared_mem=args.shared, max_instructions=budget,
                regs_per_thread=args.regs, check=check)
    if events:
        opts["events"] = True
    if getattr(args, "model", "ptx") == "sass" and _mode(args) == "timing":
        opts["model"] = "sass"
    if target.endswith((".ptx", ".cu")):
        results, ok = _run_file(args, opts)
    else:
        from programs.ptx_programs import PTX_PROGRAMS
        if target in PTX_PROGRAMS:
            results, ok = _run_ptx_program(target, opts, args.seed)
        else:
            results, ok = _run_program(args, opts)
    _show(results, args, ok)
    return results, ok, _show_sanitizer(results)


def _show_sanitizer(results) -> int:
    """The sanitizers' section (when checks ran); the number of distinct reports over all launches."""
    runs = [r.sanitizer for r in results if r.sanitizer is not None]
    if not runs:
        return 0
    found = 0
    report.console.print("[bold]sanitizers[/bold]")
    for i, s in enumerate(runs):
        if len(runs) > 1:
            report.console.print(f"launch {i}: {results[i].kernel[:60]}")
        for line in s.lines():
            report.console.print(line, markup=False, highlight=False)
        found += len(s.reports)
    return found


def _run_program(args, opts):
    mod = _program(args.target)
    size = args.size or (mod.SMALL_SIZE if args.small else mod.DEFAULT_SIZE)
    inp = mod.inputs(size, seed=args.seed)
    results = []

    def launcher(kernel, grid, block, *kargs):
        r = launch(kernel, grid, block, *kargs, **_launch_opts(opts))
        results.append(r)
        return r

    if _is_triton(mod):
        launcher = _triton_launcher(opts, results)

    with report.progress() as bar:
        opts["progress"] = bar
        out = mod.run(launcher, inp)
    ref = mod.reference(inp)
    ok = True
    for k, expect in ref.items():
        got = out[k]
        if not np.allclose(got, expect, rtol=mod.RTOL, atol=mod.ATOL, equal_nan=True):
            err = float(np.max(np.abs(got.astype(np.float64) - expect.astype(np.float64))))
            report.console.print(f"[red]MISMATCH[/red] output '{k}': max abs error {err:g}")
            ok = False
    if ok:
        tol = "bit-exact" if mod.RTOL == 0 and mod.ATOL == 0 else f"rtol {mod.RTOL:g}, atol {mod.ATOL:g}"
        report.console.print(f"[green]result matches the numpy reference[/green] ({tol})")
    return results, ok


def _triton_launcher(opts, results):
    """`launch(fn, grid, *args, **meta)` for a Triton program: gpusim.triton.jit_launch with the CLI's
    options (the compiled kernel sets its own shared memory, so --shared does not apply)."""
    from gpusim.triton import jit_launch
    if opts.get("shared_mem"):
        raise LaunchError("--shared does not apply to a Triton program: the compiled kernel sets its shared memory")
    keep = {k: v for k, v in _launch_opts(opts).items() if k != "shared_mem"}

    def launcher(fn, grid, *kargs, **meta):
        r = jit_launch(fn, grid, *kargs, **keep, **meta)
        results.append(r)
        return r
    return launcher


def _dims(text, what):
    if text is None:
        raise LaunchError(f"--{what} is required for a PTX kernel")
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise LaunchError(f"--{what} must be N or X,Y[,Z], got '{text}'") from None


def _parse_args(texts, seed):
    from programs.argspec import parse_args
    try:
        return parse_args(texts, seed)
    except ValueError as e:
        raise LaunchError(f"bad --arg: {e}") from None


def _run_file(args, opts):
    from gpusim.kernels import load_cuda, load_ptx
    if not Path(args.target).exists():
        raise LaunchError(f"{args.target}: no such file")
    mod = load_cuda(args.target) if args.target.endswith(".cu") else load_ptx(args.target)
    if args.kernel is None:
        names = list(mod)
        if not names:
            raise LaunchError(f"{args.target} has no kernel (.entry)")
        if len(names) != 1:
            raise LaunchError(f"{args.target} has kernels {', '.join(names)}: choose one with --kernel")
        args.kernel = names[0]
    k = mod[args.kernel]
    kargs = _parse_args(args.arg, args.seed)
    r = _launch_one(k, _dims(args.grid, "grid"), _dims(args.block, "block"), kargs, opts)
    for i, a in enumerate(kargs):
        if isinstance(a, np.ndarray):
            report.console.print(f"arg {i}: {a.dtype}[{a.size}] after the kernel: {np.array2string(a[:8])}"
                                 + (" ..." if a.size > 8 else ""))
    return [r], None


def _launch_one(k, grid, block, kargs, opts):
    """One launch with the progress bar that programs get."""
    with report.progress() as bar:
        return launch(k, grid, block, *kargs, **_launch_opts({**opts, "progress": bar}))


def _run_ptx_program(name, opts, seed):
    from gpusim.kernels import load_ptx
    from programs.ptx_programs import PTX_DIR, PTX_PROGRAMS
    spec = PTX_PROGRAMS[name]
    k = load_ptx(str(PTX_DIR / spec["file"]))[spec["kernel"]]
    kargs = _parse_args(spec["args"], seed)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in kargs]
    r = _launch_one(k, spec["grid"], spec["block"], kargs, opts)
    ok = True
    for idx, expect in spec["reference"](before).items():
        if not np.allclose(kargs[idx], expect, rtol=spec.get("rtol", 0), atol=spec.get("atol", 0)):
            report.console.print(f"[red]MISMATCH[/red] argument {idx}")
            ok = False
    if ok:
        report.console.print("[green]result matches the numpy reference[/green]")
    return [r], ok


def _show(results, args, ok):
    if not results:
        raise GpusimError("the program launched no kernel")
    if results[0].mode == "timing":
        report.console.print(report.timing_summary(results))
    else:
        report.console.print(report.counters_table(results, f"{len(results)} launch(es) on {results[0].gpu} "
                                                            f"(functional)"))
    report.console.print(report.opcode_table(results))
    if getattr(args, "lines", False):
        for t in report_lines.lines_tables(results[0]):
            report.console.print(t)
    if args.json:
        _write_text(Path(args.json), json.dumps([_export(r) for r in results], indent=1))
    if args.csv:
        try:
            _write_csv(Path(args.csv), results)
        except OSError as e:
            raise GpusimError(f"{args.csv}: cannot write: {e.strerror}") from None
    if getattr(args, "html", None):
        _write_html(Path(args.html), results, args)


def _write_html(path: Path, results, args):
    try:
        report.html(results, path, gpu=get_preset(args.gpu) if hasattr(args, "gpu") else None)
    except OSError as e:
        raise GpusimError(f"{path}: cannot write: {e.strerror}") from None
    report.console.print(f"wrote the HTML report to {path} ({path.stat().st_size / 1e6:.1f} MB)")


def _write_csv(path: Path, results):
    """Every metric to path (launch, kernel, metric, value) and the per-line counters, one table with a
    row per PTX line and per source line (column level: ptx or source), to path with suffix .lines.csv."""
    import csv
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["launch", "kernel", "metric", "value"])
        for i, r in enumerate(results):
            for k, v in _flat(r.metrics).items():
                w.writerow([i, r.kernel, k, v])
    lines = path.with_suffix(".lines.csv")
    with open(lines, "w", newline="") as f:
        w = csv.DictWriter(f, ["launch", "kernel", *report_lines.FLAT_FIELDS])
        w.writeheader()
        for i, r in enumerate(results):
            w.writerows({"launch": i, "kernel": r.kernel, **row} for row in report_lines.flat_line_rows(r))
    report.console.print(f"wrote the metrics to {path} and the per-line counters to {lines}")


def _flat(metrics):
    out = {}
    for k, v in metrics.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                out[f"{k}.{k2}"] = v2
        else:
            out[k] = v
    return out


def _export(r):
    return {"kernel": r.kernel, "grid": r.grid, "block": r.block, "gpu": r.gpu, "mode": r.mode,
            "cycles": r.cycles, "metrics": r.metrics, "lines": report_lines.per_line_counters(r),
            "source_lines": report_lines.per_source_counters(r)}
