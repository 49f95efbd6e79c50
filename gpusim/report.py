"""Rendering of launch results with rich (the edge: no simulation logic here)."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

console = Console()


def fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def counters_table(results: list, title: str = "counters") -> Table:
    t = Table(title=title, title_justify="left")
    t.add_column("metric")
    for i, r in enumerate(results):
        t.add_column(f"#{i} {short_name(r.kernel)}", justify="right")
    keys = [k for k in results[0].metrics if k != "opcodes" and not k.startswith("_")]
    for k in keys:
        t.add_row(k, *[fmt(r.metrics.get(k, "")) for r in results])
    return t


def opcode_table(results: list, top: int = 12) -> Table:
    total: dict = {}
    for r in results:
        for op, n in r.metrics.get("opcodes", {}).items():
            total[op] = total.get(op, 0) + n
    t = Table(title="warp instructions by opcode", title_justify="left")
    t.add_column("opcode")
    t.add_column("count", justify="right")
    t.add_column("share", justify="right")
    s = sum(total.values()) or 1
    for op, n in sorted(total.items(), key=lambda x: -x[1])[:top]:
        t.add_row(op, fmt(n), f"{100 * n / s:.1f}%")
    return t


def short_name(name: str) -> str:
    """numba's mangled kernel names (_ZN<len><name>...), shortened to the Python function name."""
    if not name.startswith("_ZN"):
        return name[:40]
    pos, last = 3, name
    while pos < len(name) and name[pos].isdigit():
        end = pos
        while name[end].isdigit():
            end += 1
        n = int(name[pos:end])
        last = name[end:end + n]
        pos = end + n
    return last


def lines_table(r, top: int = 15) -> Table:
    """Hottest PTX lines by warp instructions executed, with their source line."""
    d = r.decoded
    warp = r.per_pc.get("warp")
    t = Table(title="hottest lines", title_justify="left")
    for c in ("PTX line", "source", "instruction", "warp inst", "thread inst"):
        t.add_column(c, justify="right" if "inst" in c and c != "instruction" else "left")
    extra = r.per_pc.get("extra_columns", {})
    for name in extra:
        t.add_column(name, justify="right")
    order = sorted(range(len(warp)), key=lambda pc: -warp[pc])[:top]
    for pc in order:
        if warp[pc] == 0:
            break
        src = d.src_lines[pc]
        row = [str(d.ptx_lines[pc]), f"{Path(src[0]).name}:{src[1]}" if src else "", d.texts[pc][:50],
               fmt(int(warp[pc])), fmt(int(r.per_pc['thread'][pc]))]
        row += [fmt(v[pc]) for v in extra.values()]
        t.add_row(*row)
    return t
