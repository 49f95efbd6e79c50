"""`gpusim compare`: run two things and show them side by side (gpusim/html/compare.py renders).

    gpusim compare reduce_shared --gpu h100 --vs-gpu a100      # one program, two presets
    gpusim compare reduce_shared --gpu my.toml --vs-gpu h100     # a TOML config against a preset
    gpusim compare transpose_naive transpose_tiled             # two programs, one preset
    gpusim compare reduce_shared --vs-h100                     # gpusim against the recorded H100 (ncu)

A side is one launch of a program (--launch picks which, default the first) run in timing mode. With
--vs-h100 the program runs as `gpusim validate` runs it (its default size, fused multiply-adds) and B
is what Nsight Compute recorded on an H100 SXM5 (validation/data/h100/prog_NAME.json)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from gpusim import commands, report
from gpusim.errors import GpusimError
from gpusim.presets import get_preset


def _side(target: str, gpu: str, args):
    from gpusim.html import compare
    ns = argparse.Namespace(target=target, gpu=gpu, mode="timing", size=args.size, small=args.small, seed=args.seed)
    opts = dict(gpu=get_preset(gpu), mode="timing", shared_mem=0, max_instructions=commands.DEFAULT_BUDGET,
                regs_per_thread=None, check=None)
    from programs.ptx_programs import PTX_PROGRAMS
    if target in PTX_PROGRAMS:
        results, _ = commands._run_ptx_program(target, opts, args.seed)
    else:
        results, _ = commands._run_program(ns, opts)
    if not results:
        raise GpusimError(f"{target} launched no kernel")
    if args.launch >= len(results):
        raise GpusimError(f"--launch {args.launch}: {target} made {len(results)} launch(es)")
    r = results[args.launch]
    label = f"{target} on {r.gpu}" + (f" (launch {args.launch})" if len(results) > 1 else "")
    return compare.Side(label, dict(r.metrics), r)


def recorded_h100(program: str) -> tuple[dict, dict]:
    """The ncu metrics recorded on the H100 for an example program ({name: value}), and the record."""
    from validation.replay import DATA
    f = DATA / f"prog_{program}.json"
    if not f.exists():
        have = sorted(p.stem[5:] for p in DATA.glob("prog_*.json"))
        raise GpusimError(f"no H100 recording of '{program}' (recorded programs: {', '.join(have)})")
    rec = json.loads(f.read_text())
    return {k: v.get("value") for k, v in rec["ncu"]["metrics"].items()}, rec


def _vs_h100(args):
    from gpusim.html import compare
    from validation.cases import all_cases
    from validation.replay import simulate
    hw, rec = recorded_h100(args.a)
    spec = get_preset(args.gpu)
    with report.progress():
        sim, _, secs = simulate(all_cases()[f"prog_{args.a}"], spec)
    note = f"{rec['description']}; grid {rec['grid']} block {rec['block']}"
    a = compare.Side(f"gpusim {args.a} on {spec.name}", sim, notes=[note, f"simulated in {secs:.1f} s"])
    b = compare.Side(f"H100 (ncu) {args.a}", hw, notes=[note, f"Nsight Compute {rec['provenance']['ncu_version']}",
                                                        "ncu counts SASS instructions, gpusim PTX instructions"])
    return a, b


def cmd_compare(args):
    from gpusim.html import compare
    if args.html:
        commands.check_writable(args.html, "--html")
    commands._ensure_compiled(["timing"])
    if args.vs_h100:
        if args.b or args.vs_gpu:
            raise GpusimError("--vs-h100 compares one program with its H100 recording: give no B and no --vs-gpu")
        a, b = _vs_h100(args)
    else:
        if not args.b and not args.vs_gpu:
            raise GpusimError("compare what with what? give a second program B, --vs-gpu PRESET|FILE.toml, "
                              "or --vs-h100")
        a = _side(args.a, args.gpu, args)
        b = _side(args.b or args.a, args.vs_gpu or args.gpu, args)
    rs = compare.rows(a, b, every=args.all)
    report.console.print(compare.table(a, b, rs))
    if args.html:
        path = Path(args.html)
        path.write_text(compare.render(a, b, rs), encoding="utf-8")
        report.console.print(f"wrote the comparison to {path}")
    return 0


def add_parser(sub) -> None:
    c = sub.add_parser("compare", help="two runs side by side: two presets or TOML configs, two programs, or "
                                       "gpusim against the recorded H100")
    c.add_argument("a", metavar="A", help="program name (see `gpusim list`)")
    c.add_argument("b", metavar="B", nargs="?", help="a second program (default: A again)")
    c.add_argument("--gpu", default="h100", help="A's preset or .toml file (default h100)")
    c.add_argument("--vs-gpu", help="B's preset or .toml file (default: --gpu)")
    c.add_argument("--vs-h100", action="store_true", help="B is Nsight Compute's recording of A on an H100")
    c.add_argument("--size", type=int, default=None, help="problem size of both programs")
    c.add_argument("--small", action="store_true", help="the programs' small test size")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--launch", type=int, default=0, help="which launch of each program (default 0, the first)")
    c.add_argument("--all", action="store_true", help="every metric both sides have, not the key ones")
    c.add_argument("--html", help="also write the comparison as an HTML page")
