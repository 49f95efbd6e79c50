"""Probe (device only, under ncu): does the driver's shared-memory carve-out for a kernel depend on the kernel
launched before it?

The 140 recorded cases disagree with any rule of the kernel alone: ho_reduce4_first_add (8 CTAs of 2 KiB a SM,
the reservation included) gets 32 KiB, ho_stencil1d (8 of 2,072 B) 64 KiB; ho_matmul_tile32 (2 of 9 KiB) 32 KiB,
prog_softmax (12 of 1.5 KiB, the same 18 KiB) 64 KiB. Four kernels of 256 threads with 1,024 / 1,048 / 4,096 /
8,192 B of static shared memory (8 CTAs a SM by warps) run in two orders in one process; ncu reads
launch__shared_mem_config_size of each launch.

    ncu --metrics launch__shared_mem_config_size,launch__shared_mem_per_block --csv \
        python3 validation/probes/carveout_order.py
"""
from __future__ import annotations

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda, float32  # noqa: E402


def make(words):
    def k(out):
        s = cuda.shared.array(words, float32)
        t = cuda.threadIdx.x
        for i in range(t, words, cuda.blockDim.x):
            s[i] = float32(i)
        cuda.syncthreads()
        out[cuda.blockIdx.x * cuda.blockDim.x + t] = s[(t * 7) % words]
    return cuda.jit(k)


def main():
    kernels = {b: make(b // 4) for b in (1024, 1048, 4096, 8192)}
    out = cuda.device_array(1056 * 256, np.float32)
    for order in ((1024, 1048, 1024, 4096, 1024, 8192, 1024), (8192, 1048, 4096, 1048, 8192, 1024, 1048)):
        for b in order:
            kernels[b][1056, 256](out)
            cuda.synchronize()
            print("launched", b, flush=True)


if __name__ == "__main__":
    main()
