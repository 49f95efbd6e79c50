"""The HTML report page: one self-contained file (CSS and bokeh's JavaScript inline, no network).

`render(results, gpu=..., extra_sections=[(title, html_fragment), ...])` builds the page with jinja2
(templates/report.html.j2, static/report.css): per launch the summary, the advice, the charts (stalls,
memory, roofline, CTA timeline), and the source view; then the extra sections, each a title and an
HTML fragment another module supplies (the timeline/animation), rendered as given, in order."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

import jinja2
from bokeh.embed import components
from markupsafe import Markup

from gpusim.html import advice, charts, lines, roofline
from gpusim.presets import get_preset
from gpusim.report_lines import line_ranges
from gpusim.sm.stalls import STALLS
from gpusim.textfmt import fmt, short_name

NO_EVENTS = "No event record in this run: run with --trace/--html to record events (CTA start and end per SM)."


def template_env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("gpusim.html", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]), trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = fmt
    env.filters["ranges"] = line_ranges
    env.filters["pct"] = lambda v: "" if v is None else f"{v:.0f}%"
    env.filters["num"] = lambda v, d=1: "" if v is None else f"{v:,.{d}f}"
    return env


def stylesheet() -> str:
    return resources.files("gpusim.html").joinpath("static/report.css").read_text()


def spec_of(r, gpu=None):
    """The GPUSpec a result ran on: `gpu` when given, else the preset its name names (a TOML-derived
    spec, named 'base+file.toml', falls back to its base preset)."""
    if gpu is not None:
        return get_preset(gpu) if isinstance(gpu, str) else gpu
    return get_preset(r.gpu.split("+", 1)[0])


def summary(r) -> list[tuple[str, str]]:
    """(label, value) rows of the summary table."""
    m = r.metrics
    rows = [("kernel", short_name(r.kernel)), ("grid x block", f"{r.grid} x {r.block}"), ("GPU", r.gpu),
            ("mode", r.mode), ("warp instructions", fmt(int(m.get("smsp__inst_executed.sum", 0)))),
            ("SIMT efficiency", f"{m.get('gpusim__simt_efficiency.pct', 0):.1f}%")]
    if r.mode != "timing":
        return rows
    return rows + [
        ("cycles", fmt(r.cycles)), ("time", f"{r.cycles / r.timing['clock_mhz']:,.2f} us"),
        ("IPC (per active SM cycle)", f"{m.get('sm__inst_executed.avg.per_cycle_active', 0):.2f}"),
        ("occupancy: theoretical", f"{m.get('sm__maximum_warps_per_active_cycle_pct', 0):.1f}%"),
        ("occupancy: achieved", f"{m.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):.1f}%"),
        ("occupancy limiter", str(m.get("launch__occupancy_limiter"))),
        ("blocks per SM by limit", ", ".join(f"{k} {m.get(f'launch__occupancy_limit_{k}')}"
                                              for k in ("warps", "blocks", "registers", "shared_mem"))),
        ("registers per thread", str(m.get("launch__registers_per_thread"))),
        ("waves per SM", f"{m.get('launch__waves_per_multiprocessor', 0):.2f}")]


def _bars(rows: list[dict]) -> None:
    """Each row's stall cycles as bar segments, widths relative to the hottest row (CSS, no SVG)."""
    top = max((row["heat"] for row in rows), default=0) or 1
    for row in rows:
        row["bars"] = [(k, v, 100.0 * v / top, charts.STALL_COLORS[k]) for k in STALLS
                       if (v := row.get("stalls", {}).get(k, 0))]


def _launch(i: int, r, spec, models: dict) -> dict:
    ptx, src = lines.ptx_rows(r), lines.source_rows(r)
    _bars(ptx)
    _bars(src)
    ctx = {"i": i, "name": short_name(r.kernel), "summary": summary(r), "ptx": ptx, "src": src,
           "advice": advice.advise(r, ptx), "timing": r.mode == "timing", "events_note": None,
           "hot_pc": (lines.hottest(ptx) or {}).get("pc"), "point": None}
    if r.mode == "timing":
        pt, pk = roofline.point(r), roofline.peaks(spec)
        uses_tensor = any(roofline.flops_of(row["text"].split(" ", 1)[-1] if row["text"].startswith("@")
                                            else row["text"])[1] for row in ptx)
        ctx["point"] = {"flops": pt.flops, "bytes": pt.dram_bytes, "intensity": pt.intensity,
                        "flops_per_s": pt.flops_per_s, "bound": roofline.bound(pt, pk), "peaks": pk}
        models[f"stalls-{i}"] = charts.stalls_chart(lines.stall_totals(r))
        models[f"memory-{i}"] = charts.memory_chart(r.metrics)
        models[f"roofline-{i}"] = charts.roofline_chart(pt, pk, uses_tensor)
    events = getattr(r, "events", None)
    if events is not None and getattr(events, "cta", None) is not None and len(events.cta):
        models[f"timeline-{i}"] = charts.cta_timeline_chart(events.cta, spec.n_sm)
        if getattr(events, "warp_state", None) is not None and events.warp_state.size:
            models[f"warpstates-{i}"] = charts.warp_states_chart(events)
    else:
        ctx["events_note"] = NO_EVENTS
    return ctx


def render(results, gpu=None, extra_sections=None, title: str | None = None) -> str:
    """The page for one launch or a list of launches (of one program run), as a string.

    gpu: the GPUSpec or preset name the launches ran on (for the roofline's peaks; default: the preset
    each result names). extra_sections: [(title, html_fragment)], appended in order, the fragment
    trusted and inserted as is; by default (None) the animated playback of the launches that recorded
    events (playback.py)."""
    results = results if isinstance(results, (list, tuple)) else [results]
    if extra_sections is None:
        from gpusim.html.playback import sections
        extra_sections = sections(results)
    models: dict = {}
    launches = [_launch(i, r, spec_of(r, gpu), models) for i, r in enumerate(results)]
    script, divs = components(models) if models else ("", {})
    extra = [(t, Markup(frag)) for t, frag in (extra_sections or [])]
    return template_env().get_template("report.html.j2").render(
        title=title or f"gpusim: {short_name(results[0].kernel)} on {results[0].gpu}", launches=launches,
        divs={k: Markup(v) for k, v in divs.items()}, chart_script=Markup(script),
        bokeh_js=Markup(charts.bokeh_js()) if models else "", css=Markup(stylesheet()), extra_sections=extra,
        stall_colors=charts.STALL_COLORS)


def write(results, path, gpu=None, extra_sections=None, title: str | None = None) -> Path:
    """render() written to path (UTF-8); returns the path."""
    p = Path(path)
    p.write_text(render(results, gpu=gpu, extra_sections=extra_sections, title=title), encoding="utf-8")
    return p


def notebook(r) -> str:
    """LaunchResult._repr_html_: the page, as an iframe's srcdoc so its scripts and CSS stay apart from
    the notebook's."""
    import html as _html
    return (f'<iframe srcdoc="{_html.escape(render(r), quote=True)}" style="width:100%;height:900px;border:0">'
            "</iframe>")
