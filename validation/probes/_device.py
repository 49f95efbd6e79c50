"""What the device probes share: where a probe ran (the GPU, its driver, numba-cuda or ncu, the time), the
numba.cuda launch and record of the clock probes, and the ncu run of the counter probes (device only)."""
from __future__ import annotations

import datetime
import subprocess

SMI = "nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv"


def _sh(command: str) -> str:
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout.strip()


def provenance() -> dict:
    import numba_cuda
    from numba import cuda
    dev = cuda.get_current_device()
    try:
        driver = list(cuda.cudadrv.driver.driver.get_version())
    except Exception as e:     # provenance only: never fail the probe over it
        driver = f"unknown ({e})"
    return {"date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "gpu_name": dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name),
            "compute_capability": list(dev.compute_capability), "driver": driver,
            "numba_cuda": numba_cuda.__version__, "clock_control": "none (clocks left alone)", "gpu": _sh(SMI)}


def kernel_code(dispatcher) -> dict:
    """The PTX and SASS a numba.cuda dispatcher ran (its compiled signatures), for a probe's record."""
    def text(x):
        return "\n".join(x.values()) if isinstance(x, dict) else str(x)
    out = {"ptx": text(dispatcher.inspect_asm())}
    try:
        out["sass"] = text(dispatcher.inspect_sass())
    except Exception as e:     # nvdisasm missing: provenance only
        out["sass"] = f"unavailable ({e})"
    return out


def gpusim_h100(sets: list) -> tuple:
    """A probe's `--set KEY=VALUE` options (VALUE in JSON) as overrides of gpusim's h100 preset: (the GPU spec,
    the overrides)."""
    import json

    from gpusim.presets import apply_overrides, get_preset
    over = {k: json.loads(v) for k, v in (s.split("=", 1) for s in sets)}
    return apply_overrides(get_preset("h100"), over), over


def device_launch(runs: int = 3):
    """A `launch(kernel, grid, block, *args)` for a probe's `run`: the kernel is compiled with numba.cuda and run
    `runs` times on the same device arrays (the first ones warm the code and caches; the last one's results
    are copied back into the host arrays). Scalars pass as they are."""
    import numpy as np
    from numba import cuda
    compiled = {}

    def launch(kernel, grid, block, *host):
        k = compiled.setdefault(kernel, cuda.jit(kernel))
        dev = [cuda.to_device(x) if isinstance(x, np.ndarray) else x for x in host]
        for _ in range(runs):
            k[grid, block](*dev)
        cuda.synchronize()
        for x, d in zip(host, dev):
            if isinstance(x, np.ndarray):
                d.copy_to_host(x)

    return launch


def out_path() -> str:
    """The probe's `--out PATH` (the JSON file its results go to)."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    return ap.parse_args().out


def clock_probe(probe: str, doc: str, make_rows, settings=None, argv=None, **extra_args) -> None:
    """The command line of a clock probe with rows of results: `--out PATH`, `--gpusim` (gpusim's h100, SASS
    model, `--set KEY=VALUE` overrides) or the device (numba.cuda, `device_launch`), and `extra_args` (name ->
    (type, default)). `make_rows(launch, args)` yields the result dicts; they are printed as they come and
    written to --out with where they were taken (`measure` on the device, with `settings` and the extra args)."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpusim", action="store_true", help="run in gpusim (h100, SASS model) instead of the GPU")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="gpusim: a preset override")
    for name, (typ, default) in extra_args.items():
        ap.add_argument(f"--{name}", type=typ, default=default)
    args = ap.parse_args(argv)
    if args.gpusim:
        import gpusim
        gpu, over = gpusim_h100(args.set)

        def launch(kernel, grid, block, *host):
            return gpusim.launch(kernel, grid, block, *host, gpu=gpu, mode="timing", model="sass")
        record = {"probe": probe, "where": "gpusim (h100, SASS model)", "overrides": over, "runs": []}
        for r in make_rows(launch, args):
            record["runs"].append(r)
            print(r, flush=True)
    else:
        record = measure(probe, doc, make_rows(device_launch(), args),
                         **(settings or {}), **{k: getattr(args, k) for k in extra_args})
    write(args.out, record)


def measure(probe: str, doc: str, runs, **settings) -> dict:
    """Run a clock probe's measurements (`runs`: an iterable of result dicts, each printed as it comes)
    and return the probe's record: its name, the first paragraph of its docstring `doc`, `settings`,
    the results and where they were taken (`provenance`)."""
    results = []
    for res in runs:
        results.append(res)
        print(res, flush=True)
    return {"probe": probe, "description": doc.split("\n\n")[0], **settings, "runs": results,
            "provenance": provenance()}


def write(path: str, record: dict) -> None:
    """A probe's record as indented JSON at `path` (its folder made if need be)."""
    import json
    from pathlib import Path
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def under_ncu(script: str, kernels: str, metrics: str) -> tuple[list, str, str]:
    """Run `script --inner` under ncu (clocks left alone, caches flushed before each profiled launch) for the
    kernels matching `kernels` (ncu's -k): per profiled launch in order, (kernel name, {metric: value}); and
    ncu's stdout and stderr. PROBE_NCU_CACHE_CONTROL=none leaves the caches as the launches before left them."""
    import csv
    import io
    import os
    import subprocess
    import sys
    cache = os.environ.get("PROBE_NCU_CACHE_CONTROL", "all")
    cmd = ["ncu", "--clock-control", "none", "--cache-control", cache, "-k", kernels, "--metrics", metrics,
           "--csv", "--print-units", "base", sys.executable, script, "--inner"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO("\n".join(ln for ln in p.stdout.splitlines() if ln.startswith('"')))))
    launches: dict = {}
    for r in rows:
        name, values = launches.setdefault(int(r["ID"]), (r["Kernel Name"].split("(")[0], {}))
        values[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [launches[i] for i in sorted(launches)], p.stdout, p.stderr


def ncu_provenance() -> dict:
    """Where an ncu probe ran: the time, the GPU, its driver and clocks, ncu's and nvcc's versions."""
    import time
    return {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "gpu": _sh(SMI),
            "ncu": _sh("ncu --version | tail -1"), "nvcc": _sh("nvcc --version | tail -1")}


def ncu_out(inner, default: str) -> str | None:
    """An ncu probe's command line: with `--inner` (how `under_ncu` runs it) call `inner` and return None;
    else return its `--out` path."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--inner", action="store_true")
    ap.add_argument("--out", default=default)
    a = ap.parse_args()
    if a.inner:
        inner()
        return None
    return a.out


def ncu_record(script: str, t0: float, results: list, stdout: str, stderr: str, inner_prefix: str,
               **settings) -> dict:
    """An ncu probe's record: where it ran (`ncu_provenance`, the script, `settings`, the seconds since t0),
    its results, the lines its inner run printed (those starting with `inner_prefix`) and ncu's stderr tail."""
    import time
    return {"provenance": {**ncu_provenance(), "script": script, **settings, "wall_s": round(time.time() - t0, 1)},
            "results": results, "inner_output": [ln for ln in stdout.splitlines() if ln.startswith(inner_prefix)],
            "ncu_stderr_tail": stderr[-2000:]}


def ncu_probe(file: str, description: str, kernels: str, metrics: str, inner, on_gpusim, rows, code) -> dict | None:
    """The command line of an ncu probe whose kernels also run in gpusim: `--inner` (how `under_ncu` runs it:
    call `inner`, return None), `--gpusim [--set KEY=VALUE]` (`on_gpusim(gpu)`: its result rows on gpusim's h100,
    SASS model) or the device (the launches of `kernels` under ncu with `metrics`, made into result rows by
    `rows(launches)`, and `code()`: the PTX/SASS that ran). The record (written to `--out` if given) is returned."""
    import argparse
    import json
    import os
    import time
    from pathlib import Path
    ap = argparse.ArgumentParser()
    ap.add_argument("--inner", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--gpusim", action="store_true", help="run in gpusim (h100, SASS model) instead of the GPU")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="gpusim: a preset override")
    args = ap.parse_args()
    if args.inner:
        inner()
        return None
    name = Path(file).stem
    if args.gpusim:
        gpu, over = gpusim_h100(args.set)
        doc = {"where": "gpusim (h100, SASS model)", "overrides": over, "results": on_gpusim(gpu)}
    else:
        t0 = time.time()
        launches, stdout, stderr = under_ncu(file, kernels, metrics)
        doc = ncu_record(f"validation/probes/{name}.py", t0, rows(launches), stdout, stderr, "variant")
        doc["code"] = code()
        doc["ncu_cache_control"] = os.environ.get("PROBE_NCU_CACHE_CONTROL", "all")
    doc.update({"probe": name, "description": description})
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def probe_main(inner, in_gpusim, table, record: str) -> bool:
    """The command line a probe with an ncu `--inner` run, a gpusim side and a table shares: `--inner`, `--read
    PATH` (a record's table, with gpusim's side if it holds one) and `--gpusim` (gpusim's side against the
    committed `record` under validation/data/h100). True when one of them ran; else the caller records on the GPU."""
    import json
    import sys
    from pathlib import Path
    if "--inner" in sys.argv:
        inner()
    elif len(sys.argv) > 2 and sys.argv[1] == "--read":
        rec = json.loads(Path(sys.argv[2]).read_text())
        table(rec, rec.get("gpusim_side"))
    elif "--gpusim" in sys.argv:
        sim = in_gpusim(sys.argv[1:])
        path = Path(__file__).resolve().parents[1] / "data" / "h100" / record
        table(json.loads(path.read_text()) if path.exists() else {}, sim["gpusim"])
    else:
        return False
    return True


def cuda_module(src: str, name: str) -> dict:
    """A probe's CUDA C compiled for gpusim (nvcc to PTX): its kernels by name. Without nvcc on PATH, or where it
    fails, the probe stops with gpusim's message (exit status 2) rather than a traceback."""
    import sys
    import tempfile
    from pathlib import Path

    from gpusim.errors import GpusimError
    from gpusim.kernels import load_cuda
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / name
        cu.write_text(src)
        try:
            return load_cuda(cu)
        except GpusimError as e:
            print(f"gpusim: {e}", file=sys.stderr)
            raise SystemExit(2) from None


def one_sm(gpu):
    """`gpu` cut to one SM: an ncu probe's gpusim side runs one SM's share of a grid every SM runs alike."""
    from gpusim.presets import apply_overrides
    return apply_overrides(gpu, {"n_sm": 1, "gigathread.gpcs": 1})


def sim_row(result, stalls, **fields) -> dict:
    """A gpusim launch's result as an ncu probe's row: `fields`, one SM, its cycles and instructions as ncu's
    gpc__cycles_elapsed.max and smsp__inst_executed.sum, and each of `stalls` per issue as ncu names it."""
    m = result.metrics
    row = {**fields, "sms": 1, "gpc__cycles_elapsed.max": result.cycles,
           "smsp__inst_executed.sum": m.get("smsp__inst_executed.sum")}
    for s in stalls:
        key = f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"
        row[key] = m.get(key)
    return row


def sim_options(argv: list, **defaults) -> tuple:
    """A probe's `--gpusim` options: `--NAME VALUE` for each of `defaults` (converted as its default is: int, or a
    comma-separated list), and any `--set KEY=VALUE` (a JSON value) as overrides of the h100 preset. Returns (the
    options by name, the preset with the overrides, the overrides)."""
    import json

    from gpusim.presets import apply_overrides, get_preset
    opts, over = dict(defaults), {}
    for i, a in enumerate(argv[:-1]):
        name, value = a[2:], argv[i + 1]
        if name == "set":
            k, v = value.split("=", 1)
            over[k] = json.loads(v)
        elif a.startswith("--") and name in opts:
            opts[name] = int(value) if isinstance(defaults[name], int) else value.split(",")
    return opts, apply_overrides(get_preset("h100"), over), over


def cubin_sass(src: str, name: str) -> str:
    """The SASS of a probe's CUDA C as nvcc builds it for sm_90 (cuobjdump, with the control words), for the
    probe's record (device only: nvcc and cuobjdump on PATH)."""
    import subprocess
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / name
        cu.write_text(src)
        p = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", f"{tmp}/k.cubin", str(cu)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return f"nvcc failed: {p.stderr[-500:]}"
        return subprocess.run(["cuobjdump", "-sass", f"{tmp}/k.cubin"], capture_output=True, text=True).stdout


def nvcc_ptx(src: str, name: str) -> str:
    """A probe's CUDA C compiled to PTX by the nvcc on PATH (sm_90, with line info): the text both sides run, the
    device through `cupy_function`, gpusim through `gpusim.load_ptx`."""
    import subprocess
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        cu, out = Path(tmp) / name, Path(tmp) / "k.ptx"
        cu.write_text(src)
        subprocess.run(["nvcc", "-arch=sm_90", "-ptx", "-lineinfo", "-o", str(out), str(cu)], check=True)
        return out.read_text()


def cupy_function(ptx: str, kernel: str):
    """Kernel `kernel` of PTX text (or a .ptx path), loaded with CuPy: the driver JIT-compiles it, as for any PTX
    (device only)."""
    import tempfile
    from pathlib import Path

    import cupy as cp
    if isinstance(ptx, Path):
        return cp.RawModule(path=str(ptx)).get_function(kernel)
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "k.ptx"
        p.write_text(ptx)
        return cp.RawModule(path=str(p)).get_function(kernel)


def xu_rate_results(order: list, launches: list) -> list:
    """A chains probe's ncu launches (`under_ncu`) as result rows, one per (op, chains) of `order`, each with its
    cycles per xu-pipe instruction per sub-partition: one wave, so every sub-partition (132 SMs x 4) runs its
    share of the xu instructions over the kernel's cycles."""
    results = []
    for (op, k), (name, m) in zip(order, launches):
        xu = m.get("smsp__inst_executed_pipe_xu.sum") or 0
        cyc = m.get("gpc__cycles_elapsed.max") or 0
        per = cyc / (xu / (132 * 4)) if xu else None
        results.append({"kernel": name, "op": op, "chains": k, **m, "cycles_per_xu_inst_per_smsp": per})
    return results
