#!/usr/bin/env python3
"""Record validation measurements of every case on a real GPU (run on the device machine).

    python3 validation/record.py --out validation/data/h100

For each case: check the outputs against the numpy reference (pass/fail, sha256 checksums); time
the kernel with CUDA events (3 warm-ups, then the median of --reps launches, and again with the L2
flushed before each launch by writing a 256 MiB buffer and then reading another (so the L2 holds clean lines of
neither the case's arrays, as after ncu's cache control); a %clock64 spin kernel before each timed
launch hides the host's launch overhead); read the in-kernel %clock64 figures (first launch, after
the warm loop, after the flushed loop); store the PTX (numba compile_ptx, cc 9.0), SASS and the
compiler's resource use; then profile one launch of each case under Nsight Compute by re-running
this script with --ncu-target under `ncu` (see validation/_ncu.py). Writes <out>/<case>.json,
<out>/ptx/<case>.ptx, <out>/sass/<case>.sass, <out>/ncu/*, <out>/device.json, <out>/summary.json.
"""
from __future__ import annotations

import argparse
import gc
import glob
import hashlib
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

if not hasattr(np, "row_stack"):  # numpy 2.5 dropped it; numba-cuda 0.30 calls it at import
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402

from validation import _device, _ncu  # noqa: E402
from validation._record_ncu import print_table, profile_all, summarize  # noqa: E402
from validation.cases import all_cases  # noqa: E402
from validation.cases._intrinsics import clock64  # noqa: E402
from validation.ptx import NORMALIZATION, case_ptx, case_signature, normalize_ptx  # noqa: E402

FLUSH_BYTES = 256 << 20
DELAY_CYCLES = 400_000
SASS_NOTE = ("ncu's smsp__inst_executed / smsp__thread_inst_executed count executed SASS (machine) "
             "instructions after ptxas, not PTX instructions; see sass/<case>.sass for the code.")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Launcher:
    """launch(kernel, grid, block, *args) with numba.cuda host-array semantics; keeps the last launch."""

    def __init__(self):
        from numba.cuda.dispatcher import CUDADispatcher

        self.cuda, self.dispatcher_type, self.jitted, self.last = cuda, CUDADispatcher, {}, None

    def kernel(self, fn):
        if isinstance(fn, self.dispatcher_type):
            return fn
        if fn not in self.jitted:
            self.jitted[fn] = self.cuda.jit(fn)
        return self.jitted[fn]

    def __call__(self, kernel, grid, block, *args):
        k = self.kernel(kernel)
        dargs = [self.cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        k[grid, block](*dargs)
        self.cuda.synchronize()
        for a, d in zip(args, dargs, strict=True):
            if isinstance(a, np.ndarray):
                d.copy_to_host(a)
        self.last = (k, grid, block, dargs)


def _delay(cycles):
    t0 = clock64()
    while clock64() - t0 < cycles:
        pass


def _flush(buf, v):
    i = cuda.grid(1)
    while i < buf.size:
        buf[i] = v
        i += cuda.gridsize(1)


def _sweep(buf, sink):
    i = cuda.grid(1)
    s = 0
    while i < buf.size:
        s += buf[i]
        i += cuda.gridsize(1)
    if s == -1:             # never: keeps the loads
        sink[0] = s


class Timer:
    def __init__(self):
        self.cuda = cuda
        self.delay = cuda.jit(_delay)
        self.flusher = cuda.jit(_flush)
        self.buf = cuda.device_array(FLUSH_BYTES // 4, np.int32)
        # Writing leaves the L2 full of dirty lines, whose write-backs then compete with the launch's reads (on an
        # H200 a CTA's warps got their DRAM data 2.3-3x as far apart after the write alone as after the write and
        # this read: validation/probes/cta_spread.py). Reading a second buffer leaves clean lines, as ncu does.
        self.sweeper = cuda.jit(_sweep)
        self.clean = cuda.to_device(np.zeros(FLUSH_BYTES // 4, np.int32))
        self.sink = cuda.device_array(1, np.int32)
        try:
            self.e0, self.e1 = cuda.event(timing=True), cuda.event(timing=True)
        except TypeError:  # numba's CUDA simulator
            self.e0, self.e1 = cuda.event(), cuda.event()
        self.n_flush = 0

    def flush(self):
        self.n_flush += 1
        self.flusher[1056, 256](self.buf, np.int32(self.n_flush))
        self.sweeper[1056, 256](self.clean, self.sink)

    def time(self, k, grid, block, dargs, n, flush):
        ts = []
        for _ in range(n):
            if flush:
                self.flush()
            self.delay[1, 1](np.int64(DELAY_CYCLES))
            self.e0.record()
            k[grid, block](*dargs)
            self.e1.record()
            self.e1.synchronize()
            ts.append(self.e0.elapsed_time(self.e1) * 1e6)
        ts = np.array(ts)
        return {"median_ns": float(np.median(ts)), "min_ns": float(ts.min()), "max_ns": float(ts.max()),
                "mean_ns": float(ts.mean()), "n": int(ts.size), "samples_ns": [round(t) for t in ts]}


def read_outputs(case, dargs) -> dict:
    return {o: dargs[case.ARGS.index(o)].copy_to_host() for o in case.OUTPUTS}


def kernel_info(case, k, inp, outdir: Path) -> dict:
    ptx, digest = case_ptx(case, inp)
    (outdir / "ptx" / f"{case.NAME}.ptx").write_text(ptx)
    sig = case_signature(case, inp)
    info = {"function": case.kernel.__name__, "module": case.kernel.__module__,
            "signature": [str(t) for t in sig], "ptx_file": f"ptx/{case.NAME}.ptx", "ptx_cc": [9, 0],
            "ptx_sha256_normalized": digest, "ptx_sha256_raw": sha256(ptx.encode()),
            "ptx_normalization": NORMALIZATION,
            "ptx_contains_clock64": "%clock64" in ptx}
    key = sig if sig in k.overloads else next((s for s in k.overloads if str(s) == str(sig)), None)
    info["overload_found"] = key is not None
    for attr in ("regs_per_thread", "shared_mem_per_block", "local_mem_per_thread",
                 "max_threads_per_block", "const_mem_size"):
        try:
            info[attr] = int(getattr(k.overloads[key], attr))
        except Exception as exc:  # noqa: BLE001
            info[attr] = f"unavailable: {exc}"
    try:
        launched = k.inspect_asm(key)
        info["launched_ptx_matches_normalized"] = normalize_ptx(launched) == normalize_ptx(ptx)
    except Exception as exc:  # noqa: BLE001
        info["launched_ptx_matches_normalized"] = f"unavailable: {exc}"
    try:
        sass = k.inspect_sass(key)
        (outdir / "sass" / f"{case.NAME}.sass").write_text(sass)
        info["sass_file"] = f"sass/{case.NAME}.sass"
        info["sass_instructions_static"] = len(re.findall(r"^\s+/\*[0-9a-f]{4,}\*/", sass, re.M))
    except Exception as exc:  # noqa: BLE001
        info["sass_file"] = f"unavailable: {exc}"
    return info


def measure_case(case, launcher, timer, outdir: Path, reps: int) -> dict:
    t0 = time.time()
    inp = case.inputs(seed=0)
    out = case.run(launcher, inp)
    ref = case.reference(inp)
    check = case.check(out, ref)
    check["checksums_sha256"] = {k: sha256(np.ascontiguousarray(out[k]).tobytes()) for k in sorted(ref)}
    k, grid, block, dargs = launcher.last
    clock = {"first": case.derive(out, inp)} if case.derive else {}
    for _ in range(3):
        k[grid, block](*dargs)
    launcher.cuda.synchronize()
    warm = timer.time(k, grid, block, dargs, reps, flush=False)
    if case.derive:
        clock["warm"] = case.derive(read_outputs(case, dargs), inp)
    flushed = timer.time(k, grid, block, dargs, reps, flush=True)
    if case.derive:
        clock["l2_flushed"] = case.derive(read_outputs(case, dargs), inp)
        for key in ("first", "l2_flushed"):  # per-block raw arrays: kept for the warm launch only
            clock[key].pop("raw", None)
    rec = {"case": case.NAME, "description": case.DESCRIPTION, "group": case.GROUP,
           "grid": list(case.GRID), "block": list(case.BLOCK), "check": check,
           "duration": {"warm": warm, "l2_flushed": flushed,
                        "method": "CUDA events around one launch, after a %clock64 spin kernel "
                                  f"({DELAY_CYCLES} cycles) that hides host launch overhead; "
                                  "l2_flushed writes a 256 MiB buffer, then reads another, before each "
                                  "launch (records before 2026-11-29: the write alone, leaving the L2 dirty)"},
           "clock64": clock, "kernel": kernel_info(case, k, inp, outdir),
           "wall_s": round(time.time() - t0, 2)}
    launcher.last = None
    del inp, out, dargs
    gc.collect()
    return rec


def find_ncu() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    for pat in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu", "/usr/local/cuda*/bin/ncu"):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[-1]
    return None


def ncu_target(names: list[str], order_file: str) -> None:
    cases, launcher = all_cases(), Launcher()
    with open(order_file, "w") as fh:
        for name in names:
            cases[name].run(launcher, cases[name].inputs(seed=0))
            launcher.last = None
            fh.write(name + "\n")
            fh.flush()
            gc.collect()


def to_json(obj):
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, indent=1, default=to_json) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).parent / "data" / "h100"))
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--budget-s", type=float, default=500.0, help="stop starting new work after this")
    ap.add_argument("--ncu-chunks", type=int, default=3)
    ap.add_argument("--skip-ncu", action="store_true")
    ap.add_argument("--ncu-target", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--order-file", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    cases = all_cases()
    names = [n for n in args.cases.split(",") if n] or list(cases)
    others = [n for n in names if cases[n].RECORDER != "validation/record.py"]
    if others:
        print(f"[record] skipped {len(others)} cases recorded by their own script ({cases[others[0]].RECORDER})")
        names = [n for n in names if n not in others]
    if args.ncu_target:
        ncu_target(names, args.order_file)
        return 0
    start = time.time()
    deadline = start + args.budget_s
    outdir = Path(args.out)
    for sub in ("ptx", "sass", "ncu"):
        (outdir / sub).mkdir(parents=True, exist_ok=True)
    ncu = find_ncu()
    prov = _device.provenance(ncu)
    prov["nvidia_smi_clocks_before"] = _device.smi_clocks()
    launcher, timer = Launcher(), Timer()
    records = {}
    for name in names:
        if time.time() > start + 0.45 * args.budget_s:
            print(f"[record] time budget: skipping timing of {name}", flush=True)
            continue
        try:
            rec = measure_case(cases[name], launcher, timer, outdir, args.reps)
        except Exception as exc:  # noqa: BLE001
            rec = {"case": name, "error": f"{type(exc).__name__}: {exc}"}
        records[name] = rec
        write_json(outdir / f"{name}.json", rec)
        d = rec.get("duration", {}).get("warm", {}).get("median_ns")
        print(f"[record] {name:22s} pass={rec.get('check', {}).get('passed')} median_ns={d} "
              f"({rec.get('wall_s')} s)", flush=True)
    prov["nvidia_smi_clocks_after"] = _device.smi_clocks()
    del timer
    gc.collect()
    dev, smi_q = _device.device_figures(ncu)
    (outdir / "nvidia_smi_q.txt").write_text(smi_q + "\n")
    ncu_results, ncu_meta = ({}, {"skipped": True}) if args.skip_ncu or ncu is None else \
        profile_all(ncu, [n for n in names if n in records], outdir / "ncu", deadline, args.ncu_chunks)
    ncu_meta["ncu_path"] = ncu
    dev["ncu_device_attributes"] = ncu_meta.pop("device_attributes", {})
    write_json(outdir / "device.json", dev)
    prov.update({"clock_control": "none", "cache_control": "all (ncu); timing: none, l2_flushed "
                 "variant writes 256 MiB, then reads another 256 MiB, before each launch", "ncu_flags": _ncu.NCU_FLAGS,
                 "sass_note": SASS_NOTE, "record_wall_s": round(time.time() - start, 1)})
    for name, rec in records.items():
        rec["ncu"] = ncu_results.get(name, {"missing": True})
        rec["provenance"] = prov
        write_json(outdir / f"{name}.json", rec)
    write_json(outdir / "summary.json", summarize(records, prov, ncu_meta))
    print_table(records)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
