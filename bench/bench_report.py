"""How long the HTML report takes beyond the run, and how large it is, for each example program.

    python bench/bench_report.py                     # every program at its default size, h100
    python bench/bench_report.py vecadd softmax --small --gpu tiny

For each program: the run's wall time (timing mode, all launches, recording events as `gpusim run --html`
does), the report's generation time (gpusim.html.write of all its launches: the per-line tables, advice,
charts, the CTA timeline, warp states and the animated playback, template) and the page's size. The
issue's figures: under 10 s of report time per program, under 5 MB for a full h100 run."""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpusim  # noqa: E402
from gpusim.html import write  # noqa: E402
from programs import all_programs  # noqa: E402


def _programs():
    progs = dict(all_programs())
    try:
        from programs.triton import all_programs as triton_programs
        progs.update(triton_programs())
    except ImportError:
        pass
    from programs.ptx_programs import PTX_PROGRAMS
    progs.update({name: _ptx_program(name, spec) for name, spec in PTX_PROGRAMS.items()})
    return progs


def _ptx_program(name: str, spec: dict):
    """A CUDA C program of programs/ptx_programs.py, shaped as a numba program module for bench()."""
    from gpusim.kernels import load_ptx
    from programs.argspec import parse_args
    from programs.ptx_programs import PTX_DIR

    def run(launch, inp):
        kernel = load_ptx(str(PTX_DIR / spec["file"]))[spec["kernel"]]
        launch(kernel, spec["grid"], spec["block"], *parse_args(spec["args"], 0))
    return type(name, (), {"SMALL_SIZE": 0, "DEFAULT_SIZE": 0, "inputs": staticmethod(lambda n, seed=0: None),
                           "run": staticmethod(run)})


def bench(name: str, mod, gpu: str, small: bool, out: Path) -> dict:
    size = mod.SMALL_SIZE if small else mod.DEFAULT_SIZE
    inp = mod.inputs(size, seed=0)
    results = []
    if getattr(mod, "TRITON", False):
        from gpusim.triton import jit_launch

        def launcher(fn, grid, *args, **meta):
            results.append(jit_launch(fn, grid, *args, gpu=gpu, mode="timing", events=True, **meta))
            return results[-1]
    else:
        def launcher(kernel, grid, block, *args):
            results.append(gpusim.launch(kernel, grid, block, *args, gpu=gpu, mode="timing", events=True))
            return results[-1]
    t0 = time.perf_counter()
    mod.run(launcher, inp)
    run_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    path = write(results, out / f"{name}.html")
    return {"program": name, "size": size, "launches": len(results), "run_s": run_s,
            "report_s": time.perf_counter() - t0, "mb": path.stat().st_size / 1e6}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="programs (default: all)")
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--small", action="store_true", help="the programs' small test sizes")
    ap.add_argument("--keep", help="write the pages to this folder (default: a temporary one)")
    args = ap.parse_args(argv)
    progs = _programs()
    names = args.programs or list(progs)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep or tmp)
        out.mkdir(parents=True, exist_ok=True)
        print(f"{'program':24s} {'size':>9s} {'launches':>8s} {'run s':>8s} {'report s':>9s} {'MB':>6s}", flush=True)
        rows = []
        for name in names:
            row = bench(name, progs[name], args.gpu, args.small, out)
            rows.append(row)
            size = f"{row['size']:,}" if row["size"] else "-"
            print(f"{name:24s} {size:>9s} {row['launches']:>8d} {row['run_s']:>8.1f} {row['report_s']:>9.2f} "
                  f"{row['mb']:>6.2f}", flush=True)
        worst = max(rows, key=lambda r: r["report_s"])
        big = max(rows, key=lambda r: r["mb"])
        print(f"slowest report: {worst['program']} {worst['report_s']:.2f} s; largest page: {big['program']} "
              f"{big['mb']:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
