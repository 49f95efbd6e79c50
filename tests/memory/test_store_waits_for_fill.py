"""A store to a sector whose fill is still on its way waits for it, holding the L1 (gpusim/memory/l1.py): on an H200
a loop that stores to the word it has just asked for runs 24x its store-only twin (validation/probes/
rmw_pattern.py)."""
import numpy as np
from numba import cuda

import gpusim
from gpusim.memory.cache import fill, make_cache, pending
from gpusim.presets import apply_overrides, get_preset


def test_a_sector_is_pending_until_its_fill_arrives_and_only_its_line_may_count_for_it():
    c = make_cache(1, 4096, 4)
    fill(c, 0, 40, 500, 100, False)         # sector 0 of line 10, arriving at 500
    fill(c, 0, 41, 300, 100, False)         # sector 1, at 300
    assert pending(c, 0, 40, 200, False) == 500 and pending(c, 0, 41, 200, False) == 300
    assert pending(c, 0, 41, 200, True) == 500          # the whole line: its latest fill
    assert pending(c, 0, 41, 300, False) == 0           # arrived
    assert pending(c, 0, 42, 200, False) == 0           # not asked for
    assert pending(c, 0, 42, 200, True) == 500
    assert pending(c, 0, 44, 200, True) == 0            # another line


def _one_sm(waits):
    return apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1, "l1.store_waits": waits})


def store_behind_load(buf, out):
    i = cuda.threadIdx.x
    while i < buf.size:
        v = buf[i]
        buf[i] = 7          # the store does not need the load's data: it reaches the L1 while the fill is on its way
        out[i] = v
        i += cuda.blockDim.x


def copy(buf, out):
    i = cuda.threadIdx.x
    while i < buf.size:
        out[i] = buf[i] + 1
        i += cuda.blockDim.x


def _cycles(kernel, waits):
    buf, out = np.arange(16384, dtype=np.int32), np.zeros(16384, np.int32)
    r = gpusim.launch(cuda.jit(kernel), 1, 1024, buf, out, mode="timing", model="ptx",
                      gpu=_one_sm(waits))
    return r.metrics["gpc__cycles_elapsed.max"], buf, out


def test_stores_behind_their_own_loads_serialise_the_sm_and_compute_the_same():
    held, buf, out = _cycles(store_behind_load, 1)
    free, buf0, out0 = _cycles(store_behind_load, 0)
    assert held > 4 * free
    assert (buf == 7).all() and (out == np.arange(16384)).all() and (buf0 == buf).all() and (out0 == out).all()


def test_stores_to_lines_no_load_is_bringing_do_not_wait():
    assert _cycles(copy, 1)[0] == _cycles(copy, 0)[0]


def rmw(buf, off):
    i = cuda.threadIdx.x
    while i < 16000:
        buf[off + i] += 1
        i += cuda.blockDim.x


def _rmw_cycles(off, waits):
    buf = np.zeros(16384, np.int32)
    r = gpusim.launch(cuda.jit(rmw), 1, 1024, buf, np.int64(off), mode="timing", model="ptx",
                      gpu=_one_sm(waits))
    assert (buf[off:off + 16000] == 1).all()
    return r.metrics["gpc__cycles_elapsed.max"]


def test_a_store_to_a_line_another_warp_is_still_loading_waits_only_where_warps_share_lines():
    # misaligned by 15 words, each warp's 128 B straddle two lines, shared with its neighbours' loads
    assert _rmw_cycles(15, 2) > 1.02 * _rmw_cycles(15, 1)
    assert _rmw_cycles(0, 2) == _rmw_cycles(0, 1)       # line-aligned: no line is shared
