"""Stores stay in the L1 (gpusim/memory/l1.py `store_allocate`): since Volta the L1 caches what a warp writes
(write-through), so a later load of it hits. On an H200 a kernel that keeps its counters in global memory hits
the L1 as often as its twin with the counters in local memory (validation/probes/local_layout.py)."""
import numpy as np
from numba import cuda

import gpusim


def store_then_load(a, out):
    i = cuda.grid(1)
    a[i] = i              # one whole sector per 8 lanes
    cuda.syncthreads()
    out[i] = a[i] + 1     # the same sectors again


def _l1_hits(allocate):
    gpu = gpusim.presets.apply_overrides(gpusim.presets.get_preset("tiny"), {"l1.store_allocate": allocate})
    a, out = np.zeros(256, np.int32), np.zeros(256, np.int32)
    r = gpusim.launch(cuda.jit(store_then_load), 1, 256, a, out, mode="timing", model="ptx", gpu=gpu)
    assert (out == np.arange(256) + 1).all()
    return r.metrics["l1tex__t_sector_hit_rate.pct"]


def test_a_load_of_what_the_warp_stored_hits_the_l1():
    assert _l1_hits(1) == 100.0


def test_without_write_caching_it_goes_to_the_l2():
    assert _l1_hits(0) == 0.0
