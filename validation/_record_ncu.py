"""Profiling phase of record.py: run the cases under Nsight Compute in chunks and parse the results.

Each chunk is one `ncu ... --export chunkN python3 validation/record.py --ncu-target --cases ...`
process (a crash or timeout loses one chunk, not all); the report is read back as CSV (raw page,
base units) and row i is matched to the i-th case in the chunk's order file.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from validation._ncu import (
    NCU_FLAGS,
    STALL_FAMILIES,
    bad_metrics_from_error,
    candidate_metrics,
    filter_existing,
    parse_details_csv,
    parse_raw_csv,
    query_base_names,
    stall_name_map,
)

RECORD = str(Path(__file__).resolve().parent / "record.py")


def run_group(cmd: list[str], timeout: float) -> tuple[int | None, str]:
    """Run cmd in its own process group; on timeout kill the whole group. (rc or None, output)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, (out or "") + "\n[record] ncu chunk killed: time budget\n"


def _chunks(names: list[str], n: int) -> list[list[str]]:
    n = max(1, min(n, len(names)))
    size = -(-len(names) // n)
    return [names[i:i + size] for i in range(0, len(names), size)]


def profile_all(ncu: str, names: list[str], ncu_dir: Path, deadline: float, n_chunks: int,
                wanted: list[str] | None = None):
    """Returns ({case: {"metrics": {...}, "launch": {...}}}, meta). wanted: the metrics to ask for (default: the
    suite's, `candidate_metrics`)."""
    wanted = wanted or candidate_metrics()
    ncu_dir.mkdir(parents=True, exist_ok=True)
    base, query_text = query_base_names(ncu)
    (ncu_dir / "query_metrics_gh100.txt").write_text(
        "\n".join(sorted(base)) + "\n" if base else query_text)
    metrics, dropped = filter_existing(wanted, base)
    meta = {"flags": NCU_FLAGS, "query_metrics_ok": base is not None,
            "requested": wanted, "dropped_not_on_chip": dropped, "dropped_by_error": [],
            "stall_name_map": stall_name_map(base),
            "stall_names_on_chip": sorted(n for n in (base or ()) if "stall" in n), "chunks": {}}
    results: dict = {}
    for ci, chunk in enumerate(_chunks(names, n_chunks)):
        rep, order_file = ncu_dir / f"chunk{ci}", ncu_dir / f"chunk{ci}.order"
        status = "not run"
        for attempt in range(3):
            remaining = deadline - time.time()
            if remaining < 20:
                status = "skipped: time budget"
                break
            cmd = [ncu, *NCU_FLAGS, "--metrics", ",".join(metrics), "--export", str(rep),
                   "--force-overwrite", sys.executable, RECORD, "--ncu-target",
                   "--cases", ",".join(chunk), "--order-file", str(order_file)]
            t0 = time.time()
            rc, log = run_group(cmd, remaining)
            (ncu_dir / f"chunk{ci}.log").write_text(" ".join(cmd) + "\n" + log)
            status = f"rc={rc} attempt={attempt} {time.time() - t0:.0f}s"
            print(f"[record] ncu chunk {ci} ({len(chunk)} cases): {status}", flush=True)
            bad = bad_metrics_from_error(log, metrics) if (rc != 0 or "==ERROR==" in log) else []
            if bad and rc is not None and attempt < 2:
                metrics = [m for m in metrics if m not in bad]
                meta["dropped_by_error"] += bad
                continue
            break
        meta["chunks"][ci] = {"cases": chunk, "status": status}
        report = Path(str(rep) + ".ncu-rep")
        if not report.exists():
            continue
        res = subprocess.run([ncu, "--import", str(report), "--csv", "--page", "raw",
                              "--print-units", "base"], capture_output=True, text=True, timeout=120)
        (ncu_dir / f"chunk{ci}.csv").write_text(res.stdout)
        rows = parse_raw_csv(res.stdout)
        if not rows:
            res = subprocess.run([ncu, "--import", str(report), "--csv", "--page", "details",
                                  "--print-units", "base"], capture_output=True, text=True, timeout=120)
            (ncu_dir / f"chunk{ci}.details.csv").write_text(res.stdout)
            rows = parse_details_csv(res.stdout)
        order = order_file.read_text().split() if order_file.exists() else []
        meta["chunks"][ci]["rows"] = len(rows)
        keep = {m.split(".")[0] for m in wanted}
        for name, row in zip(order, rows, strict=False):
            results[name] = _case_record(row, ci, keep)
            if "device_attributes" not in meta:
                meta["device_attributes"] = {k: v for k, (v, _) in row.items()
                                             if k.startswith("device__attribute_")}
    meta["metrics_used"] = metrics
    meta["stall_family_present"] = _stall_families(results)
    return results, meta


KEEP_PREFIXES = ("launch__", "profiler__replayer_passes", "sm__maximum_warps", "smsp__maximum_warps")


def _case_record(row: dict, chunk: int, keep: set[str]) -> dict:
    """Requested metrics (all their .sum/.avg/.min/.max forms) and launch__* attributes of one row;
    the device__attribute_* columns go to device.json once."""
    metrics, launch = {}, {}
    for key, (val, unit) in row.items():
        if "__" in key:
            if val not in ("", "n/a", None) and (key.split(".")[0] in keep or key.startswith(KEEP_PREFIXES)):
                metrics[key] = {"value": val, "unit": unit}
        else:
            launch[key] = val
    return {"metrics": metrics, "launch": launch, "chunk": chunk,
            "kernel_name": launch.get("Kernel Name")}


def _stall_families(results: dict) -> dict:
    seen = {fam: 0 for fam in STALL_FAMILIES}
    for rec in results.values():
        for fam in STALL_FAMILIES:
            prefix = fam.split("{}")[0]
            seen[fam] += sum(1 for m in rec["metrics"] if m.startswith(prefix))
    return seen


def summarize(records, prov, ncu_meta) -> dict:
    rows = {}
    for name, rec in records.items():
        m = rec.get("ncu", {}).get("metrics", {})
        rows[name] = {"passed": rec.get("check", {}).get("passed"),
                      "median_ns": rec.get("duration", {}).get("warm", {}).get("median_ns"),
                      "median_ns_l2_flushed": rec.get("duration", {}).get("l2_flushed", {}).get("median_ns"),
                      "ncu_gpu_time_ns": m.get("gpu__time_duration.sum", {}).get("value"),
                      "clock64": {k: {n: x for n, x in v.items() if n != "raw"}
                                  for k, v in rec.get("clock64", {}).items()},
                      "error": rec.get("error")}
    return {"cases": rows, "provenance": prov, "ncu": ncu_meta}


def print_table(records) -> None:
    print(f"{'case':22s} {'ok':>5s} {'median_us':>10s} {'flushed_us':>10s} {'ncu_us':>9s}")
    for name, rec in records.items():
        w = rec.get("duration", {}).get("warm", {}).get("median_ns") or float("nan")
        f = rec.get("duration", {}).get("l2_flushed", {}).get("median_ns") or float("nan")
        g = rec.get("ncu", {}).get("metrics", {}).get("gpu__time_duration.sum", {}).get("value")
        g = g if isinstance(g, (int, float)) else float("nan")
        print(f"{name:22s} {str(rec.get('check', {}).get('passed')):>5s} {w / 1e3:10.2f} {f / 1e3:10.2f} "
              f"{g / 1e3:9.2f}")


def profile_merge_cli(doc: str, profile, merge, argv: list[str], default_dest) -> int:
    """`profile OUTDIR ...` (on the device) or `merge OUTDIR [DEST]` (here) for a recorder whose profile(out,
    *rest) takes the remaining arguments as strings; anything else prints `doc`."""
    if len(argv) >= 2 and argv[0] == "profile":
        profile(Path(argv[1]), *argv[2:])
        return 0
    if len(argv) >= 2 and argv[0] == "merge":
        merge(Path(argv[1]), Path(argv[2]) if len(argv) > 2 else default_dest)
        return 0
    print(doc)
    return 2
