"""The source view's rows: every PTX instruction of a launch and, where the PTX carries .loc, every
source line, with its counters, its stall cycles by reason and its hot rank.

A pure function of a LaunchResult built on report_lines.per_line_counters, so the page, the advice
and the tests read the same numbers. A line's heat is its cycles (stall + issue cycles attributed to
it) in timing mode, its warp instructions in functional mode; the HOT hottest lines get a rank
(1 = hottest), which the page writes as `data-hot-rank`."""
from __future__ import annotations

import re

from gpusim.report_lines import per_line_counters, per_source_counters
from gpusim.sm.stalls import STALLS

HOT = 5                     # lines ranked (and marked) as hot
_WIDTH = re.compile(r"\.(?:[subf]|b)(8|16|32|64|128)\b")
_VEC = re.compile(r"\.v(2|4|8)\b")


def heat(row: dict) -> int:
    """What ranks a line: cycles attributed to it (timing mode), else its warp instructions."""
    return row.get("cycles", row["warp"])


def access_bytes(text: str) -> int:
    """Bytes one thread moves with a load/store instruction: `ld.global.v4.f32` -> 16, `st.global.u8` -> 1."""
    widths = [int(w) for w in _WIDTH.findall(text.split()[0] if text else "")]
    vec = _VEC.search(text.split()[0]) if text else None
    return max(1, (widths[-1] if widths else 32) // 8) * (int(vec.group(1)) if vec else 1)


def ideal_sectors(row: dict) -> float:
    """Sectors per request a fully coalesced access would take: the bytes its active threads move, in
    32-byte sectors (a warp of 4-byte loads: 4)."""
    active = row["thread"] / row["warp"] if row["warp"] else 32
    return max(1.0, -(-active * access_bytes(row["text"]) // 32))


def _derived(row: dict) -> dict:
    """The per-line figures the page shows beside the raw counters."""
    warp = row["warp"]
    out = {"heat": heat(row),
           "simt_pct": 100.0 * row["thread"] / (32 * warp) if warp else None,
           "sect_per_req": row["sectors"] / row["requests"] if row.get("requests") and row.get("sectors") else None,
           "stall_cycles": sum(v for k, v in row.get("stalls", {}).items() if k != "selected"),
           "issue_cycles": row.get("stalls", {}).get("selected", 0)}
    wf, conf = row.get("wavefronts", 0), row.get("bank_conflicts", 0)
    out["conflict_ways"] = wf / (wf - conf) if wf and conf and wf > conf else (1.0 if wf else None)
    return out


def _rank(rows: list[dict]) -> None:
    ranked = sorted((r for r in rows if r["heat"] > 0), key=lambda r: -r["heat"])
    for i, r in enumerate(ranked[:HOT]):
        r["hot_rank"] = i + 1
    total = sum(r["heat"] for r in rows) or 1
    for r in rows:
        r.setdefault("hot_rank", 0)
        r["heat_pct"] = 100.0 * r["heat"] / total


def ptx_rows(r) -> list[dict]:
    """One row per PTX instruction that executed or was charged cycles, in pc order, with the
    per-line counters, the derived figures (heat, simt_pct, sect_per_req, stall_cycles, issue_cycles,
    conflict_ways), hot_rank (1..HOT, 0 for the rest) and heat_pct (share of the kernel's heat)."""
    rows = [{**row, **_derived(row)} for row in per_line_counters(r)]
    _rank(rows)
    return rows


def source_rows(r) -> list[dict]:
    """One row per .loc source line (empty when the PTX has none), ranked as ptx_rows are."""
    src = per_source_counters(r)
    if not any(s["file"] for s in src):
        return []
    rows = [{**s, "text": s["text"] or "", **_derived({**s, "text": ""})} for s in src]
    _rank(rows)
    return rows


def hottest(rows: list[dict]) -> dict | None:
    """The row with hot_rank 1, or None when nothing ran."""
    return next((r for r in rows if r["hot_rank"] == 1), None)


def stall_totals(r) -> dict:
    """Kernel-wide stall cycles by reason (timing mode; 'selected' = issue cycles), summed over pcs."""
    if "stall" not in r.per_pc:
        return {}
    s = r.per_pc["stall"].sum(axis=0)
    return {name: int(s[i]) for i, name in enumerate(STALLS)}


def short_text(text: str) -> str:
    """An instruction with numba's long mangled symbol names cut down (for sentences, not tables)."""
    return re.sub(r"(_ZN\w{12})\w+", r"\1...", text)


def where(row: dict) -> str:
    """`file.py:12` for a source row, `PTX 48` for a PTX row."""
    if row.get("ptx_lines") is not None:
        return f"{(row['file'] or '').rsplit('/', 1)[-1]}:{row['line']}" if row["file"] else "(no source line)"
    if row.get("file"):
        return f"PTX {row['ptx_line']} ({row['file'].rsplit('/', 1)[-1]}:{row['line']})"
    return f"PTX {row['ptx_line']}" if row.get("ptx_line") else "end of kernel"
