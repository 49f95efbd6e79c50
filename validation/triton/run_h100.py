"""Records the Triton programs' kernels on a real GPU: CuPy loads the PTX compiled here (build.py, Triton 3.9
sm_90a; the device's Triton is not used), launches each with the manifest's grid, block, dynamic shared memory
and arguments (inputs made by the program's own `inputs(size, seed=0)`), checks the outputs against the
program's numpy reference, and times REPEATS launches with CUDA events. Run it under ncu for the cycles:

    python3 validation/triton/run_h100.py OUTDIR [case ...]                       # check + events -> OUTDIR/triton.json
    ncu --clock-control none --metrics gpc__cycles_elapsed.max,gpu__time_duration.sum --csv \
        -k regex:'^(add_kernel|...)$' --log-file OUTDIR/ncu.csv python3 validation/triton/run_h100.py --ncu OUTDIR
    python3 validation/triton/run_h100.py --merge OUTDIR                          # ncu.csv -> triton.json

Under --ncu each case is launched NCU_REPEATS times after the checked launch, in manifest order; launches.json
names the case of every launch, so the ncu rows (in launch order) are matched to cases by position.
"""
import csv
import hashlib
import importlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
from manifest_args import make_args  # noqa: E402

REPEATS = int(os.environ.get("TRITON_REPEATS", 20))
NCU_REPEATS = int(os.environ.get("TRITON_NCU_REPEATS", 5))


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"error: {e}"


def provenance(cp):
    props = cp.cuda.runtime.getDeviceProperties(0)
    return {
        "nvidia_smi": sh("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,"
                         "power.draw,temperature.gpu,pstate --format=csv"),
        "cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cuda_driver": cp.cuda.runtime.driverGetVersion(), "device": props["name"].decode(),
        "sm_count": props["multiProcessorCount"], "numpy": np.__version__,
        "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def run_case(cp, name, e, ncu):
    prog = importlib.import_module(e["module"])
    inp = prog.inputs(e["size"], seed=0)
    ptx = HERE / e["ptx_file"]
    mod = cp.RawModule(path=str(ptx))
    fn = mod.get_function(e["kernel"])
    if e["shared"] > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = e["shared"]
    args, outs = make_args(e, inp, to_dev=cp.asarray)
    grid, block = tuple(e["grid"]), (e["block"],)
    fn(grid, block, tuple(args), shared_mem=e["shared"])
    cp.cuda.runtime.deviceSynchronize()
    ref = prog.reference(inp)
    checks = {}
    for k, arr in outs.items():
        got = cp.asnumpy(arr).astype(np.float64)
        want = ref[k].astype(np.float64)
        checks[k] = {"ok": bool(np.allclose(got, want, rtol=e["rtol"], atol=e["atol"], equal_nan=True)),
                     "max_abs_err": float(np.nanmax(np.abs(got - want)))}
    rec = {"checks": checks, "ptx_sha256": hashlib.sha256(ptx.read_bytes()).hexdigest()}
    n = NCU_REPEATS if ncu else REPEATS
    ms = []
    for _ in range(n):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        fn(grid, block, tuple(args), shared_mem=e["shared"])
        e1.record()
        e1.synchronize()
        ms.append(cp.cuda.get_elapsed_time(e0, e1))
    rec["event_ms"] = ms
    rec["event_ms_median"] = float(np.median(ms))
    rec["launches"] = 1 + n
    return rec


def merge(out):
    rec = json.loads((out / "triton.json").read_text())
    order = json.loads((out / "launches.json").read_text())
    text = (out / "ncu.csv").read_text()
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    per_id = {}
    for r in rows:
        per_id.setdefault(int(r["ID"]), {})[r["Metric Name"]] = (float(r["Metric Value"].replace(",", "")),
                                                                  r["Metric Unit"], r["Kernel Name"])
    ids = sorted(per_id)
    assert len(ids) == len(order), f"{len(ids)} ncu launches, {len(order)} expected"
    for i, case in zip(ids, order):
        c = rec["cases"][case]
        m = per_id[i]
        c.setdefault("ncu", []).append({k: v[0] for k, v in m.items()})
        c.setdefault("ncu_units", {k: v[1] for k, v in m.items()})
    for case, c in rec["cases"].items():
        runs = c.get("ncu", [])
        first = runs[:1]          # the checked launch
        rest = runs[1:]
        c["ncu_first_launch"] = first[0] if first else None
        if rest:
            c["gpc_cycles_median"] = float(np.median([r["gpc__cycles_elapsed.max"] for r in rest]))
            c["gpu_time_median"] = float(np.median([r["gpu__time_duration.sum"] for r in rest]))
    (out / "triton.json").write_text(json.dumps(rec, indent=1))
    for case, c in rec["cases"].items():
        every = [r['gpc__cycles_elapsed.max'] for r in c.get('ncu', [])]
        print(f"{case:18s} cycles={c.get('gpc_cycles_median')} time={c.get('gpu_time_median')} "
              f"{c.get('ncu_units', {}).get('gpu__time_duration.sum')} all={every}")


def main():
    argv = sys.argv[1:]
    if "--merge" in argv:
        argv.remove("--merge")
        return merge(Path(argv[0]))
    ncu = "--ncu" in argv
    if ncu:
        argv.remove("--ncu")
    out = Path(argv[0])
    manifest = json.loads((HERE / "manifest.json").read_text())
    names = argv[1:] or list(manifest)
    import cupy as cp
    fname = "triton_ncu_run.json" if ncu else "triton.json"
    rec = {"loaded_with": "cupy.RawModule(path=ptx) (driver JIT of the PTX)", "repeats": REPEATS,
           "ncu_repeats": NCU_REPEATS, "provenance_before": provenance(cp), "cases": {}}
    order = []
    for name in names:
        e = manifest[name]
        t0 = time.time()
        try:
            r = run_case(cp, name, e, ncu)
            order += [name] * r["launches"]
            rec["cases"][name] = dict(e, **r)
            print(f"{name:18s} {e['kernel']:18s} checks={r['checks']} event_ms={r['event_ms_median']:.4f} "
                  f"({time.time() - t0:.1f}s)", flush=True)
        except Exception as ex:  # noqa: BLE001
            rec["cases"][name] = dict(e, error=repr(ex))
            print(f"{name:18s} ERROR {ex!r}", flush=True)
            if "illegal" in repr(ex).lower() or "launch failed" in repr(ex).lower():
                break
    rec["provenance_after"] = provenance(cp)
    (out / fname).write_text(json.dumps(rec, indent=1))
    if ncu:
        (out / "launches.json").write_text(json.dumps(order))


if __name__ == "__main__":
    main()
