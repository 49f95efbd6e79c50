"""L2 write throughput: every SM sweeps its own slice of a buffer that stays in the L2, several times.

One CTA of 1024 threads per SM (132 x 1024); CTA b owns words [b*W, (b+1)*W) of a buffer of F bytes
(W = F / 4 / 132, not a multiple of 32: past CTA 0 a warp's 128 B straddle two lines, which the next
warp's access shares; gpusim/memory/l1.py). F is 8 or 16 MB: the whole buffer stays in the 50-MB L2
(the H100 writes nothing back to DRAM below about 20 MB, validation/probes/l2_capacity.py), and each
SM's slice (64 or 127 KB) is under its L1, so after the first pass the loads hit the L1 and only the
stores reach the L2.

- l2_store_8mb: buf[i] = k + 1 on pass k: stores only, 4 x 8 MB of writes.
- l2_rmw_8mb / l2_rmw_16mb: buf[i] += 1: a load (an L1 hit after the first pass) and a store per word.

The H100's time per pass here is set by how fast the L2 slices take written sectors; these cases
isolate that (`l2.write_cost`). Expected in ncu: lts__t_sectors_op_write.sum about 1.5-1.8 x the
4 x F / 32 sectors the SMs send (writes to the far partition are counted at both), dram__bytes_write
about 0.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from validation.cases._case import make_case

N_SM, BLOCK, PASSES = 132, 1024, 4


def l2_store_sweep(words, passes, buf):
    base = cuda.blockIdx.x * words
    for k in range(passes):
        i = cuda.threadIdx.x
        while i < words:
            buf[base + i] = k + 1
            i += cuda.blockDim.x


def l2_rmw_sweep(words, passes, buf):
    base = cuda.blockIdx.x * words
    for k in range(passes):
        i = cuda.threadIdx.x
        while i < words:
            buf[base + i] += 1
            i += cuda.blockDim.x


def _make(name, kernel, mb, what, grid=N_SM, block=BLOCK, words=None):
    words = words or (mb << 20) // 4 // grid

    def inputs(seed=0):
        return {"words": np.int64(words), "passes": np.int64(PASSES), "buf": np.zeros(words * grid, np.uint32)}

    def reference(inp):
        return {"buf": np.full(words * grid, PASSES, np.uint32)}

    def derive(out, inp):
        return {"bytes_stored_expected": 4 * words * grid * PASSES}

    return make_case(name, f"{what} over {mb} MB (one CTA per SM, {PASSES} passes over its slice): "
                     "L2 write throughput", "l2_write", kernel, grid, block, inputs, reference,
                     ("words", "passes", "buf"), ("buf",), derive=derive)


CASES = [_make("l2_store_8mb", l2_store_sweep, 8, "stores"),
         _make("l2_rmw_8mb", l2_rmw_sweep, 8, "read-modify-write"),
         _make("l2_rmw_16mb", l2_rmw_sweep, 16, "read-modify-write")]


def small_cases() -> list:
    """The same kernels on 2 CTAs of 64 threads, 200 words each (validation/smoke.py)."""
    return [_make(c.NAME, c.kernel, 0, "", grid=2, block=64, words=200) for c in CASES]
