"""Per-line counters of a launch: per PTX line and, through .loc, per source line; and the --lines tables.

per_line_counters and per_source_counters are pure functions of a LaunchResult: the --lines tables, the
JSON/CSV export and the tests all read them, so a table and an export never disagree."""
from __future__ import annotations

import linecache
import re
from pathlib import Path

from rich.table import Table
from rich.text import Text

from gpusim.sm.stalls import STALLS
from gpusim.textfmt import fmt, short_name

COUNTERS = ("warp", "thread", "sectors", "requests", "wavefronts", "bank_conflicts")
KERNEL_END = "exit (end of kernel)"     # the decoder's synthetic last instruction (gpusim/isa/decode.py)
DRAIN_TEXT = "end of kernel: drain"     # how that row shows when warps only waited there for their stores
FLAT_FIELDS = ["level", "pc", "ptx_line", "file", "line", "text", *COUNTERS, "cycles",
               *(f"stall_{s}" for s in STALLS)]
_STATS = ("warp inst", "SIMT", "stall cycles", "top stalls", "sect/req", "shared wf", "conflicts")
_LEFT = {"PTX line", "source", "instruction", "code", "PTX lines", "top stalls"}
_MAX_WIDTH = {"source": 22, "instruction": 30, "code": 24, "PTX lines": 14}


# ------------------------------------------------------------------ data
def per_line_counters(r) -> list[dict]:
    """One dict per PTX instruction (pc) that executed or was charged cycles, in pc order.

    Keys: pc, ptx_line (None for the kernel's synthetic end), file and line of its .loc (None without
    one), text, the per-pc counters the launch's mode records (COUNTERS: warp, thread instructions;
    in timing mode also global/local sectors and requests, shared wavefronts and bank conflicts) and,
    in timing mode, cycles (stalls + issues attributed to the pc) and stalls ({reason: cycles}, the
    non-zero ones; 'selected' counts the issue cycles)."""
    rows = [_pc_row(r, pc) for pc in range(r.decoded.n)]
    return [row for row in rows if row["warp"] or row.get("cycles")]


def per_source_counters(r) -> list[dict]:
    """per_line_counters summed over the PTX lines of each .loc source line, in file and line order.

    Keys: file, line, text (the source line when the file is readable, else ''), ptx_lines (the PTX
    line numbers that map to it) and the summed counters, cycles and stalls. PTX lines without a .loc
    (returns, the kernel's end, hand-written PTX) form one last entry with file and line None, so the
    sums over source lines equal those over PTX lines."""
    return _by_source(per_line_counters(r))


def flat_line_rows(r) -> list[dict]:
    """The PTX-line rows, then the source-line rows, flattened to FLAT_FIELDS (one CSV table)."""
    out = []
    for level, rows in (("ptx", per_line_counters(r)), ("source", per_source_counters(r))):
        for row in rows:
            flat = {k: v for k, v in row.items() if k in FLAT_FIELDS}
            flat["level"] = level
            if level == "source":
                flat["ptx_line"] = " ".join(str(n) for n in row["ptx_lines"])
            if "stalls" in row:
                flat.update({f"stall_{s}": row["stalls"].get(s, 0) for s in STALLS})
            out.append(flat)
    return out


def _pc_row(r, pc: int) -> dict:
    d = r.decoded
    file, line = d.src_lines[pc] or (None, None)
    row = {"pc": pc, "ptx_line": d.ptx_lines[pc], "file": file, "line": line, "text": " ".join(d.texts[pc].split())}
    row.update({k: int(r.per_pc[k][pc]) for k in COUNTERS if k in r.per_pc})
    if "stall" in r.per_pc:
        s = r.per_pc["stall"][pc]
        row["cycles"] = int(s.sum())
        row["stalls"] = {name: int(s[i]) for i, name in enumerate(STALLS) if s[i]}
    if row["text"] == KERNEL_END and not row["warp"]:
        row["ptx_line"], row["text"] = None, DRAIN_TEXT
    return row


def _by_source(rows: list[dict]) -> list[dict]:
    groups: dict = {}
    for row in rows:
        key = (row["file"], row["line"])
        if key not in groups:
            groups[key] = {"file": key[0], "line": key[1], "text": _source_text(*key), "ptx_lines": []}
        _add(groups[key], row)
    return sorted(groups.values(), key=lambda g: (g["file"] is None, g["file"] or "", g["line"] or 0))


def _add(group: dict, row: dict):
    for k in (*COUNTERS, "cycles"):
        if k in row:
            group[k] = group.get(k, 0) + row[k]
    if "stalls" in row:
        stalls = group.setdefault("stalls", {})
        for k, v in row["stalls"].items():
            stalls[k] = stalls.get(k, 0) + v
    if row["ptx_line"] is not None:
        group["ptx_lines"].append(row["ptx_line"])


def _source_text(file, line) -> str:
    return linecache.getline(file, line).strip() if file else ""


# ------------------------------------------------------------------ tables
def lines_tables(r, top: int = 15) -> list[Table]:
    """The --lines output: the hottest source lines (when the PTX carries .loc), then the hottest PTX
    lines: the top lines by cycles attributed (stalls + issues; by warp instructions in functional
    mode) and, below them, every other line that accesses memory, with its sectors/request or shared
    wavefronts (a coalescing or bank-conflict problem shows even where the line stalls little)."""
    rows = per_line_counters(r)
    by = f"top {top} by warp instructions"
    if "stall" in r.per_pc:
        by = f"top {top} by cycles: stalls + issues; then the other memory accesses"
    name = short_name(r.kernel)
    tables = []
    sources = _by_source(rows)
    if any(s["file"] for s in sources):
        cells = [{"source": _where(s), "code": s["text"], "PTX lines": line_ranges(s["ptx_lines"]),
                  **_stat_cells(s)} for s in _hottest(sources, top)]
        tables.append(_table(f"hottest source lines of {name} ({by})", ("source", "code", "PTX lines"), cells))
    cells = [{"PTX line": str(row["ptx_line"] or ""), "source": _where(row) if row["file"] else "",
              "instruction": _short_text(row["text"]), **_stat_cells(row)} for row in _hottest(rows, top)]
    tables.append(_table(f"hottest PTX lines of {name} ({by})", ("PTX line", "source", "instruction"), cells))
    return tables


def _hottest(rows: list[dict], top: int) -> list[dict]:
    ranked = sorted(rows, key=lambda row: (-row.get("cycles", 0), -row["warp"]))
    return ranked[:top] + [row for row in ranked[top:] if row.get("requests") or row.get("wavefronts")]


def _stat_cells(row: dict) -> dict:
    """The counter columns of one PTX or source line; a cell is '' where the line has nothing to show."""
    warp = row["warp"]
    cells = {"warp inst": fmt(warp) if warp else "",
             "SIMT": f"{100 * row['thread'] / (32 * warp):.0f}%" if warp else ""}
    if "stalls" in row:
        stalls = {k: v for k, v in row["stalls"].items() if k != "selected"}
        n = sum(stalls.values())
        top2 = sorted(stalls.items(), key=lambda kv: -kv[1])[:2]
        cells["stall cycles"] = fmt(n) if n else ""
        cells["top stalls"] = "\n".join(f"{k} {100 * v / n:.0f}%" for k, v in top2 if 200 * v >= n)
    if row.get("requests") and row.get("sectors"):       # atomics count requests but no L1 sectors
        cells["sect/req"] = f"{row['sectors'] / row['requests']:.1f}"
    if row.get("wavefronts"):
        cells["shared wf"] = fmt(row["wavefronts"])
        cells["conflicts"] = fmt(row["bank_conflicts"])
    return cells


def _table(title: str, first: tuple, cells: list[dict]) -> Table:
    """A table of the first columns and those counter columns that have a value on some row. Cells are
    plain text (PTX and Python have brackets that rich would read as markup)."""
    cols = [c for c in (*first, *_STATS) if c in first or any(row.get(c) for row in cells)]
    t = Table(title=title, title_justify="left")
    for c in cols:
        t.add_column(c, justify="left" if c in _LEFT else "right", no_wrap=True,
                     overflow="ellipsis", max_width=_MAX_WIDTH.get(c))
    for row in cells:
        t.add_row(*[Text(row.get(c, "")) for c in cols])
    return t


def _where(row: dict) -> str:
    return f"{Path(row['file']).name}:{row['line']}" if row["file"] else "(no source line)"


def line_ranges(nums: list[int]) -> str:
    """Sorted line numbers as compact ranges: [48, 49, 50, 67] -> '48-50, 67'."""
    out: list[list[int]] = []
    for n in sorted(set(nums)):
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def _short_text(text: str) -> str:
    """An instruction with long (mangled) symbol names cut down."""
    return re.sub(r"(_ZN\w{12})\w+", r"\1...", text)[:60]
