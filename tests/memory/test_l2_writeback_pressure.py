"""A slice cannot write dirty data back faster than its DRAM channel takes it (gpusim/memory/l2.py
`evict_slack`): a write stream whose write-backs (and the reads that merge partly written sectors) outrun DRAM is
held to DRAM's pace, one DRAM keeps up with is not (validation/probes/dram_partial.py: on an H200 one word per
sector over 96 MB, 94 MB read and 87 MB written back, takes 1.5x the time of writing half of every line)."""
import numpy as np
from numba import cuda

import gpusim


def pattern(buf, group, stride, n):
    k = cuda.grid(1)
    while k < n:
        buf[(k // group) * stride + k % group] = k
        k += cuda.gridsize(1)


def _cycles(group, stride, slack):
    words = (1 << 20) // 4                             # 1 MiB, four times the L2 below
    gpu = gpusim.presets.apply_overrides(gpusim.presets.get_preset("h100"),
                                         {"n_sm": 2, "gigathread.gpcs": 1, "l2.size": 256 << 10,
                                          "dram.bandwidth": 16.0, "l2.evict_slack": slack})
    buf = np.full(words, -1, np.int32)
    n = words // stride * group
    r = gpusim.launch(cuda.jit(pattern), 8, 256, buf, np.int64(group), np.int64(stride), np.int64(n),
                      mode="timing", model="ptx", gpu=gpu)
    idx = (np.arange(n) // group) * stride + np.arange(n) % group
    assert (buf[idx] == np.arange(n)).all()
    return r.metrics["gpc__cycles_elapsed.max"], r.metrics["dram__bytes_read.sum"] + r.metrics["dram__bytes_write.sum"]


def test_write_backs_that_outrun_dram_hold_the_stream_to_dram_s_pace():
    held, moved = _cycles(1, 8, 120.0)                 # one word a sector: each written back after a merge read
    free, _ = _cycles(1, 8, 1e12)                      # the slices never wait for DRAM
    assert held > 1.5 * free
    assert held > 0.8 * moved / 16.0                   # about DRAM's time for what it moved
    assert _cycles(1, 32, 120.0)[0] < 0.5 * held       # a quarter of the sectors: DRAM keeps up better
