"""Per-line counters (gpusim/report_lines.py): the --lines tables, their sums against the kernel-wide
metrics, the source-line aggregation through .loc, and the JSON/CSV export of `gpusim run`."""
import contextlib
import csv
import io
import json
from pathlib import Path

import pytest

from gpusim.cli import main
from gpusim.launch import launch
from gpusim.presets import get_preset
from gpusim.report_lines import DRAIN_TEXT, per_line_counters, per_source_counters
from gpusim.sm.stalls import STALLS
from programs import all_programs

ROOT = Path(__file__).resolve().parents[2]
SHARED_OPS = ("ld", "st", "atom")
REQUIRED_METRICS = [
    "gpc__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__waves_per_multiprocessor",
    "sm__inst_executed.avg.per_cycle_active", "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct",
    "dram__bytes_read.sum", "dram__bytes_write.sum",
    *(f"launch__occupancy_limit_{k}" for k in ("blocks", "warps", "registers", "shared_mem")),
    *(f"l1tex__t_{m}_pipe_lsu_mem_global_op_{op}.sum" for m in ("requests", "sectors") for op in ("ld", "st")),
    *(f"l1tex__data_{m}_mem_shared_op_{op}.sum" for m in ("bank_conflicts_pipe_lsu", "pipe_lsu_wavefronts")
      for op in ("ld", "st")),
    *(f"smsp__average_warp_latency_issue_stalled_{s}.ratio" for s in STALLS),
]


def _run(name: str, mode: str = "timing"):
    """The first launch of an example program at its small size."""
    mod = all_programs()[name]
    results = []

    def launcher(kernel, grid, block, *args):
        results.append(launch(kernel, grid, block, *args, gpu=get_preset("h100"), mode=mode))
        return results[-1]

    mod.run(launcher, mod.inputs(mod.SMALL_SIZE))
    return results[0]


@pytest.fixture(scope="module")
def vecadd():
    return _run("vecadd")


@pytest.fixture(scope="module")
def histogram():
    """Shared loads, stores and atomics (with bank conflicts on the hot bins) and global atomics."""
    return _run("histogram")


@pytest.fixture(scope="module")
def cli_vecadd(tmp_path_factory):
    """`gpusim run vecadd --small --lines --json --csv`: its stdout and the paths it wrote."""
    out = tmp_path_factory.mktemp("export")
    paths = {"json": out / "m.json", "csv": out / "m.csv"}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["run", "vecadd", "--small", "--lines", "--json", str(paths["json"]), "--csv", str(paths["csv"])])
    assert rc == 0
    return buf.getvalue(), paths


def _table_rows(text: str, title: str) -> list[str]:
    """The body lines of the rich table printed under `title`."""
    lines = text[text.index(title):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("┡")) + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("└"))
    return lines[start:end]


def _shared_metric(r, kind: str) -> int:
    m = r.metrics
    return sum(m[f"l1tex__data_{kind}_mem_shared_op_{op}.sum"] for op in SHARED_OPS)


def test_lines_table_lists_the_global_load_and_store_lines_of_vecadd(cli_vecadd):
    rows = _table_rows(cli_vecadd[0], "hottest PTX lines")
    assert any("ld.global" in row for row in rows)
    assert any("st.global" in row for row in rows)


def test_lines_table_is_not_cut_short_by_the_end_of_kernel_drain_row(cli_vecadd):
    rows = [row for row in _table_rows(cli_vecadd[0], "hottest PTX lines") if row[2:10].strip()]   # a PTX line
    assert len(rows) >= 14                      # 36 executed; the top 15 (one the drain) and memory lines
    assert DRAIN_TEXT in cli_vecadd[0] and "exit (end of kernel)" not in cli_vecadd[0]


def test_lines_tables_show_source_lines_before_ptx_lines(cli_vecadd):
    text = cli_vecadd[0]
    assert text.index("hottest source lines") < text.index("hottest PTX lines")
    assert "c[i] = a[i] + b[i]" in "\n".join(_table_rows(text, "hottest source lines"))


def test_functional_mode_lines_rank_by_warp_instructions_without_timing_counters():
    rows = per_line_counters(_run("vecadd", mode="functional"))
    assert len(rows) == 36
    assert all(row["warp"] > 0 and "cycles" not in row and "sectors" not in row for row in rows)


@pytest.mark.parametrize("prog", ["vecadd", "histogram"])
def test_per_line_warp_and_thread_instructions_sum_to_the_totals(prog, request):
    r = request.getfixturevalue(prog)
    rows = per_line_counters(r)
    assert sum(row["warp"] for row in rows) == r.metrics["smsp__inst_executed.sum"]
    assert sum(row["thread"] for row in rows) == r.metrics["smsp__thread_inst_executed.sum"]


@pytest.mark.parametrize("prog", ["vecadd", "histogram"])
def test_per_line_global_load_sectors_and_requests_sum_to_the_ld_metrics(prog, request):
    r = request.getfixturevalue(prog)
    loads = [row for row in per_line_counters(r) if "ld.global" in row["text"]]
    assert loads
    assert sum(row["sectors"] for row in loads) == r.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    assert sum(row["requests"] for row in loads) == r.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]


def test_per_line_shared_wavefronts_and_conflicts_sum_to_the_shared_metrics(histogram):
    rows = per_line_counters(histogram)
    assert sum(row["wavefronts"] for row in rows) == _shared_metric(histogram, "pipe_lsu_wavefronts") > 0
    assert sum(row["bank_conflicts"] for row in rows) == _shared_metric(histogram, "bank_conflicts_pipe_lsu") > 0
    assert all(row["wavefronts"] == 0 for row in rows if ".shared" not in row["text"])


def test_per_line_stall_cycles_per_issue_match_the_per_issue_stall_metrics(vecadd):
    rows = per_line_counters(vecadd)
    issued = vecadd.metrics["smsp__inst_executed.sum"]
    for s in STALLS:
        cycles = sum(row["stalls"].get(s, 0) for row in rows)
        metric = vecadd.metrics[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"]
        assert cycles / issued == pytest.approx(metric), s


def test_the_drain_is_charged_to_the_end_of_kernel_row_only(vecadd):
    drained = [row for row in per_line_counters(vecadd) if "drain" in row["stalls"]]
    assert [(row["text"], row["ptx_line"], row["warp"]) for row in drained] == [(DRAIN_TEXT, None, 0)]


@pytest.mark.parametrize("prog", ["vecadd", "histogram"])
def test_source_line_sums_equal_the_ptx_line_sums(prog, request):
    r = request.getfixturevalue(prog)
    lines, sources = per_line_counters(r), per_source_counters(r)
    for k in ("warp", "thread", "sectors", "requests", "wavefronts", "bank_conflicts", "cycles"):
        assert sum(s[k] for s in sources) == sum(row[k] for row in lines), k
    assert sum(s["warp"] for s in sources) == r.metrics["smsp__inst_executed.sum"]
    assert sum(s["wavefronts"] for s in sources) == _shared_metric(r, "pipe_lsu_wavefronts")
    assert sorted(n for s in sources for n in s["ptx_lines"]) == sorted(
        row["ptx_line"] for row in lines if row["ptx_line"] is not None)


def test_numba_source_lines_point_at_the_program_file_and_its_text(vecadd):
    sources = per_source_counters(vecadd)
    py = ROOT / "programs" / "vecadd.py"
    mapped = [s for s in sources if s["file"] and Path(s["file"]).resolve() == py]
    assert mapped and len(mapped) == len([s for s in sources if s["file"]])
    body = py.read_text().splitlines()
    assert all(s["text"] == body[s["line"] - 1].strip() for s in mapped)
    assert any(s["text"] == "c[i] = a[i] + b[i]" and s["sectors"] > 0 for s in mapped)


def test_json_export_holds_every_required_metric_and_the_per_line_counters(cli_vecadd):
    (launch0,) = json.loads(cli_vecadd[1]["json"].read_text())
    missing = [k for k in REQUIRED_METRICS if k not in launch0["metrics"]]
    assert not missing
    assert sum(row["warp"] for row in launch0["lines"]) == launch0["metrics"]["smsp__inst_executed.sum"]
    assert sum(s["warp"] for s in launch0["source_lines"]) == launch0["metrics"]["smsp__inst_executed.sum"]
    assert any("st.global" in row["text"] and row["sectors"] for row in launch0["lines"])


def test_csv_export_writes_the_per_line_counters_beside_the_metrics(cli_vecadd):
    paths = cli_vecadd[1]
    metrics = {row["metric"]: row["value"] for row in csv.DictReader(paths["csv"].open())}
    assert "smsp__inst_executed.sum" in metrics
    rows = list(csv.DictReader(paths["csv"].with_suffix(".lines.csv").open()))
    for level in ("ptx", "source"):
        warp = sum(int(row["warp"]) for row in rows if row["level"] == level)
        assert warp == int(metrics["smsp__inst_executed.sum"]), level
    assert sum(int(row["stall_drain"]) for row in rows if row["level"] == "ptx") > 0
