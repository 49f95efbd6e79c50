"""Provenance and device figures for record.py (runs on the device machine)."""
from __future__ import annotations

import datetime
import platform
import re
import shutil
import subprocess
import time

import numpy as np


def sh(cmd: list[str], timeout: float = 60) -> str:
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return (res.stdout + res.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable: {exc}"


def smi_clocks() -> dict:
    q = "name,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,pstate,temperature.gpu,power.draw"
    text = sh(["nvidia-smi", f"--query-gpu={q}", "--format=csv"])
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) >= 2:
        keys = [k.strip() for k in lines[0].split(",")]
        vals = [v.strip() for v in lines[1].split(",")]
        return dict(zip(keys, vals, strict=False))
    return {"raw": text}


def provenance(ncu: str | None) -> dict:
    import numba
    from numba import cuda

    dev = cuda.get_current_device()
    attrs = {}
    for a in ("MULTIPROCESSOR_COUNT", "L2_CACHE_SIZE", "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
              "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", "MAX_THREADS_PER_MULTIPROCESSOR",
              "MAX_REGISTERS_PER_MULTIPROCESSOR", "CLOCK_RATE", "MEMORY_CLOCK_RATE",
              "GLOBAL_MEMORY_BUS_WIDTH"):
        try:
            attrs[a.lower()] = int(getattr(dev, a))
        except Exception as exc:  # noqa: BLE001
            attrs[a.lower()] = f"unavailable: {exc}"
    name = getattr(dev, "name", "unknown")
    name = name.decode() if isinstance(name, bytes) else str(name)
    try:
        import numba_cuda

        nc_version = numba_cuda.__version__
        nc_path = numba_cuda.__file__
    except Exception as exc:  # noqa: BLE001
        nc_version, nc_path = f"unavailable: {exc}", None
    try:
        runtime = ".".join(map(str, cuda.runtime.get_version()))
    except Exception as exc:  # noqa: BLE001
        runtime = f"unavailable: {exc}"
    smi = sh(["nvidia-smi"])
    m = re.search(r"CUDA Version:\s*([\d.]+)", smi)
    driver = re.search(r"Driver Version:\s*([\d.]+)", smi)
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu_name": name,
        "compute_capability": list(getattr(dev, "compute_capability", ())),
        "sm_count": attrs.get("multiprocessor_count"),
        "device_attributes": attrs,
        "driver_version": driver.group(1) if driver else None,
        "cuda_version_driver": m.group(1) if m else None,
        "cuda_runtime_version": runtime,
        "nvcc_version": sh(["nvcc", "--version"]).splitlines()[-1:] if shutil.which("nvcc") else None,
        "ncu_version": sh([ncu, "--version"]).splitlines()[-1] if ncu else None,
        "numba_cuda_version": nc_version,
        "numba_cuda_path": nc_path,
        "numba_version": numba.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "host": platform.node(),
    }


def copy_bandwidth(nbytes: int = 1 << 30, reps: int = 20) -> dict:
    """Device-to-device copy bandwidth (bytes read + bytes written per second), cupy or torch."""
    try:
        import cupy as cp

        a = cp.ones(nbytes // 4, cp.float32)
        b = cp.empty_like(a)
        for _ in range(3):
            b[...] = a
        ts = []
        for _ in range(reps):
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record()
            cp.copyto(b, a)
            e1.record()
            e1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(e0, e1) * 1e-3)
        lib = f"cupy {cp.__version__} copyto"
        del a, b
        cp.get_default_memory_pool().free_all_blocks()
    except Exception as exc:  # noqa: BLE001
        try:
            import torch

            a = torch.ones(nbytes // 4, device="cuda")
            b = torch.empty_like(a)
            ts = []
            for i in range(reps + 3):
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                b.copy_(a)
                e1.record()
                torch.cuda.synchronize()
                if i >= 3:
                    ts.append(e0.elapsed_time(e1) * 1e-3)
            lib = f"torch {torch.__version__} copy_ (cupy failed: {exc})"
            del a, b
            torch.cuda.empty_cache()
        except Exception as exc2:  # noqa: BLE001
            return {"error": f"{exc}; {exc2}"}
    med = float(np.median(ts))
    return {"bytes_copied": nbytes, "library": lib, "reps": reps, "median_s": med,
            "min_s": float(np.min(ts)),
            "bandwidth_read_plus_write_GBps": 2 * nbytes / med / 1e9,
            "bandwidth_read_plus_write_GBps_best": 2 * nbytes / float(np.min(ts)) / 1e9}


def parse_smi_q(text: str) -> dict:
    """`nvidia-smi -q` as {"Section/Sub/Key": value}, sections taken from the indentation."""
    out, stack = {}, []
    for line in text.splitlines():
        if not line.strip() or line.startswith("=") or line.startswith("GPU "):
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key, sep, val = line.strip().partition(":")
        path = "/".join([s for _, s in stack] + [key.strip()])
        if sep and val.strip():
            out[path] = val.strip()
        elif not sep or not val.strip():
            stack.append((indent, key.strip()))
    return out


def device_figures(ncu: str | None) -> tuple[dict, str]:
    """(device.json content, full `nvidia-smi -q` text)."""
    q = sh(["nvidia-smi", "-q"])
    summary = parse_smi_q(q)
    t0 = time.time()
    bw = copy_bandwidth()
    return {"provenance": provenance(ncu), "nvidia_smi_clocks": smi_clocks(),
            "nvidia_smi_q_summary": summary, "d2d_copy": bw,
            "d2d_copy_wall_s": round(time.time() - t0, 2)}, q
