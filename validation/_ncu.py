"""Nsight Compute collection for record.py: metric list, existence check, profiling, CSV parsing.

record.py re-runs itself under ncu in `--ncu-target` mode, which launches each case's kernel once
and writes the launch order; ncu exports a report per chunk of cases, which is read back with
`ncu --import REPORT --csv --page raw --print-units base` (one row per kernel, base units).
"""
from __future__ import annotations

import csv
import io
import re
import subprocess

NCU_FLAGS = ["--clock-control", "none", "--cache-control", "all", "--target-processes", "all",
             "--replay-mode", "kernel"]

BASE_METRICS = [
    "gpc__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
    "launch__waves_per_multiprocessor", "launch__registers_per_thread",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum",
    "dram__bytes_write.sum", "gpu__time_duration.sum",
    # extra context, cheap: launch shape and L2/atomic traffic
    "launch__grid_size", "launch__block_size", "launch__shared_mem_per_block_static",
    "launch__shared_mem_config_size",
    "sm__warps_active.avg.per_cycle_active", "smsp__cycles_active.avg", "sm__ctas_launched.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum", "lts__t_sectors_op_red.sum",
    "lts__t_sectors_op_atom.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "smsp__average_warp_latency_per_inst_issued.ratio",
    # issue pipes (added 2026-11-24): instructions per pipe and its busy cycles, for the ALU/FMA issue rates
    "sm__inst_executed_pipe_alu.sum", "sm__inst_executed_pipe_fma.sum", "sm__inst_executed_pipe_fmaheavy.sum",
    "sm__inst_executed_pipe_fmalite.sum", "sm__inst_executed_pipe_lsu.sum", "sm__inst_executed_pipe_uniform.sum",
    "sm__pipe_alu_cycles_active.sum", "sm__pipe_fma_cycles_active.sum", "sm__pipe_fmaheavy_cycles_active.sum",
    "sm__pipe_fmalite_cycles_active.sum", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
]

STALL_REASONS = ["long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle",
                 "math_pipe_throttle", "wait", "not_selected", "selected", "no_instruction",
                 "branch_resolving", "membar", "dispatch_stall", "drain"]

# Asked-for family first, then the names Nsight Compute's WarpStateStats section uses.
STALL_FAMILIES = ["smsp__average_warp_latency_issue_stalled_{}.ratio",
                  "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"]


def candidate_metrics() -> list[str]:
    names = list(BASE_METRICS)
    for fam in STALL_FAMILIES:
        names += [fam.format(r) for r in STALL_REASONS]
    return names


def query_base_names(ncu: str, chip: str = "gh100") -> tuple[set[str] | None, str]:
    """(base metric names ncu knows for the chip or None if the query failed, raw output)."""
    try:
        res = subprocess.run([ncu, "--query-metrics", "--chip", chip], capture_output=True,
                             text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    names = set()
    for line in res.stdout.splitlines():
        tok = line.split()
        if tok and re.fullmatch(r"[a-z0-9]+__[a-z0-9_]+", tok[0]):
            names.add(tok[0])
    return (names or None), res.stdout + res.stderr


def stall_name_map(base_names: set[str] | None) -> dict:
    """For each stall reason, the candidate names (per family) that exist on the chip."""
    out = {}
    for r in STALL_REASONS:
        fams = [fam.format(r) for fam in STALL_FAMILIES]
        out[r] = [m for m in fams if base_names is None or m.split(".")[0] in base_names]
    return out


def filter_existing(candidates: list[str], base_names: set[str] | None) -> tuple[list, list]:
    """(kept, dropped). launch__* are attributes, not always listed by --query-metrics: kept."""
    if base_names is None:
        return list(candidates), []
    kept, dropped = [], []
    for m in candidates:
        base = m.split(".")[0]
        (kept if base in base_names or base.startswith("launch__") else dropped).append(m)
    return kept, dropped


def bad_metrics_from_error(text: str, metrics: list[str]) -> list[str]:
    """Metric names that ncu's error output complains about."""
    bad = []
    for line in text.splitlines():
        if line.startswith("==ERROR==") and "metric" in line.lower():
            bad += [m for m in metrics if m in line or m.split(".")[0] in line]
    return sorted(set(bad))


def parse_raw_csv(text: str) -> list[dict]:
    """Rows of `ncu --import R --csv --page raw --print-units base`: [{metric: (value, unit)}]."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if len(lines) < 2:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header, units, data = rows[0], rows[1], rows[2:]
    if units and units[0].strip().isdigit():  # no units row
        units, data = [""] * len(header), rows[1:]
    out = []
    for row in data:
        rec = {}
        for name, unit, val in zip(header, units, row, strict=False):
            rec[name] = (_num(val), unit)
        out.append(rec)
    return out


def parse_details_csv(text: str) -> list[dict]:
    """Rows of `--page details --csv`: one line per (kernel, metric); regrouped by kernel ID."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if len(lines) < 2:
        return []
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    by_id: dict = {}
    for r in rows:
        rec = by_id.setdefault(r.get("ID"), {"ID": (_num(r.get("ID", "")), ""),
                                             "Kernel Name": (r.get("Kernel Name"), "")})
        if r.get("Metric Name"):
            rec[r["Metric Name"]] = (_num(r.get("Metric Value", "")), r.get("Metric Unit", ""))
    return [by_id[k] for k in sorted(by_id, key=lambda x: int(x) if str(x).isdigit() else 0)]


def _num(val: str):
    v = val.replace(",", "").strip()
    try:
        f = float(v)
    except ValueError:
        return val
    return int(f) if f.is_integer() and "." not in v and "e" not in v.lower() else f
