"""Partial writes at the L2 (gpusim/memory/l2.py, gpusim/sm/lsu.py): a write that leaves part of a sector
unwritten, to a 128-B line the slice does not hold, waits for the slice's partial-write unit
(`l2.write_miss_cycles`); whole-sector writes and writes to a line already there do not. Checked on
the units themselves."""

import numpy as np

import gpusim
from gpusim.memory.l2 import l2_access, slice_of
from gpusim.memory.timeline import units
from gpusim.presets import H100
from gpusim.sm.storepath import sector_partial
from gpusim.timing.state import make_units

TINY_PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"
ALL = np.int64(0xFFFFFFFF)


def _units(cost=50.0):
    return make_units(H100.with_(**{"l2.write_miss_cycles": cost}), gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)


def test_a_sector_is_partial_unless_the_active_lanes_write_all_its_32_bytes():
    coalesced = 4096 + 4 * np.arange(32, dtype=np.int64)          # 128 B: sectors 128..131 whole
    assert not sector_partial(coalesced, ALL, 4, 128)
    assert sector_partial(coalesced, np.int64(0x7F), 4, 128)       # lane 7 inactive: 4 bytes missing
    strided = 4096 + 32 * np.arange(32, dtype=np.int64)            # one 4-B word per sector
    assert sector_partial(strided, ALL, 4, 128)
    assert not sector_partial(strided, ALL, 32, 128)               # 32-B elements fill it


def _write(U, sector, partial, now=10_000):
    return l2_access(U.l2, U.noc, U.dram, 0, sector, now, True, partial) - now


def test_a_partial_write_to_a_line_the_slice_lacks_waits_for_its_partial_write_unit():
    sector = (1 << 24) // 32
    U = _units()
    whole = _write(U, sector, False)
    U = _units()
    assert _write(U, sector, True) == whole + 50
    # the line is there now: merged into it, behind the first only by the slice's bandwidth share
    assert whole <= _write(U, sector + 1, True) <= whole + 1


def test_partial_writes_to_new_lines_of_one_slice_queue_one_after_another():
    U = _units(50.0)
    nsl = units(U.l2.slices)
    first = (1 << 24) // 32
    same = next(first + 4 * k for k in range(1, 10_000) if slice_of(first + 4 * k, nsl) == slice_of(first, nsl))
    other = next(first + 4 * k for k in range(1, 10_000) if slice_of(first + 4 * k, nsl) != slice_of(first, nsl))
    alone_same, alone_other = _write(_units(50.0), same, True), _write(_units(50.0), other, True)
    _write(U, first, True)
    assert _write(U, same, True) == alone_same + 50      # behind the first in its slice's unit
    assert _write(U, other, True) == alone_other         # another slice's unit is free
