"""Where a case's stalls fall, per PTX line: the H100's per-SASS stall sampling against gpusim's per-line stalls.

    python validation/stall_lines.py CASE [--top 15] [--model sass] [--table PATH] [--inst | --reason R]

The H100 side is a per-SASS-instruction sampling table (`<case>.sass_stalls.csv` of a collection under
data/h100/ncu/sass_stalls*/: samples per stall reason per SASS instruction, no line information). Its
instructions are matched to PTX lines through gpusim's SASS map: the PTX gpusim launches for the case is
compiled again with each line tagged (gpusim/sassmap.py), and the two SASS listings are aligned by opcode
(difflib; they are the same compile apart from line info, so nearly all instructions match; the count that did
not is printed). gpusim runs the case (timing mode) and charges its stall cycles per PTX line. Both sides are
shown as shares of their totals, per PTX line, largest first: which line the time goes to and why, where the
two differ. Diagnosis only; nothing is fitted on it.

`--inst` compares instead the SASS instructions executed per PTX line: the table's per-SASS `inst_executed`
against gpusim's executions of the line times the SASS map's weight (what the SASS model issues), largest gaps
first. It checks the map (copies, unrolling, hoisting) where the H100's whole-kernel count disagrees.

`--reason R` reads the H100's table alone (no gpusim run, no ptxas): the share of all its stall samples that are R,
per SASS opcode, largest first, e.g. which instructions the H100 samples dispatch_stall on.
"""
from __future__ import annotations

import argparse
import csv
import difflib
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

NOT_REASONS = {"offset", "address", "sass", "inst_executed", "samples", "samples_not_issued"}


def find_table(case: str) -> Path | None:
    found = sorted((HERE / "data" / "h100" / "ncu").glob(f"sass_stalls*/**/{case}.sass_stalls.csv"))
    found = [p for p in found if p.parent.name.startswith("sass_stalls") or p.parent.name == "run_auto"]
    return found[-1] if found else None


def hw_rows(path: Path) -> list[dict]:
    """(opcode, {reason: samples}) per SASS instruction, NOPs and never-executed padding dropped."""
    from gpusim.sasslisting import opcode
    out = []
    with open(path) as fh:
        for r in csv.DictReader(fh):
            reasons = {k.replace("no_instructions", "no_instruction"): int(v or 0) for k, v in r.items()
                       if k not in NOT_REASONS and not k.endswith("_not_issued") and k != "selected"}
            op = opcode(r["sass"].strip())
            if op == "NOP":
                continue
            out.append({"op": op, "sass": r["sass"], "reasons": reasons, "inst": int(r.get("inst_executed") or 0)})
    return out


def listing_lines(ptx: str) -> list[tuple[str, int | None]]:
    """(opcode, PTX line) per SASS instruction of the tagged compile, in listing order."""
    from gpusim import ptxas, sassmap
    from gpusim.sasslisting import fill_lines, opcode, parse_blocks
    exe, dis = ptxas.find(), sassmap.find_nvdisasm()
    if exe is None or dis is None:
        raise SystemExit("stall_lines needs ptxas and nvdisasm (pip install -e '.[sass]')")
    listing = sassmap.disassemble(exe, dis, sassmap.tag_lines(ptx), ptxas.arch_for("90", ptx))
    out = []
    for blk in parse_blocks(listing)[0]:
        for (ins, _, _), ln in zip(blk, fill_lines([x[1] for x in blk])):
            if opcode(ins) != "NOP":
                out.append((opcode(ins), ln))
    return out


def hw_per_line(rows: list[dict], lines: list) -> tuple[dict, dict, int]:
    """{PTX line: {reason: samples}}, {PTX line: SASS instructions executed} and the number of H100
    instructions left unmatched."""
    sm = difflib.SequenceMatcher(a=[r["op"] for r in rows], b=[op for op, _ in lines], autojunk=False)
    per = defaultdict(lambda: defaultdict(int))
    inst: dict = defaultdict(int)
    matched = set()
    for a, b, n in sm.get_matching_blocks():
        for k in range(n):
            ln = lines[b + k][1]
            matched.add(a + k)
            for reason, v in rows[a + k]["reasons"].items():
                per[ln][reason] += v
            inst[ln] += rows[a + k]["inst"]
    return per, inst, len(rows) - len(matched)


def sim_per_line(case_name: str, model: str) -> tuple[dict, dict, dict, str]:
    """gpusim's ({PTX line: {reason: cycles}}, {PTX line: instructions issued}, {PTX line: text}, the launched
    PTX) for the case's last launch. Instructions: the line's executions x its SASS map weight under the SASS
    model, its executions (PTX instructions) under the PTX model."""
    import gpusim
    from gpusim.launch import _resolve
    from gpusim.presets import get_preset
    from gpusim.report_lines import per_line_counters
    from validation.cases import all_cases
    case = all_cases()[case_name]
    res, texts = [], []

    def launch(kernel, grid, block, *args, **opts):
        texts.append(_resolve(kernel, args, None, True).module.text)
        r = gpusim.launch(kernel, grid, block, *args, gpu=get_preset("h100"), mode="timing", fma=True, model=model,
                          **opts)
        res.append(r)
        return r

    case.run(launch, case.inputs(0))
    per, text, inst = defaultdict(lambda: defaultdict(float)), {}, defaultdict(float)
    r = res[-1]
    w = np.ones(len(r.decoded.ptx_lines))
    if model == "sass":
        from gpusim import ptxas, sassmap
        from gpusim.isa import opcodes as oc
        m = sassmap.weights(texts[-1], ptxas.arch_for("90", texts[-1]))
        w = sassmap.pc_weights(m, r.decoded.ins[:, oc.F_LINE])[:, 0]
    for pc, ln in enumerate(r.decoded.ptx_lines):
        inst[ln] += float(r.per_pc["warp"][pc] * w[pc])
    for row in per_line_counters(res[-1]):
        ln = row["ptx_line"]
        text[ln] = row["text"]
        for reason, v in row.get("stalls", {}).items():
            if reason != "selected":
                per[ln][reason] += v
    return per, inst, text, texts[-1]


def reason_by_opcode(rows: list[dict], reason: str) -> tuple[float, list[tuple[str, float]]]:
    """The share (%) of all stall samples of a per-SASS table (`hw_rows`) that are `reason`, and that share per
    SASS opcode, largest first."""
    total = sum(sum(r["reasons"].values()) for r in rows)
    per: dict = defaultdict(int)
    for r in rows:
        per[r["op"]] += r["reasons"].get(reason, 0)
    if not total:
        return 0.0, []
    ops = sorted(((op, 100 * n / total) for op, n in per.items() if n), key=lambda t: -t[1])
    return sum(v for _, v in ops), ops


def _shares(per: dict) -> tuple[dict, float]:
    tot = sum(sum(d.values()) for d in per.values()) or 1.0
    return {ln: {k: 100.0 * v / tot for k, v in d.items() if v} for ln, d in per.items()}, tot


def _fmt(d: dict, n: int = 3) -> str:
    return " ".join(f"{k}:{v:.1f}" for k, v in sorted(d.items(), key=lambda x: -x[1])[:n] if v >= 0.05)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("case")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--model", default="sass", choices=["sass", "ptx"])
    ap.add_argument("--table", help="the H100 sampling table (default: the newest collection that has the case)")
    ap.add_argument("--inst", action="store_true", help="compare SASS instructions executed per PTX line instead "
                                                        "(the H100's per-SASS inst_executed; gpusim's PTX "
                                                        "executions x the SASS map's weights)")
    ap.add_argument("--reason", help="only the H100's table: the share of its samples that are this reason, per "
                                     "SASS opcode")
    args = ap.parse_args(argv)
    table = Path(args.table) if args.table else find_table(args.case)
    if table is None:
        print(f"no per-SASS sampling table for {args.case!r} (collections: data/h100/ncu/sass_stalls*/)",
              file=sys.stderr)
        return 2
    rows = hw_rows(table)
    if args.reason:
        share, ops = reason_by_opcode(rows, args.reason)
        print(f"{args.case}: H100 table {table.relative_to(HERE.parent)}; {args.reason}: {share:.1f}% of all stall "
              "samples; per SASS opcode:")
        for op, v in ops[:args.top]:
            print(f"  {op:10s} {v:5.1f}%")
        return 0
    sim, sim_inst, text, ptx = sim_per_line(args.case, args.model)  # the PTX gpusim ran: its lines are charged
    hw, hw_inst, unmatched = hw_per_line(rows, listing_lines(ptx))
    ptx_lines = ptx.splitlines()
    if args.inst:
        return _inst_table(args, table, rows, unmatched, hw_inst, sim_inst, text, ptx_lines)
    hw_s, _ = _shares(hw)
    sim_s, _ = _shares(sim)
    print(f"{args.case}: H100 table {table.relative_to(HERE.parent)}; {len(rows)} SASS instructions, "
          f"{unmatched} not matched to a line; shares of all stall samples / cycles, per PTX line")
    keys = sorted(set(hw_s) | set(sim_s), key=lambda ln: -(sum(hw_s.get(ln, {}).values())
                                                            + sum(sim_s.get(ln, {}).values())))
    print(f"{'line':>5}  {'H100 %':>6} {'gpusim %':>8}  text | H100 top reasons | gpusim top reasons")
    for ln in keys[:args.top]:
        h, s = hw_s.get(ln, {}), sim_s.get(ln, {})
        src = text.get(ln) or (ptx_lines[ln - 1].strip() if ln and 0 < ln <= len(ptx_lines) else "(no line)")
        print(f"{ln if ln else '-':>5}  {sum(h.values()):6.1f} {sum(s.values()):8.1f}  {src[:48]:48s} | "
              f"{_fmt(h):38s} | {_fmt(s)}")
    return 0


def _inst_table(args, table, rows, unmatched, h, s, text, ptx_lines) -> int:
    """Per PTX line, SASS instructions executed on the H100 (h) and in gpusim's estimate (s), largest gaps
    first."""
    h_tot, s_tot = sum(h.values()), sum(s.values())
    print(f"{args.case}: H100 table {table.relative_to(HERE.parent)}; {len(rows)} SASS instructions, "
          f"{unmatched} not matched to a line; SASS instructions executed: H100 {h_tot:,.0f}, gpusim {s_tot:,.0f} "
          f"({100 * (s_tot / h_tot - 1) if h_tot else 0:+.1f}%)")
    keys = sorted(set(h) | set(s), key=lambda ln: -abs(h.get(ln, 0) - s.get(ln, 0)))
    print(f"{'line':>5}  {'H100':>10} {'gpusim':>10}  text")
    for ln in keys[:args.top]:
        src = text.get(ln) or (ptx_lines[ln - 1].strip() if ln and 0 < ln <= len(ptx_lines) else "(no line)")
        print(f"{ln if ln else '-':>5}  {h.get(ln, 0):10,.0f} {s.get(ln, 0):10,.0f}  {src[:60]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

