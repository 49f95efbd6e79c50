"""Rendering of launch results with rich (the edge: no simulation logic here)."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from gpusim.textfmt import fmt, short_name  # noqa: F401  (re-exported: report.fmt, report.short_name)

console = Console() if sys.stdout.isatty() else Console(width=160)   # wide tables when piped to a file
err_console = Console(stderr=True)      # status lines (first compile), never mixed into the results


class _Progress:
    """A rich progress bar the timing engine feeds: CTAs done of total, simulated cycles, warp
    instructions per second of wall time and the time left. Silent when stdout is not a terminal.

    Called as progress(done, total) by gpusim/timing/gigathread.py; progress(done, total, cycles=C,
    warp_inst=N) also shows the simulated cycle and the simulation rate (the core passes them once it
    gives them: see gpusim/html/README.md, "progress")."""

    def __init__(self, console_=None):
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        con = console_ or console
        self.p = Progress(TextColumn("simulating"), BarColumn(), TextColumn("{task.completed}/{task.total} CTAs"),
                          TextColumn("{task.fields[cycles]}"), TextColumn("{task.fields[rate]}"),
                          TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                          console=con, transient=True, disable=not con.is_terminal)
        self.task = None
        self.start = None

    def __enter__(self):
        self.p.__enter__()
        return self

    def __exit__(self, *exc):
        return self.p.__exit__(*exc)

    def __call__(self, done: int, total: int, cycles: int | None = None, warp_inst: int | None = None):
        import time
        if self.task is None or self.p.tasks[self.task].total != total:
            self.task = self.p.add_task("sim", total=total, cycles="", rate="")
            self.start = time.perf_counter()
        fields = {}
        if cycles is not None:
            fields["cycles"] = f"{cycles:,} cycles"
        if warp_inst is not None:
            dt = time.perf_counter() - self.start
            fields["rate"] = f"{warp_inst / dt / 1e6:,.2f} M warp-inst/s" if dt > 0 else ""
        self.p.update(self.task, completed=done, **fields)

    def fields(self) -> dict:
        """The current task's extra columns (cycles, rate): what the bar shows beside the count."""
        return dict(self.p.tasks[self.task].fields) if self.task is not None else {}


def progress() -> _Progress:
    return _Progress()


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


def _stall_rows(m: dict, top: int = 6):
    pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    rows = [(k[len(pre):-len(post)], v) for k, v in m.items() if k.startswith(pre) and k.endswith(post)]
    return sorted(rows, key=lambda x: -x[1])[:top]


def timing_summary(results: list) -> Table:
    """One column per launch: time, occupancy, stalls and the memory table."""
    t = Table(title="timing", title_justify="left")
    t.add_column("")
    for i, r in enumerate(results):
        t.add_column(f"#{i} {short_name(r.kernel)}", justify="right")

    def row(label, fn):
        t.add_row(label, *[fn(r) for r in results])

    def met(key, f="{:,.0f}"):
        return lambda r: f.format(r.metrics.get(key, 0))

    row("cycles (gpc__cycles_elapsed.max)", lambda r: f"{r.cycles:,}")
    row("time at preset clock", lambda r: f"{r.cycles / r.timing['clock_mhz']:,.2f} us")
    row("timing model", lambda r: {"sass": "SASS (ptxas's registers, SASS per PTX line)",
                                   "ptx": "PTX only"}.get(r.timing.get("model", "ptx"), "PTX only"))
    row("IPC (per active SM cycle)", met("sm__inst_executed.avg.per_cycle_active", "{:.2f}"))
    row("occupancy theoretical", met("sm__maximum_warps_per_active_cycle_pct", "{:.1f}%"))
    row("occupancy achieved", met("sm__warps_active.avg.pct_of_peak_sustained_active", "{:.1f}%"))
    row("occupancy limiter", lambda r: str(r.metrics.get("launch__occupancy_limiter")))
    row("waves per SM", met("launch__waves_per_multiprocessor", "{:.2f}"))
    row("registers per thread (est.)", met("launch__registers_per_thread"))
    t.add_section()
    for i in range(4):
        row(f"stall #{i + 1} (cycles/inst)", lambda r, i=i: (lambda s: f"{s[i][0]} {s[i][1]:.2f}" if len(s) > i
                                                              else "")(_stall_rows(r.metrics)))
    t.add_section()
    m = "l1tex__t_"
    row("global ld requests", met(m + "requests_pipe_lsu_mem_global_op_ld.sum"))
    row("global ld sectors/request", lambda r: _ratio(r.metrics, "ld"))
    row("global st requests", met(m + "requests_pipe_lsu_mem_global_op_st.sum"))
    row("global st sectors/request", lambda r: _ratio(r.metrics, "st"))
    row("L1 sector hit rate", met("l1tex__t_sector_hit_rate.pct", "{:.1f}%"))
    row("L2 sector hit rate", met("lts__t_sector_hit_rate.pct", "{:.1f}%"))
    row("DRAM bytes read", met("dram__bytes_read.sum"))
    row("DRAM bytes written", met("dram__bytes_write.sum"))
    row("shared ld wavefronts", met("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"))
    row("shared bank conflicts (ld+st)", lambda r: f"{r.metrics.get('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum', 0) + r.metrics.get('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum', 0):,}")  # noqa: E501
    return t


def _ratio(m, k):
    req = m.get(f"l1tex__t_requests_pipe_lsu_mem_global_op_{k}.sum", 0)
    sec = m.get(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{k}.sum", 0)
    return f"{sec / req:.2f}" if req else "-"


def html(results, path, gpu=None, extra_sections=None):
    """Write the HTML report of a launch (or of a program's launches) to path: gpusim.html.write."""
    from gpusim.html import write
    return write(results, path, gpu=gpu, extra_sections=extra_sections)
