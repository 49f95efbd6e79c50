"""Records the tensor-core / async-copy microbenchmarks on a real GPU (CuPy loads the committed PTX).

    python3 validation/tensor/run_h100.py OUTDIR [tensor_bench|hopper_bench ...]

Writes OUTDIR/<module>.json: provenance, and per case the launch config, the clock64 cycles of every repeat,
the median-derived figure. Each module runs in its own process call (a fault in one keeps the other's).
"""
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if os.environ.get("TENSOR_DRY"):            # local dry run: a CuPy stand-in backed by gpusim, small sizes
    sys.path.insert(0, str(Path(__file__).resolve().parent / "_dry"))
import cupy as cp  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cases as C  # noqa: E402

REPEATS = 7
DRY = bool(os.environ.get("TENSOR_DRY"))
BIG_BYTES = (8 << 20) if DRY else (1 << 29)     # the streamed array: 512 MiB
FLUSH_BYTES = (1 << 20) if DRY else (256 << 20)
if DRY:
    REPEATS = 2


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"error: {e}"


def provenance():
    return {
        "nvidia_smi": sh("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,"
                         "power.draw,temperature.gpu,pstate --format=csv"),
        "nvcc": sh("nvcc --version | tail -2"),
        "cupy": cp.__version__,
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cuda_driver": cp.cuda.runtime.driverGetVersion(),
        "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "sm_count": cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"],
        "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def main():
    out = Path(sys.argv[1])
    mods = sys.argv[2:] or list(C.PTX_OF)
    inp_h = C.make_input(0)
    for mod in mods:
        ptx = HERE / C.PTX_OF[mod]
        raw = ptx.read_bytes()
        rec = {"module": mod, "ptx_file": f"validation/tensor/{ptx.name}",
               "ptx_sha256": hashlib.sha256(raw).hexdigest(),
               "compile": "nvcc -gencode=arch=compute_90a,code=sm_90a -ptx " + ptx.with_suffix(".cu").name,
               "loaded_with": "cupy.RawModule(path=ptx) (driver JIT of the PTX)", "repeats": REPEATS,
               "provenance_before": provenance(), "cases": {}}
        m = cp.RawModule(path=str(ptx))
        inp = cp.asarray(inp_h)
        flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)
        big = None
        for case in [c for c in C.all_cases() if c["mod"] == mod]:
            name = case["name"]
            if os.environ.get("TENSOR_DRY"):
                case = dict(case, grid=case["sim_grid"], iters=case["sim_iters"])
            t0 = time.time()
            try:
                k = m.get_function(case["kernel"])
                grid, block, iters = case["grid"], case["block"], case["iters"]
                sink = cp.zeros(grid * block, cp.float32)
                clk = cp.zeros(3 * grid * max(1, block // 32) + 6, cp.int64)
                shared = 0
                if case["kernel"] == "cp_async_bw":
                    if big is None:
                        big = cp.asarray(np.random.default_rng(1).integers(0, 1 << 32, BIG_BYTES // 4, dtype=np.uint64)
                                         .astype(np.uint32))
                    mask = (BIG_BYTES // 16 - 1) if "dram" in name else ((8 << 20) // 16 - 1)
                    args = (big, sink, clk, np.int32(iters), np.uint64(mask))
                    shared = 4 * block * 16
                elif case["kernel"] == "tma_bulk_bw":
                    if big is None:
                        big = cp.asarray(np.random.default_rng(1).integers(0, 1 << 32, BIG_BYTES // 4, dtype=np.uint64)
                                         .astype(np.uint32))
                    mask = (BIG_BYTES // C.TMA_CHUNK - 1) if "dram" in name else ((8 << 20) // C.TMA_CHUNK - 1)
                    args = (big, sink, clk, np.int32(iters), np.uint64(mask))
                elif case["kernel"] in ("dsm_lat", "smem_lat_c2"):
                    args = (cp.asarray(C.smem_chain()), sink, clk, np.int32(iters))
                elif case["kernel"] == "cp_async_lat":
                    chain = cp.asarray(C.chase_array(iters, 4096, seed=2))   # nodes 64 KiB apart
                    args = (chain, sink, clk, np.int32(iters))
                else:
                    args = (inp, sink, clk, np.int32(iters))
                reps, ev_ms = [], []
                for r in range(REPEATS + 1):            # first launch is the warm-up, dropped
                    if case["kind"] in ("bw", "chase"):
                        flush.fill(r & 255)             # empty the L2 (256 MiB written)
                    clk.fill(0)
                    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                    e0.record()
                    k((grid,), (block,), args, shared_mem=shared)
                    e1.record()
                    e1.synchronize()
                    if r:
                        ev_ms.append(cp.cuda.get_elapsed_time(e0, e1))
                        reps.append(cp.asnumpy(clk))
                cp.cuda.runtime.deviceSynchronize()
                derived = [C.derive(case, c, iters, grid, block, e / 1e3) for c, e in zip(reps, ev_ms)]
                fig = [C.figure(case, d) for d in derived]
                med = int(np.argsort(fig)[len(fig) // 2])
                entry = dict(case)
                entry.update({"shared_mem_dynamic": shared, "event_ms": ev_ms,
                              "figure_all_repeats": fig, "figure_median": float(np.median(fig)),
                              "figure_unit": C.UNITS[case["kind"]], "derived_median_repeat": derived[med],
                              "clk_median_repeat_first_records":
                                  reps[med][:3 * min(8, grid * max(1, block // 32))].tolist(),
                              "sink_checksum": float(cp.asnumpy(sink).astype(np.float64).sum())})
                rec["cases"][name] = entry
                print(f"{name:32s} {entry['figure_median']:12.4f} {C.UNITS[case['kind']]:28s} "
                      f"{derived[med]}  ({time.time() - t0:.1f}s)", flush=True)
            except Exception as e:  # noqa: BLE001
                rec["cases"][name] = dict(case, error=repr(e))
                print(f"{name:32s} ERROR {e!r}", flush=True)
                if "illegal" in repr(e).lower() or "launch failed" in repr(e).lower():
                    break
        rec["provenance_after"] = provenance()
        (out / f"{mod}.json").write_text(json.dumps(rec, indent=1))


if __name__ == "__main__":
    main()
