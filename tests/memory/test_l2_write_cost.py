"""Written sectors at the L2 (gpusim/memory/l2.py): a slice takes a written sector `l2.write_cost`
times as long as a read one (fitted on validation/cases/l2_write.py), so store streams that stay in
the L2 are bounded by the slices' write rate, and reads are not slowed by it."""

import numpy as np
import pytest

import gpusim
from gpusim.memory.l2 import l2_access, slice_of
from gpusim.memory.timeline import free_from, units
from gpusim.presets import H100
from gpusim.timing.state import make_units

TINY_PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"


def _units(write_cost):
    return make_units(H100.with_(**{"l2.write_cost": write_cost}), gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)


def _busy_after(write_cost, is_write, now=10_000):
    """How long past `now` the sector's slice stays busy after one access, on an idle L2."""
    U = _units(write_cost)
    sector = (1 << 24) // 32
    sl = slice_of(sector, units(U.l2.slices))
    l2_access(U.l2, U.noc, U.dram, 0, sector, now, is_write, False)
    return free_from(U.l2.slices, sl, now) - now, 32.0 / U.l2.slice_bandwidth


def test_a_written_sector_holds_its_slice_write_cost_times_as_long_as_a_read():
    read_busy, per_sector = _busy_after(3.0, False)
    write_busy, _ = _busy_after(3.0, True)
    assert write_busy - read_busy == pytest.approx(2.0 * per_sector)
    same_read, _ = _busy_after(1.0, False)
    assert same_read == read_busy               # reads do not depend on it


def test_writes_queue_behind_each_other_at_the_write_rate():
    U = _units(2.5)
    nsl = units(U.l2.slices)
    first = (1 << 24) // 32
    same = [first] + [first + 4 * k for k in range(1, 20_000)
                      if slice_of(first + 4 * k, nsl) == slice_of(first, nsl)][:9]
    done = [l2_access(U.l2, U.noc, U.dram, 0, s, 10_000, True, False) for s in same]
    step = 2.5 * 32.0 / U.l2.slice_bandwidth
    assert all(abs(d - step) <= 1 for d in np.diff(done))


def test_a_store_sweep_that_stays_in_the_l2_slows_with_the_write_cost_and_a_load_sweep_does_not():
    from numba import cuda

    def store(buf, words):
        base = cuda.blockIdx.x * words
        i = cuda.threadIdx.x
        while i < words:
            buf[base + i] = i
            i += cuda.blockDim.x

    def load(buf, words, out):
        base = cuda.blockIdx.x * words
        i = cuda.threadIdx.x
        s = 0
        while i < words:
            s += buf[base + i]
            i += cuda.blockDim.x
        if s < 0:                  # never: the data are not negative, so the kernel makes no store
            out[0] = s

    words, grid, block = 8192, 16, 256
    cycles = {}
    for cost in (1.0, 4.0):
        # an L2 of 128 B per cycle, so that 16 CTAs are bound by it
        spec = H100.with_(**{"l2.write_cost": cost, "l2.bandwidth": 128.0})
        buf = np.zeros(words * grid, np.int32)
        cycles["store", cost] = gpusim.launch(store, grid, block, buf, np.int64(words), gpu=spec,
                                              mode="timing").metrics["gpc__cycles_elapsed.max"]
        assert np.array_equal(buf, np.tile(np.arange(words, dtype=np.int32), grid))
        out = np.zeros(1, np.int32)
        cycles["load", cost] = gpusim.launch(load, grid, block, buf, np.int64(words), out, gpu=spec,
                                             mode="timing").metrics["gpc__cycles_elapsed.max"]
    assert cycles["store", 4.0] > 1.5 * cycles["store", 1.0]
    assert cycles["load", 4.0] == cycles["load", 1.0]
