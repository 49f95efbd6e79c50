"""The HTML report page (gpusim/html): what it marks hot, what it embeds, its hooks, its peaks, and the
`gpusim run --html` and `gpusim compare` commands."""
import re
import types

import numpy as np
import pytest
from kernels import copy, launch_copy, launch_fma, run

from gpusim.cli import main
from gpusim.html import compare, render, roofline
from gpusim.presets import get_preset


@pytest.fixture(scope="module")
def strided():
    return launch_copy(strided=True)


@pytest.fixture(scope="module")
def page(strided):
    return render(strided)


def test_hottest_row_is_the_pc_with_most_stall_and_issue_cycles(strided, page):
    hot = re.search(r'<tr class="hot" data-hot-rank="1" data-heat="(\d+)" data-pc="(\d+)"', page)
    cycles = strided.per_pc["stall"].sum(axis=1)
    assert int(hot.group(2)) == int(np.argmax(cycles))
    assert int(hot.group(1)) == int(cycles.max())


def test_page_is_self_contained(page):
    assert "<script src" not in page and "<link " not in page
    assert "Bokeh" in page and page.count("<table") >= 3


def test_page_has_each_chart_and_the_events_note_without_events(page):
    for chart in ("stalls", "memory", "roofline"):
        assert f'data-chart="{chart}"' in page
    assert 'data-view="timeline-note"' in page and 'data-chart="timeline"' not in page


def test_timeline_chart_drawn_from_result_events(strided):
    cta = np.zeros(4, dtype=[("cta", "i4"), ("sm", "i4"), ("start", "i8"), ("end", "i8")])
    cta["cta"], cta["sm"], cta["start"], cta["end"] = range(4), [0, 1, 0, 1], [0, 0, 500, 500], [400, 450, 900, 990]
    r = types.SimpleNamespace(**{**vars(strided), "events": types.SimpleNamespace(cta=cta)})
    out = render(r)
    assert 'data-chart="timeline"' in out and 'data-view="timeline-note"' not in out


def test_extra_sections_rendered_in_order_as_given(strided):
    out = render(strided, extra_sections=[("animation", "<div id='anim'><b>x</b></div>"), ("second", "<p>2</p>")])
    assert out.index("<div id='anim'><b>x</b></div>") < out.index("<p>2</p>")
    assert '<h2>animation</h2>' in out


def test_notebook_repr_is_the_page_in_an_iframe(strided):
    html = strided._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "data-hot-rank" in html


def test_roofline_peaks_come_from_the_spec():
    h = get_preset("h100")
    pk = roofline.peaks(h)
    assert pk.fp32_flops == pytest.approx(h.n_sm * h.scheduler.subpartitions * 32 * 2 * h.clock_mhz * 1e6)
    assert pk.dram_bytes == pytest.approx(h.dram.bandwidth * h.clock_mhz * 1e6)
    half = roofline.peaks(h.with_(n_sm=66, **{"dram.bandwidth": h.dram.bandwidth / 2}))
    assert half.fp32_flops == pytest.approx(pk.fp32_flops / 2) and half.dram_bytes == pytest.approx(pk.dram_bytes / 2)


def test_flops_counted_from_executed_instructions():
    assert roofline.flops_of("fma.rn.f32 %f1, %f2, %f3, %f4;") == (2.0, 0.0)
    assert roofline.flops_of("add.f16x2 %r1, %r2, %r3;") == (2.0, 0.0)
    assert roofline.flops_of("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {...}") == (0.0, 4096.0)
    assert roofline.flops_of("ld.global.f32 %f1, [%rd1];") == (0.0, 0.0)
    r = launch_fma(n_iter=10, grid=1, block=32)
    assert 2 * 10 * 32 <= roofline.kernel_flops(r) <= 2 * 11 * 32     # a*1.0001 + 0.5 per iteration


def test_run_html_writes_the_report(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["run", "vecadd", "--small", "--html", str(out)]) == 0
    text = out.read_text()
    assert "vecadd" in text and 'data-hot-rank="1"' in text
    assert "wrote the HTML report" in capsys.readouterr().out


def test_run_html_refuses_a_folder_before_running(tmp_path, capsys):
    assert main(["run", "vecadd", "--small", "--html", str(tmp_path)]) == 2
    assert "--html" in capsys.readouterr().err


def test_compare_rows_mark_differences_by_size():
    cyc, dram, l2 = "gpc__cycles_elapsed.max", "dram__bytes_read.sum", "lts__t_sector_hit_rate.pct"
    a = compare.Side("a", {cyc: 100, dram: 1000, l2: 50})
    b = compare.Side("b", {cyc: 105, dram: 1200, l2: 10})
    marks = {r["metric"]: r["mark"] for r in compare.rows(a, b)}
    assert marks == {cyc: "", dram: "notable", l2: "large"}


def test_compare_two_presets_in_terminal_and_html(tmp_path, capsys):
    out = tmp_path / "c.html"
    assert main(["compare", "vecadd", "--small", "--gpu", "h100", "--vs-gpu", "tiny", "--html", str(out)]) == 0
    term = capsys.readouterr().out
    assert "vecadd on h100" in term and "vecadd on tiny" in term and "B / A" in term
    text = out.read_text()
    assert 'data-metric="gpc__cycles_elapsed.max"' in text and 'data-chart="diff"' in text


def test_compare_needs_a_second_side(capsys):
    assert main(["compare", "vecadd", "--small"]) == 2
    assert "--vs-gpu" in capsys.readouterr().err


def test_compare_vs_h100_names_the_recorded_programs(capsys):
    assert main(["compare", "no_such_program", "--vs-h100"]) == 2
    err = capsys.readouterr().err
    assert "no H100 recording of 'no_such_program'" in err and "reduce_shared" in err


def test_progress_silent_off_a_terminal_and_shows_cycles_on_one():
    import io

    from rich.console import Console

    from gpusim.report import _Progress
    quiet = io.StringIO()
    with _Progress(Console(file=quiet, force_terminal=False)) as p:
        p(64, 128)
    assert quiet.getvalue() == ""
    with _Progress(Console(file=io.StringIO(), force_terminal=True)) as p:
        p(64, 128, cycles=12345, warp_inst=1000)
        assert p.fields()["cycles"] == "12,345 cycles" and p.fields()["rate"].endswith("M warp-inst/s")


def test_compare_vs_h100_sets_sim_beside_the_recording(capsys):
    """saxpy at its default size (as `gpusim validate` runs it) against ncu's H100 counters: the sector
    counts are exact-tier counters, equal on both sides."""
    from gpusim.compare_cmd import recorded_h100
    assert main(["compare", "saxpy", "--vs-h100"]) == 0
    out = capsys.readouterr().out
    assert "gpusim saxpy on h100" in out and "H100 (ncu) saxpy" in out
    hw, _ = recorded_h100("saxpy")
    sectors = f"{int(hw['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum']):,}"
    assert re.search(rf"global ld sectors\s+│\s+{sectors}\s+│\s+{sectors}\s+│\s+1\.00x", out)


def test_functional_mode_page_has_the_source_view_and_no_charts():
    import numpy as np
    from kernels import copy

    import gpusim
    r = gpusim.launch(copy, 1, 32, np.ones(32, np.float32), np.zeros(32, np.float32), gpu="tiny", mode="functional")
    out = render(r)
    assert 'data-view="ptx-lines"' in out and "data-chart" not in out and "Bokeh" not in out


def test_l2_bytes_use_the_l2_counter_when_the_core_gives_it():
    from gpusim.html import charts
    g = "l1tex__t_sectors_pipe_lsu_mem_global_op_{}.sum"
    m = {g.format("ld"): 100, g.format("st"): 50, "l1tex__t_sector_hit_rate.pct": 25.0}
    assert charts.l2_bytes(m) == 32 * (75 + 50) and charts.l2_label(m) == "L2 (est.)"
    m["lts__t_sectors.sum"] = 10
    assert charts.l2_bytes(m) == 320 and charts.l2_label(m) == "L2"


def test_compare_two_toml_configs(tmp_path, capsys):
    slow = tmp_path / "slow_dram.toml"
    slow.write_text('base = "tiny"\n[dram]\nlatency = 2000\n')
    assert main(["compare", "vecadd", "--small", "--gpu", "tiny", "--vs-gpu", str(slow)]) == 0
    out = capsys.readouterr().out
    assert "vecadd on tiny+slow_dram.toml" in out
    cycles = re.search(r"│ cycles\s+│\s+([\d,]+)\s+│\s+([\d,]+)", out)
    assert int(cycles.group(2).replace(",", "")) > int(cycles.group(1).replace(",", ""))


def test_a_run_with_events_gets_the_timeline_warp_states_and_playback():
    n = 256
    r = run(copy, 2, 128, np.arange(n, dtype=np.float32), np.zeros(n, np.float32), events=True)
    out = render(r)
    assert 'data-chart="timeline"' in out and 'data-chart="warp-states"' in out
    assert 'class="gpusim-anim"' in out and out.count("gpusimAnim") >= 1     # the player and its script
    assert 'data-view="timeline-note"' not in out
