"""Global atomics at the L2 (gpusim/memory/l2.py, gpusim/sm/lsu.py): one slice's atomic unit performs the
atomics of each 512-B chunk, one operation per sector and address round, and the LSU sends each line of
a warp's atomic as its own request. Checked on the units themselves."""

import numpy as np

import gpusim
from gpusim.memory.l2 import l2_atomic, slice_of
from gpusim.presets import H100
from gpusim.sm.lsu import global_atomic, sector_ways
from gpusim.timing.state import make_units

TINY_PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"
ALL = np.int64(0xFFFFFFFF)


def _units(spec=H100):
    return make_units(spec, gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)


def _slice_wait(spec, first, second):
    """Cycles the second of two back-to-back atomics (one operation each) waits behind the first."""
    U = _units(spec)
    alone = l2_atomic(U.l2, U.noc, U.dram, 0, second, 10_000, 1) - 10_000
    U = _units(spec)
    l2_atomic(U.l2, U.noc, U.dram, 0, first, 10_000, 1)
    return l2_atomic(U.l2, U.noc, U.dram, 0, second, 10_000, 1) - 10_000 - alone


def test_atomics_on_two_lines_of_one_512_byte_chunk_queue_at_one_atomic_unit():
    base = (1 << 20) // 32                     # a sector at 1 MB: a 512-B chunk holds 16 sectors
    nsl = H100.l2.slices
    assert slice_of(base, nsl) != slice_of(base + 4, nsl)     # the lines' tags live in different slices
    spec = H100.with_(**{"l2.atomic_interval": 10.0})
    assert _slice_wait(spec, base, base + 4) == 10
    assert _slice_wait(spec.with_(**{"l2.atomic_unit_bytes": 128}), base, base + 4) == 0


def test_one_slice_performs_a_sectors_operations_one_after_another():
    U = _units(H100.with_(**{"l2.atomic_interval": 2.0}))
    sector = (1 << 20) // 32
    one = l2_atomic(U.l2, U.noc, U.dram, 0, sector, 0, 1)
    U = _units(H100.with_(**{"l2.atomic_interval": 2.0}))
    eight = l2_atomic(U.l2, U.noc, U.dram, 0, sector, 0, 8)
    assert eight - one == 2 * 2 * 7           # the operations, and the reply waits for the last of them


def test_distinct_addresses_of_a_sector_are_one_operation_lanes_on_one_address_are_one_each():
    addrs = np.zeros(32, np.int64)
    addrs[:8] = 4096 + 4 * np.arange(8)        # 8 distinct words of sector 128
    addrs[8:] = 4096 + 32                      # 24 lanes on one word of sector 129
    assert sector_ways(addrs, ALL, 128) == 1
    assert sector_ways(addrs, ALL, 129) == 24
    assert sector_ways(addrs, np.int64(0xFF), 129) == 1       # those lanes inactive: nothing to perform


def _lsu_busy(spec, addrs):
    U = _units(spec)
    global_atomic(U.lsu, U.l1, U.l2, U.noc, U.dram, addrs, ALL, 4, 0, 0, 0, 0)
    return int(U.lsu.free_at[0])


def test_each_line_of_a_warps_atomic_past_the_first_costs_the_lsu_atomic_line_cycles():
    spec = H100.with_(**{"lsu.atomic_line_cycles": 5, "lsu.issue_interval": 2})
    one_line = (1 << 20) + 4 * np.arange(32, dtype=np.int64)
    lines = (1 << 20) + 128 * np.arange(32, dtype=np.int64)
    assert _lsu_busy(spec, one_line) == 2
    assert _lsu_busy(spec, lines) == 2 + 5 * 31
