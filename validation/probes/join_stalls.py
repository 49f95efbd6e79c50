"""Probe (device, ncu; also runs in gpusim): how the H100 samples the time a warp loses at ptxas's convergence
barrier (BSYNC), per stall reason.

Probe bsync_cost timed the join with %clock64 (a skipped `if` costs 25 cycles a trip beyond the plain loop, and
gpusim's `pipes.lat_bsync` = 17 is fitted on it), but a clock says nothing of the reason the warp is sampled
with. The per-SASS tables of whole programs (data/h100/ncu/sass_stalls*/) show branch_resolving and wait on the
instruction after each BSYNC; a program's own samples are not a measurement to fit on. Here the same four
kernels as bsync_cost (one warp per SM, 132 SMs, a loop of STEPS trips; the forms plain, skipped, taken and
divergent) run under ncu, which gives each kernel's stall reasons per issue (smsp__average_warps_issue_stalled_
<reason>_per_issue_active) and its instructions. Times the instructions and divided by the trips, that is the
cycles per trip the warp spends in each reason; a form's cycles beyond the plain form's are what its branch and
join cost, reason by reason.

    python3 validation/probes/join_stalls.py --out validation/data/h100/probe_join_stalls_h200.json   (device)
    python3 validation/probes/join_stalls.py --gpusim [--set KEY=VALUE]   (gpusim's side against the record)
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import kernel_code, ncu_out, ncu_record, sim_options, under_ncu, write  # noqa: E402
from validation.probes.bsync_cost import FORMS, STEPS, bsync_if, bsync_plain  # noqa: E402

GRID, BLOCK = 132, 32
REASONS = ("branch_resolving", "wait", "selected", "not_selected", "math_pipe_throttle", "short_scoreboard",
           "no_instruction", "imc_miss", "dispatch_stall", "mio_throttle", "barrier", "long_scoreboard", "drain",
           "misc")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in REASONS]
                   + ["smsp__inst_executed.sum", "gpc__cycles_elapsed.max"])
RECORD = "validation/data/h100/probe_join_stalls_h200.json"


def _k(form: int) -> int:
    return {1: 0, 3: 16}.get(form, 32)


def _args(form: int, grid: int) -> tuple:
    return (np.int32(_k(form)), np.zeros(grid * BLOCK, np.int32), np.zeros((grid * BLOCK // 32, 2), np.int64))


def per_trip(metrics: dict, warps: int) -> dict:
    """{reason: cycles a warp spends in it per trip}: the per-issue ratio times the instructions issued, over the
    warps' trips (the loop's prologue and epilogue are in it too; they cancel between forms)."""
    inst = metrics.get("smsp__inst_executed.sum") or 0.0
    out = {r: metrics.get(f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio", 0.0) * inst
           / (warps * STEPS) for r in REASONS}
    out["instructions"] = inst / (warps * STEPS)
    return out


def inner():
    from numba import cuda
    kernels = {0: cuda.jit(bsync_plain), 1: cuda.jit(bsync_if)}
    for form in range(len(FORMS)):
        host = _args(form, GRID)
        dev = [cuda.to_device(x) if isinstance(x, np.ndarray) else x for x in host]
        kernels[min(form, 1)][GRID, BLOCK](*dev)
        cuda.synchronize()
        print(f"form {FORMS[form]} k {_k(form)}", flush=True)
    print("code", json.dumps({"plain": kernel_code(kernels[0]), "if": kernel_code(kernels[1])}), flush=True)


def table(rows: list, sim: list | None = None) -> None:
    """Per form, per reason: cycles per trip (GPU / gpusim), and beyond the plain form."""
    base = rows[0]
    sbase = sim[0] if sim else None
    for i, r in enumerate(rows):
        s = sim[i] if sim else None
        shown = [x for x in REASONS if max(abs(r[x]), abs(s[x]) if s else 0) >= 0.5]
        cells = []
        for x in shown:
            gpu = f"{r[x]:.1f} ({r[x] - base[x]:+.1f})"
            cells.append(f"{x} {gpu}" + (f" / {s[x]:.1f} ({s[x] - sbase[x]:+.1f})" if s else ""))
        print(f"{r['form']:9s} inst {r['instructions']:.1f}" + (f"/{s['instructions']:.1f}" if s else "") + "  "
              + ", ".join(cells))


def in_gpusim(argv: list) -> list:
    """The four forms in gpusim (h100 preset with any overrides, SASS model, one SM: one warp per SM, so the
    other SMs change nothing), as `per_trip` rows."""
    import gpusim
    from gpusim.spec import override
    _, gpu, _ = sim_options(argv)
    gpu = override(gpu, {"n_sm": 1, "gigathread.gpcs": 1})
    rows = []
    for form in range(len(FORMS)):
        r = gpusim.launch(bsync_plain if form == 0 else bsync_if, 1, BLOCK, *_args(form, 1), gpu=gpu,
                          mode="timing", model="sass")
        rows.append({"form": FORMS[form], **per_trip(r.metrics, 1), "cycles": r.cycles})
    return rows


def main():
    if "--gpusim" in sys.argv:
        root = Path(__file__).resolve().parents[2]
        rec = json.loads((root / RECORD).read_text())["results"] if (root / RECORD).exists() else None
        sim = in_gpusim(sys.argv[1:])
        table(rec or sim, sim if rec else None)
        return
    out = ncu_out(inner, "probe_join_stalls.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:bsync", METRICS)
    results = [{"form": FORMS[i], "kernel": name, "k": _k(i), **per_trip(m, GRID), "metrics": m}
               for i, (name, m) in enumerate(launches)]
    code = next((json.loads(ln[5:]) for ln in stdout.splitlines() if ln.startswith("code ")), {})
    rec = ncu_record("validation/probes/join_stalls.py", t0, results, stdout, stderr, "form", grid=GRID,
                     block=BLOCK, steps=STEPS)
    rec["code"] = code
    rec["per_sass"] = {FORMS[i]: per_sass(i) for i in range(len(FORMS))}
    write(out, rec)
    table(results)


def per_sass(form: int) -> list:
    """The form's kernel under ncu's warp-state sampling (every 32 cycles) and SourceCounters: per SASS
    instruction in address order, [SASS text, instructions executed, {reason: samples}] (reasons with none left
    out). Device only."""
    import csv
    import io
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rep = f"{tmp}/r{form}"
        subprocess.run(["ncu", "--clock-control", "none", "--cache-control", "all", "--section", "SourceCounters",
                        "--section", "WarpStateStats", "--warp-sampling-interval", "0", "-k", "regex:bsync",
                        "--launch-skip", str(form), "--launch-count", "1", "--export", rep, "-f", sys.executable,
                        __file__, "--inner"], capture_output=True, text=True)
        text = subprocess.run(["ncu", "--import", rep + ".ncu-rep", "--page", "source", "--csv", "--print-source",
                               "sass"], capture_output=True, text=True).stdout
    rows = list(csv.reader(io.StringIO(text)))
    head = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
    if head is None:
        return [["no source page", 0, {"ncu_output": text[-500:]}]]
    col = {c: i for i, c in enumerate(rows[head])}
    out = []
    for r in rows[head + 1:]:
        if len(r) < len(col):
            continue
        cells = {c[6:]: r[i].replace(",", "") for c, i in col.items() if c.startswith("stall_") and "(" not in c}
        stalls = {c: int(v) for c, v in cells.items() if v.isdigit() and int(v)}
        inst = r[col["Instructions Executed"]].replace(",", "")
        out.append([r[col["Source"]].strip(), int(inst) if inst.isdigit() else 0, stalls])
    return out


if __name__ == "__main__":
    main()
