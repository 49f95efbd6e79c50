"""Where a probe ran: the GPU, its driver, numba-cuda and the time (device only; imports numba.cuda)."""
from __future__ import annotations

import datetime


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
            "numba_cuda": numba_cuda.__version__, "clock_control": "none (clocks left alone)"}
