"""The Triton held-out programs as validation cases: profile them on the H100 with the validation suite's
whole Nsight Compute metric set (stall reasons included), then write one validation record per program
(`validation/data/h100/tri_<case>.json`, the schema `gpusim validate` replays; the cases themselves are
`validation/cases/heldout/triton.py`).

On the device (one call; the PTX files are the committed ones, loaded by CuPy as `run_h100.py` does):

    python3 validation/triton/record_cases.py profile OUTDIR

runs `run_h100.py --ncu` under ncu with the suite's flags (`validation/_ncu.py`: --clock-control none,
--cache-control all, kernel replay), each program launched once checked and NCU_REPEATS more times, and
writes OUTDIR/ncu_full.csv, launches.json, triton_ncu_run.json, ptxas.txt (`ptxas -v` of each PTX) and
nvidia_smi.txt. Here, without a GPU:

    python3 validation/triton/record_cases.py write OUTDIR [validation/data/h100]

merges them into one record per program: each metric is the median over the launches after the checked one.
These are held-out programs (group "programs"): never used for fitting.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

KERNELS = "regex:^(add_kernel|softmax_kernel|layer_norm_fwd|sum_kernel|histogram_kernel|matmul_kernel|attn_fwd_kernel)$"


def profile(out: Path, wanted: list[str] | None = None) -> None:
    """Profile every program under ncu with the suite's metrics (or `wanted`)."""
    from validation._ncu import NCU_FLAGS, candidate_metrics, filter_existing, query_base_names
    from validation.record import find_ncu
    out.mkdir(parents=True, exist_ok=True)
    ncu = find_ncu()
    base, _ = query_base_names(ncu)
    metrics, dropped = filter_existing(wanted or candidate_metrics(), base)
    (out / "metrics.json").write_text(json.dumps({"used": metrics, "dropped_not_on_chip": dropped}, indent=1))
    smi = subprocess.run("nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,"
                         "clocks.mem --format=csv", shell=True, capture_output=True, text=True)
    (out / "nvidia_smi.txt").write_text(smi.stdout + smi.stderr)
    lines = []
    for ptx in sorted(HERE.glob("*.ptx")):
        p = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(ptx), "-o", "/tmp/_tri.cubin"],
                           capture_output=True, text=True)
        lines.append(f"== {ptx.name}\n{p.stdout}{p.stderr}")
    (out / "ptxas.txt").write_text("\n".join(lines))
    ver = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    cmd = [ncu, *NCU_FLAGS, "--print-units", "base", "--csv", "--metrics", ",".join(metrics), "-k", KERNELS,
           "--log-file", str(out / "ncu_full.csv"), sys.executable, str(HERE / "run_h100.py"), "--ncu", str(out)]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    (out / "ncu_run.log").write_text(" ".join(cmd) + "\n" + p.stdout[-20000:] + p.stderr[-20000:])
    (out / "ncu_meta.json").write_text(json.dumps({"flags": NCU_FLAGS, "ncu_version": ver[-1] if ver else "",
                                                   "rc": p.returncode, "seconds": round(time.time() - t0, 1)}))
    print(f"ncu rc={p.returncode} in {time.time() - t0:.0f}s", flush=True)


def _num(v: str):
    v = v.replace(",", "").strip()
    try:
        return float(v)
    except ValueError:
        return v


def read_ncu(out: Path) -> dict:
    """{case: [per launch {metric: (value, unit)}]} from the CSV and the launch order."""
    text = (out / "ncu_full.csv").read_text()
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    per_id: dict = {}
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        per_id.setdefault(int(r["ID"]), {})[r["Metric Name"]] = (_num(r["Metric Value"]), r["Metric Unit"])
    order = json.loads((out / "launches.json").read_text())
    ids = sorted(per_id)
    if len(ids) != len(order):
        raise SystemExit(f"{len(ids)} profiled launches, {len(order)} expected (launches.json)")
    runs: dict = {}
    for i, case in zip(ids, order):
        runs.setdefault(case, []).append(per_id[i])
    return runs


def registers(out: Path) -> dict:
    """{ptx file: registers per thread} from `ptxas -v`."""
    regs, cur = {}, None
    for ln in (out / "ptxas.txt").read_text().splitlines():
        if ln.startswith("== "):
            cur = ln[3:].strip()
        m = re.search(r"Used (\d+) registers", ln)
        if m and cur:
            regs[cur] = int(m.group(1))
    return regs


def write(out: Path, dest: Path) -> None:
    import numpy as np

    from validation.cases.triton_programs import GROUP, PREFIX, manifest
    run = json.loads((out / "triton_ncu_run.json").read_text())
    meta = json.loads((out / "ncu_meta.json").read_text())
    regs = registers(out)
    dest.mkdir(parents=True, exist_ok=True)
    for case, launches in read_ncu(out).items():
        e, r = manifest()[case], run["cases"][case]
        rest = launches[1:] or launches
        metrics = {}
        for k in rest[0]:
            vals = [x[k][0] for x in rest if k in x]
            if vals and all(isinstance(v, float) for v in vals):
                v = float(np.median(vals))
                metrics[k] = {"value": int(v) if v.is_integer() else v, "unit": rest[0][k][1]}
            else:
                metrics[k] = {"value": vals[0] if vals else None, "unit": rest[0][k][1]}
        rec = {"case": PREFIX + case, "group": GROUP,
               "description": f"Triton program {e['program']} ({e['kernel']}, size {e['size']}, "
                              f"num_warps {e['num_warps']}, num_stages {e['num_stages']}), held out",
               "grid": e["grid"], "block": [e["block"], 1, 1],
               "check": {"passed": all(c["ok"] for c in r["checks"].values()), "outputs": r["checks"]},
               "kernel": {"ptx_file": f"validation/triton/{e['ptx_file']}", "ptx_sha256": r["ptx_sha256"],
                          "function": e["kernel"], "regs_per_thread": regs.get(e["ptx_file"]),
                          "shared_dynamic": e["shared"], "compiled_by": "Triton 3.9 here (build.py), sm_90a"},
               "ncu": {"metrics": metrics, "launches_profiled": len(launches),
                       "value": "median over the launches after the checked one", "kernel_name": e["kernel"]},
               "provenance": {"device": run["provenance_before"], "ncu_flags": meta["flags"],
                              "ncu_version": meta["ncu_version"],
                              "loaded_with": run.get("loaded_with"),
                              "recorded_by": "validation/triton/record_cases.py"}}
        (dest / f"{PREFIX}{case}.json").write_text(json.dumps(rec, indent=1) + "\n")
        cycles = metrics["gpc__cycles_elapsed.max"]["value"]
        print(f"{PREFIX + case:24s} cycles {cycles} regs {regs.get(e['ptx_file'])}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) >= 2 and argv[0] == "profile":
        profile(Path(argv[1]))
        return 0
    if len(argv) >= 2 and argv[0] == "write":
        write(Path(argv[1]), Path(argv[2]) if len(argv) > 2 else ROOT / "validation" / "data" / "h100")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
