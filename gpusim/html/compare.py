"""Two runs side by side: the metrics both have, their ratio, and the differences marked; as a rich
table for the terminal and as an HTML page (bokeh chart of the relative differences, inline).

A side is a label and a metrics dict keyed by Nsight Compute's names: a gpusim launch's metrics or the
ncu metrics recorded on an H100 (validation/data/h100), so sim-vs-sim and sim-vs-hardware read alike."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from bokeh.embed import components
from bokeh.models import ColumnDataSource, HoverTool
from bokeh.plotting import figure
from markupsafe import Markup
from rich.table import Table

from gpusim.html import charts
from gpusim.html.page import stylesheet, summary, template_env
from gpusim.textfmt import fmt

NOTABLE = 0.10      # a relative difference this large is highlighted
LARGE = 0.50        # and this large, strongly
_STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
KEY_METRICS = [
    ("cycles", "gpc__cycles_elapsed.max"), ("time (ns)", "gpu__time_duration.sum"),
    ("warp instructions", "smsp__inst_executed.sum"),
    ("IPC per active SM cycle", "sm__inst_executed.avg.per_cycle_active"),
    ("occupancy theoretical %", "sm__maximum_warps_per_active_cycle_pct"),
    ("occupancy achieved %", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("waves per SM", "launch__waves_per_multiprocessor"),
    ("global ld requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ("global ld sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("global st requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ("global st sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("L1 sector hit rate %", "l1tex__t_sector_hit_rate.pct"), ("L2 sector hit rate %", "lts__t_sector_hit_rate.pct"),
    ("DRAM bytes read", "dram__bytes_read.sum"), ("DRAM bytes written", "dram__bytes_write.sum"),
    ("shared ld wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("shared ld bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("shared st bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    *((f"stall {s} per issue", _STALL.format(s)) for s in
      ("long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle", "math_pipe_throttle", "wait",
       "no_instruction", "imc_miss", "branch_resolving")),
]


@dataclass
class Side:
    label: str
    metrics: dict
    result: object = None                   # the LaunchResult, when the side is a gpusim run
    notes: list = field(default_factory=list)


def _num(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def rows(a: Side, b: Side, every: bool = False) -> list[dict]:
    """One row per metric both sides have (KEY_METRICS, or every numeric metric with every=True):
    label, metric, a, b, ratio (b / a; None when a is 0), rel (|b - a| / max(|a|, |b|)) and mark:
    '' (under NOTABLE), 'notable' or 'large'."""
    keys = KEY_METRICS if not every else [(k, k) for k in sorted(a.metrics) if k in b.metrics]
    out = []
    for label, key in keys:
        va, vb = _num(a.metrics.get(key)), _num(b.metrics.get(key))
        if va is None or vb is None:
            continue
        top = max(abs(va), abs(vb))
        rel = abs(vb - va) / top if top else 0.0
        out.append({"label": label, "metric": key, "a": va, "b": vb, "ratio": vb / va if va else None, "rel": rel,
                    "mark": "large" if rel >= LARGE else "notable" if rel >= NOTABLE else ""})
    return out


def _show(v: float) -> str:
    if float(v).is_integer():
        return fmt(int(v))
    return f"{v:,.2f}" if abs(v) >= 1 else f"{v:.3g}"


def table(a: Side, b: Side, rs: list[dict]) -> Table:
    """The rich table: metric, A, B, B/A; a notable difference in yellow, a large one in bold red."""
    t = Table(title=f"{a.label}  vs  {b.label}", title_justify="left")
    for c, j in (("metric", "left"), ("A: " + a.label, "right"), ("B: " + b.label, "right"), ("B / A", "right")):
        t.add_column(c, justify=j, overflow="fold")
    style = {"large": "bold red", "notable": "yellow", "": ""}
    for r in rs:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else "-"
        t.add_row(r["label"], _show(r["a"]), _show(r["b"]), ratio, style=style[r["mark"]] or None)
    return t


def _diff_chart(rs: list[dict]):
    """Horizontal bars: (B - A) / max(|A|, |B|) per metric, signed, in percent."""
    labels = [r["label"] for r in rs][::-1]
    vals = [100 * (r["b"] - r["a"]) / max(abs(r["a"]), abs(r["b"]), 1e-30) for r in rs][::-1]
    colors = ["#e45756" if abs(v) >= 100 * LARGE else "#f2b447" if abs(v) >= 100 * NOTABLE else "#9ecae9"
              for v in vals]
    src = ColumnDataSource({"label": labels, "pct": vals, "color": colors})
    f = figure(title="B relative to A, % of the larger", y_range=labels, width=760, height=40 + 20 * len(labels),
               toolbar_location=None, tools="", x_range=(-105, 105))
    f.hbar(y="label", right="pct", height=0.7, color="color", source=src)
    f.add_tools(HoverTool(tooltips=[("", "@label"), ("difference", "@pct{0.0}%")]))
    return f


def render(a: Side, b: Side, rs: list[dict]) -> str:
    """The comparison page: the table with marks, the difference chart, each side's summary."""
    models = {"diff": _diff_chart(rs)}
    script, divs = components(models)
    sides = [{"label": s.label, "summary": summary(s.result) if s.result is not None else [], "notes": s.notes}
             for s in (a, b)]
    return template_env().get_template("compare.html.j2").render(
        title=f"gpusim compare: {a.label} vs {b.label}", rows=rs, a=a, b=b, sides=sides, show=_show,
        divs={k: Markup(v) for k, v in divs.items()}, chart_script=Markup(script),
        bokeh_js=Markup(charts.bokeh_js()), css=Markup(stylesheet()))
