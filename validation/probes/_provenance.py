"""Where a probe ran: the GPU, its driver, numba-cuda and the time; and the launch the clock probes share
(device only; imports numba.cuda)."""
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
