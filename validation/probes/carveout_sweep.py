"""Probe (device only, under ncu): the shared-memory carve-out the driver picks, over static shared memory per
CTA and CTA size (kernels with few registers, so warps or the 32-CTA limit set the occupancy).

    ncu --metrics launch__shared_mem_config_size,launch__shared_mem_per_block,launch__occupancy_limit_warps \
        --csv python3 validation/probes/carveout_sweep.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.probes.carveout_order import make  # noqa: E402  (the same kernels)

SIZES = (512, 1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192, 10240, 12288, 16384, 20480, 24576)
THREADS = (64, 128, 256, 512, 1024)


def main():
    out = cuda.device_array(264 * 1024, np.float32)
    for b in SIZES:
        k = make(b // 4)
        for t in THREADS:
            k[264, t](out)
            cuda.synchronize()
            print("launched", b, t, flush=True)


if __name__ == "__main__":
    main()
