"""The `gpusim` command line. User mistakes print one clear line and exit 2; no tracebacks."""
from __future__ import annotations

import argparse
import sys

from gpusim.errors import GpusimError

EXIT_USER = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line (`gpusim: error: ...`, exit 2) rather than usage + error."""

    def error(self, message):
        self.exit(EXIT_USER, f"gpusim: error: {self.prog}: {_printable(message)} (see `{self.prog} --help`)\n")


def _whole(text: str, least: int) -> int:
    try:
        n = int(text)
    except ValueError:
        n = least - 1
    if n < least:
        kind = "positive" if least == 1 else "non-negative"
        raise argparse.ArgumentTypeError(f"expected a {kind} whole number, got {text!r}")
    return n


def _positive(text: str) -> int:
    return _whole(text, 1)


def _natural(text: str) -> int:
    return _whole(text, 0)


def _printable(msg: str) -> str:
    """msg with what the terminal cannot show (undecodable bytes of a file name) escaped."""
    return msg.encode("utf-8", "backslashreplace").decode("utf-8")


def _run_arguments(r) -> None:
    """Arguments of `run` (and of `animate`, which runs a program the same way)."""
    r.add_argument("target", help="program name (see `gpusim list`), FILE.ptx or FILE.cu")
    r.add_argument("--gpu", default="h100", help="preset name or a .toml override file (default h100)")
    r.add_argument("--mode", default=None, choices=["functional", "timing"],
                   help="simulation mode (default: timing)")
    r.add_argument("--size", type=_positive, default=None, help="problem size (program-specific)")
    r.add_argument("--small", action="store_true", help="use the program's small test size")
    r.add_argument("--seed", type=_natural, default=0)
    r.add_argument("--kernel", help="kernel name in a PTX/CUDA file")
    r.add_argument("--grid", help="grid for a PTX kernel: N or X,Y[,Z]")
    r.add_argument("--block", help="block for a PTX kernel: N or X,Y[,Z]")
    r.add_argument("--arg", action="append", default=[],
                   help="PTX kernel argument, repeat in order: f32[1024]=rand, i32[64]=arange, "
                        "f32[8]=fill:2.5, f32=2.5, i32=1024 (arrays are passed as pointers)")
    r.add_argument("--shared", type=_natural, default=0, help="dynamic shared memory bytes per block")
    r.add_argument("--regs", type=_positive, default=None, metavar="N",
                   help="registers per thread, overriding the estimate (timing mode: sets occupancy)")
    r.add_argument("--max-instructions", type=_positive, default=None,
                   help="watchdog budget in warp instructions (default gpusim.launch.DEFAULT_BUDGET, 200 M): "
                        "a kernel that executes more is stopped with an error naming the line it was at")
    r.add_argument("--check", metavar="TOOLS",
                   help="sanitizers, as compute-sanitizer's: racecheck (shared-memory hazards), synccheck "
                        "(barrier misuse), memcheck (always on), all; several joined by commas. Reports follow the "
                        "results; the exit status is 1 when any is found")
    r.add_argument("--model", choices=["ptx", "sass"], default="ptx",
                   help="timing model: ptx (default: gpusim's PTX-only model, needs nothing) or sass (what ptxas makes "
                        "of the PTX: registers, and per PTX line the SASS instructions and pipes it issues as; needs "
                        "ptxas and nvdisasm: pip install gpusim[sass] or gpusim[triton])")
    r.add_argument("--lines", action="store_true", help="show the hottest PTX/source lines")
    r.add_argument("--json", help="write every counter to this JSON file, with per-PTX-line and per-source-line "
                                  "counters under 'lines' and 'source_lines' of each launch")
    r.add_argument("--csv", help="write every counter to this CSV file (launch,kernel,metric,value); the per-line "
                                 "counters go to FILE with the suffix .lines.csv (one row per PTX line and per "
                                 "source line, column 'level')")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpusim", description="A cycle-approximate GPU simulator for PTX kernels.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    sub.add_parser("list", help="list example programs and GPU presets")
    r = sub.add_parser("run", help="run an example program, a .ptx or a .cu file")
    _run_arguments(r)
    r.add_argument("--html", help="write the HTML report (summary, advice, charts, source view, timeline, animation) "
                                  "to this file: one self-contained page that opens offline")
    r.add_argument("--trace", metavar="FILE.json",
                   help="record events and write a Chrome trace-event JSON file (open it in ui.perfetto.dev): "
                        "CTAs per SM, warp issue/stall per sub-partition, L2/DRAM bandwidth; one file per launch")
    a = sub.add_parser("animate", help="run a program, recording events, and write an animated HTML playback")
    _run_arguments(a)
    a.add_argument("--html", required=True, metavar="FILE.html", help="the page to write (self-contained)")
    a.add_argument("--launch", type=_natural, default=0, metavar="N", help="which launch to show (default 0)")
    x = sub.add_parser("ptx", help="print the PTX of an example program")
    x.add_argument("program")
    v = sub.add_parser("validate", help="replay the recorded H100 cases and compare (no GPU needed)")
    v.add_argument("--gpu", default="h100")
    v.add_argument("--case", action="append", help="only this case (repeatable); no report is written")
    v.add_argument("--out", default="validation/REPORT.md", help="report path (a .png and sim_results.json beside)")
    v.add_argument("--model", choices=["ptx", "sass", "both"], default="both",
                   help="ptx: gpusim's PTX-only model; sass: what ptxas makes of the PTX (registers, SASS instructions "
                        "and pipes per PTX line; needs ptxas and nvdisasm: the sass or triton extra); both (default): "
                        "side by side, the PTX model alone where the tools are missing")
    c = sub.add_parser("calibrate", help="fit preset latencies from the recorded microbenchmarks")
    c.add_argument("--gpu", default="h100")
    c.add_argument("--write", help="write the fitted values as JSON to this file")
    w = sub.add_parser("warmup", help="compile the simulator core now (once per install; `gpusim run` does it "
                                      "on first use)")
    w.add_argument("--mode", choices=["functional", "timing"], help="only this mode (default: both)")
    py = sub.add_parser("python", help="run an unchanged numba.cuda script; its kernel launches run on gpusim")
    py.add_argument("--gpu", default=None, help="preset name or a .toml override file (default h100)")
    py.add_argument("--mode", default=None, choices=["functional", "timing"], help="default: timing")
    py.add_argument("--quiet", action="store_true", help="no summary of the launches at the end")
    py.add_argument("script", help="the Python script")
    py.add_argument("script_args", nargs=argparse.REMAINDER, help="its arguments")
    sub.add_parser("dropin-path", help="print the folder to put on PYTHONPATH, with GPUSIM_DROPIN=1, so that "
                   "any Python process runs its numba.cuda launches on gpusim")
    from gpusim.compare_cmd import add_parser as add_compare
    add_compare(sub)
    pr = sub.add_parser("presets", help="show GPU presets")
    pr.add_argument("name", nargs="?")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        from gpusim import commands, compare_cmd, dropin_cmd, validate_cmd
        where = {"compare": compare_cmd, "validate": validate_cmd, "calibrate": validate_cmd, "python": dropin_cmd,
                 "dropin-path": dropin_cmd}.get(args.cmd, commands)
        return getattr(where, f"cmd_{args.cmd.replace('-', '_')}")(args) or 0
    except GpusimError as e:
        print(_printable(f"gpusim: error: {e}"), file=sys.stderr)
        return EXIT_USER
    except BrokenPipeError:         # `gpusim list | head`: the reader left; nothing to say
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("gpusim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
