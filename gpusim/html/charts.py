"""The report's charts, drawn with bokeh: each function returns a bokeh model; page.py embeds them all
with one `bokeh.embed.components` call, and the page carries bokeh's JavaScript once, inline
(BOKEH_JS), so the file opens offline.

STALL_COLORS gives each stall reason one colour, shared by the stall chart and the source view's bars."""
from __future__ import annotations

import numpy as np
from bokeh.layouts import row
from bokeh.models import ColumnDataSource, HoverTool, Label, NumeralTickFormatter, Span
from bokeh.palettes import Category20
from bokeh.plotting import figure
from bokeh.resources import Resources

from gpusim.sm.stalls import STALLS

STALL_COLORS = dict(zip(STALLS, Category20[20]))
_W, _H = 460, 300


def bokeh_js() -> str:
    """bokeh's core JavaScript as inline <script> tags (about 1.3 MB): once per page."""
    return Resources(mode="inline", components=["bokeh"]).render_js()


def _fig(title: str, **kw):
    f = figure(title=title, width=kw.pop("width", _W), height=kw.pop("height", _H), toolbar_location=None,
               tools="", **kw)
    f.title.text_font_size = "11pt"
    return f


def stalls_chart(totals: dict):
    """Stall cycles by reason, kernel-wide ('selected' is the issue cycles), largest first."""
    items = sorted(((k, v) for k, v in totals.items() if v), key=lambda kv: kv[1])
    names = [k for k, _ in items]
    src = ColumnDataSource({"reason": names, "cycles": [v for _, v in items],
                            "color": [STALL_COLORS[k] for k in names]})
    f = _fig("warp cycles by stall reason (selected = issuing)", y_range=names, height=max(160, 26 * len(names) + 60))
    f.hbar(y="reason", right="cycles", height=0.7, color="color", source=src)
    f.add_tools(HoverTool(tooltips=[("reason", "@reason"), ("cycles", "@cycles{0,0}")]))
    f.x_range.start = 0
    f.xaxis.formatter = NumeralTickFormatter(format="0.[0]a")
    return f


def memory_chart(m: dict):
    """Three panels: requests and sectors by access kind; L1 and L2 hit rates; bytes through L1, L2, DRAM."""
    g = "l1tex__t_{}_pipe_lsu_mem_global_op_{}.sum"
    kinds = ["global ld", "global st", "atomics", "local", "shared ld", "shared st"]
    req = [m.get(g.format("requests", "ld"), 0), m.get(g.format("requests", "st"), 0),
           m.get(g.format("requests", "atom"), 0) + m.get(g.format("requests", "red"), 0), 0,
           m.get("gpusim__shared_requests_op_ld.sum", 0), m.get("gpusim__shared_requests_op_st.sum", 0)]
    sec = [m.get(g.format("sectors", "ld"), 0), m.get(g.format("sectors", "st"), 0), 0,
           m.get("l1tex__t_sectors_pipe_lsu_mem_local_op.sum", 0),
           m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0),
           m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 0)]
    a = _fig("requests and sectors (shared: wavefronts)", x_range=kinds, width=420)
    src = ColumnDataSource({"kind": kinds, "requests": req, "sectors": sec})
    a.vbar(x="kind", top="requests", width=0.35, source=src, color="#4c78a8", legend_label="requests")
    a.vbar(x="kind", top="sectors", width=0.18, source=src, color="#f58518", legend_label="sectors / wavefronts")
    a.add_tools(HoverTool(tooltips=[("", "@kind"), ("requests", "@requests{0,0}"), ("sectors", "@sectors{0,0}")]))
    a.xaxis.major_label_orientation = 0.6
    a.legend.location = "top_right"
    levels = ["L1", "L2"]
    rates = [m.get("l1tex__t_sector_hit_rate.pct", 0), m.get("lts__t_sector_hit_rate.pct", 0)]
    b = _fig("sector hit rate %", x_range=levels, y_range=(0, 100), width=220)
    b.vbar(x=levels, top=rates, width=0.6, color="#54a24b")
    flows = ["L1 (global+local)", l2_label(m), "DRAM read", "DRAM write"]
    nbytes = [32 * (sec[0] + sec[1] + sec[3]), l2_bytes(m), m.get("dram__bytes_read.sum", 0),
              m.get("dram__bytes_write.sum", 0)]
    c = _fig("bytes moved", x_range=flows, width=360)
    c.vbar(x=flows, top=nbytes, width=0.6, color="#b279a2")
    c.add_tools(HoverTool(tooltips=[("bytes", "@top{0,0}")]))
    for f in (a, b, c):
        f.y_range.start = 0
    for f in (a, c):
        f.yaxis.formatter = NumeralTickFormatter(format="0.[0]a")
    return row(a, b, c)


def l2_bytes(m: dict) -> float:
    """Bytes the L2 served: its sector lookups (lts__t_sectors.sum) when the core counts them, else an
    estimate: the global load sectors that missed in L1, plus the store and local sectors (the L1
    writes through)."""
    if "lts__t_sectors.sum" in m:
        return 32.0 * m["lts__t_sectors.sum"]
    g = "l1tex__t_sectors_pipe_lsu_mem_global_op_{}.sum"
    miss = 1 - m.get("l1tex__t_sector_hit_rate.pct", 0) / 100
    return 32.0 * (m.get(g.format("ld"), 0) * miss + m.get(g.format("st"), 0)
                   + m.get("l1tex__t_sectors_pipe_lsu_mem_local_op.sum", 0) * miss)


def l2_label(m: dict) -> str:
    return "L2" if "lts__t_sectors.sum" in m else "L2 (est.)"


def roofline_chart(pt, pk, uses_tensor: bool):
    """The kernel's point (FLOP/s against FLOP per DRAM byte) under the preset's roofs, log-log."""
    lo = min(pt.intensity if pt.intensity not in (0, float("inf")) else 1.0, 1 / 64) / 4
    hi = max(pt.intensity if pt.intensity != float("inf") else 1.0, pk.tensor_flops / pk.dram_bytes) * 4
    f = _fig("roofline (DRAM)", x_axis_type="log", y_axis_type="log", width=560, height=360,
             x_axis_label="FLOP per DRAM byte", y_axis_label="FLOP/s")
    roofs = [("FP32", pk.fp32_flops, "#e45756"), ("FP64", pk.fp64_flops, "#9d755d")]
    if uses_tensor:
        roofs.append(("tensor f16", pk.tensor_flops, "#4c78a8"))
    for name, peak, color in roofs:
        ridge = peak / pk.dram_bytes
        f.line([lo, ridge, hi], [lo * pk.dram_bytes, peak, peak], color=color, line_width=2,
               legend_label=f"{name} {peak / 1e12:.1f} TFLOP/s")
    f.line([lo, hi], [lo * pk.l2_bytes, hi * pk.l2_bytes], color="#aaaaaa", line_dash="dashed",
           legend_label=f"L2 {pk.l2_bytes / 1e12:.1f} TB/s")
    if pt.flops and pt.dram_bytes and pt.seconds:
        f.scatter([pt.intensity], [pt.flops_per_s], size=12, color="black")
        f.add_layout(Label(x=pt.intensity, y=pt.flops_per_s, text=" this kernel", text_font_size="9pt"))
    f.legend.location = "bottom_right"
    f.legend.label_text_font_size = "8pt"
    f.y_range.start = min(lo * pk.dram_bytes, pt.flops_per_s / 4 if pt.flops_per_s else float("inf"))
    f.add_layout(Span(location=pk.ridge, dimension="height", line_dash="dotted", line_color="#e45756"))
    return f


def cta_timeline_chart(cta, n_sm: int):
    """CTAs on SMs over time: one bar per CTA from its start to its end cycle, on its SM's row.
    `cta` is a numpy structured array with fields cta, sm, start, end."""
    sm = cta["sm"].astype(float)
    src = ColumnDataSource({"sm": sm, "top": sm + 0.85, "start": cta["start"].astype(float),
                            "end": cta["end"].astype(float), "cta": cta["cta"].astype(int)})
    f = _fig("CTAs on SMs", width=900, height=max(200, min(700, 60 + 8 * n_sm)), x_axis_label="cycle",
             y_axis_label="SM")
    f.quad(left="start", right="end", bottom="sm", top="top", source=src, fill_color="#4c78a8", fill_alpha=0.6,
           line_color="white", line_width=0.5)
    f.add_tools(HoverTool(tooltips=[("CTA", "@cta"), ("SM", "@sm{0}"), ("cycles", "@start{0,0} - @end{0,0}")]))
    return f


def warp_states_chart(events):
    """Warp states over time: at each sample, how many of the GPU's resident warps issued in the interval
    or were held by each stall reason (stacked; empty slots left out). `events`: gpusim.timing.events.Events."""
    ws = events.warp_state.reshape(events.warp_state.shape[0], -1)
    names = list(events.state_names)
    counts = {n: (ws == k).sum(axis=1).astype(float) for k, n in enumerate(names) if n != "empty"}
    shown = [n for n in names if n in counts and counts[n].any()]
    t = (np.arange(ws.shape[0]) + 1.0) * events.interval
    src = ColumnDataSource({"t": t, **{n: counts[n] for n in shown}})
    colors = [STALL_COLORS.get(n, "#2ca02c" if n == "issued" else "#999999") for n in shown]
    f = _fig("warp states over time (all SMs)", width=900, height=320, x_axis_label="cycle", y_axis_label="warps")
    if shown:
        f.varea_stack(stackers=shown, x="t", color=colors, source=src, legend_label=shown)
        f.legend.location = "top_right"
        f.legend.label_text_font_size = "8pt"
    return f
