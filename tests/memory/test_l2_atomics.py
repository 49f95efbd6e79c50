"""Global atomics at the L2 (gpusim/memory/l2.py, gpusim/sm/lsu.py): one slice's atomic unit performs the
atomics of each 512-B chunk, one operation per sector and address round, and the LSU sends each line of
a warp's atomic as its own request. Checked on the units themselves."""

import numpy as np

import gpusim
from gpusim.memory.l2 import l2_access, l2_atomic, slice_of
from gpusim.presets import H100
from gpusim.sm.atomics import global_atomic, sector_bytes, sector_ways
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


def _float_chain_wait(first, second, is_float=True, chain=20.0, ways=1):
    """Cycles the second of two back-to-back atomics waits behind the first (floating-point ones when
    is_float), the float chain set to `chain` cycles and the operation to 1 cycle."""
    spec = H100.with_(**{"l2.atomic_interval": 1.0, "l2.atomic_float_chain": chain})
    U = _units(spec)
    alone = l2_atomic(U.l2, U.noc, U.dram, 0, second, 10_000, 1, is_float) - 10_000
    U = _units(spec)
    l2_atomic(U.l2, U.noc, U.dram, 0, first, 10_000, ways, is_float)
    return l2_atomic(U.l2, U.noc, U.dram, 0, second, 10_000, 1, is_float) - 10_000 - alone


def test_a_float_atomic_waits_for_the_previous_float_sum_on_its_sector_only():
    sector = (1 << 20) // 32
    assert _float_chain_wait(sector, sector) == 20          # the float adder's result feeds the next
    assert _float_chain_wait(sector, sector, is_float=False) == 1     # integers: one operation behind
    assert _float_chain_wait(sector, sector + 1) == 1       # another sector of the unit: no chain
    # a deep request (32 lanes on the address) already keeps the unit busy past the chain
    assert _float_chain_wait(sector, sector, ways=32) == 32


def test_float_atomic_pcs_are_the_atom_and_red_on_float_data():
    from gpusim.sm.atomics import float_atomics
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
           ".reg .b64 %rd<2>; .reg .f32 %f<2>; .reg .b32 %r<2>;\nld.param.u64 %rd1, [a];\n"
           "red.global.add.f32 [%rd1], %f1;\nred.global.add.u32 [%rd1], %r1;\n"
           "atom.global.add.f32 %f1, [%rd1], %f1;\nret;\n}\n")
    d = gpusim.load_ptx(ptx)["k"].decoded
    assert list(np.flatnonzero(float_atomics(d))) == [1, 3]      # red.add.f32 and atom.add.f32, not the u32


def _unit_busy_after(spec, addrs, mask=ALL, is_float=False):
    """When the atomic unit owning addrs[0]'s line is free again after one warp atomic on `addrs` (a
    floating-point one when is_float)."""
    from gpusim.memory.l2 import slice_of as sl_of
    from gpusim.memory.timeline import free_from
    U = _units(spec)
    U.lsu.float_atomic[0] = int(is_float)
    global_atomic(U.lsu, U.l1, U.l2, U.noc, U.dram, addrs, mask, 4, 0, 0, 0, 0)
    au = sl_of(int(addrs[0]) >> 5, spec.l2.slices, U.l2.atomic_shift)
    tl = U.l2.atomic_units
    first = next(t for t in range(10_000) if free_from(tl, au, float(t)) > t)     # where its work begins
    return float(free_from(tl, au, float(first)))


def test_a_coalesced_atomic_covering_a_whole_line_takes_the_line_rate_per_operation():
    from gpusim.sm.atomics import full_line
    # both slower than the slice's tag rate (32 B a sector at its bandwidth share), so the unit sets the pace
    a, ln = 5.0, 2.0
    spec = H100.with_(**{"l2.atomic_interval": a, "l2.atomic_line_interval": ln})
    line = (1 << 20) + 4 * np.arange(32, dtype=np.int64)         # 32 words: the line's 4 sectors, 8 lanes each
    sectors = np.array([32768, 32769, 32770, 32771, 32776], np.int64)
    assert [full_line(sectors, 5, k) for k in range(5)] == [True] * 4 + [False]
    quick = _unit_busy_after(spec, line)
    # three lanes off: sector 32771 keeps lanes 24..28, still all four sectors: still the line rate
    assert _unit_busy_after(spec, line, np.int64(0x1FFFFFFF)) == quick
    # lanes 24..31 off: three sectors of the line only, each at the ordinary rate
    three = _unit_busy_after(spec, line, np.int64(0x00FFFFFF))
    assert three - quick == 3 * a - 4 * ln
    # two lanes on one address: not a coalesced request, every sector at the ordinary rate
    same = line.copy()
    same[1] = same[0]
    assert _unit_busy_after(spec, same) - quick == 4 * a - 4 * ln + a
    # a floating-point request keeps the ordinary rate (its float chain is fitted apart)
    assert _unit_busy_after(spec, line, is_float=True) - quick == 4 * a - 4 * ln


def test_an_atomic_unit_serves_an_earlier_arrival_before_a_later_one_computed_first():
    # the simulator computes a request that waited for credits (arriving late) before another SM's that
    # arrives early: the early one must not queue behind it (the unit serves requests as they arrive)
    spec = H100.with_(**{"l2.atomic_interval": 10.0})
    U = _units(spec)
    alone = l2_atomic(U.l2, U.noc, U.dram, 0, 1 << 15, 1_000, 1) - 1_000
    U = _units(spec)
    l2_atomic(U.l2, U.noc, U.dram, 0, 1 << 15, 50_000, 1)
    assert l2_atomic(U.l2, U.noc, U.dram, 0, 1 << 15, 1_000, 1) - 1_000 == alone


def _atomics_sent(credits, addrs, mask, requests):
    """(cycle the LSU is free again after each, cycle each is performed and back) for `requests` back-to-back
    warp atomics on `addrs` (lanes in `mask`) from SM 0 with `credits` atomic credits."""
    from gpusim.sm import lsu
    spec = H100.with_(**{"lsu.atomic_credits": credits, "lsu.atomic_same_address_cycles": 0})   # the unit's pace
    U = make_units(spec, gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)
    U = U._replace(lsu=lsu.make_state(spec.lsu, spec.n_sm, 4 * spec.n_sm, 1, atomic_units=spec.l2.slices))
    free, done = [], []
    for _ in range(requests):
        U.lsu.qhead[0] = (U.lsu.qhead[0] + 1) % U.lsu.qring.shape[1]     # queued as memory_timing does
        U.lsu.qring[0, U.lsu.qhead[0] - 1] = 0
        done.append(global_atomic(U.lsu, U.l1, U.l2, U.noc, U.dram, addrs, np.int64(mask), 4, 0, 0, 0, 0))
        free.append(int(U.lsu.free_at[0]))
    return free, done


def test_an_sm_holds_its_atomics_once_their_l2_operations_use_up_its_credits():
    one = np.full(32, 1 << 20, np.int64)                        # every lane on one address: 32 operations
    line = (1 << 20) + 4 * np.arange(32, dtype=np.int64)       # a coalesced line: one per sector, 4
    # 64 credits: two one-address requests are in flight; the LSU holds the third until the first is performed
    free, done = _atomics_sent(64, one, ALL, 3)
    assert free[1] < done[0] <= free[2]
    # a coalesced line takes 4: sixteen go out before the first is back, the 17th waits for it
    free, done = _atomics_sent(64, line, ALL, 17)
    assert free[15] < done[0] <= free[16]
    # a one-lane request takes 1
    free, done = _atomics_sent(64, one, 1, 65)
    assert free[63] < done[0] <= free[64]
    # 0: no limit
    free, done = _atomics_sent(0, line, ALL, 17)
    assert free[16] < done[0]


def _write_accepted_behind_atomics(nbytes):
    """Cycles after it arrives that a write gets into its slice's queue, behind 2,000 atomics that arrived at the
    same cycle on another sector of its line (one operation each, `nbytes` of operand each)."""
    U = _units()
    sector = (1 << 20) // 32
    assert slice_of(sector, H100.l2.slices) == slice_of(sector + 1, H100.l2.slices)
    for _ in range(2000):
        l2_atomic(U.l2, U.noc, U.dram, 0, sector, 10_000, 1, False, False, nbytes)
    l2_access(U.l2, U.noc, U.dram, 0, sector + 1, 10_000, True)
    return int(U.l2.accepted[0]) - 10_000


def test_a_one_lane_atomic_takes_its_slice_only_its_operands_share_of_the_bandwidth():
    # ho_compact_*: every warp's (ptxas-aggregated) atomic goes to one address; on the H100 their stores do not
    # wait behind them at that slice (drain 0.39 / 0.23 cycles per instruction), where a sector's time for each
    # atomic had backed the slice up past its write queue (gpusim 11.3 / 1.8)
    assert _write_accepted_behind_atomics(4) < 0                  # 2,000 x 4 B: within the write queue's reach
    assert _write_accepted_behind_atomics(32) > 500               # a sector each: the write waits far behind them
    lanes = np.full(32, 1 << 20, np.int64) + 4 * np.arange(32)   # a coalesced 32-lane atomic: four full sectors
    assert [sector_bytes(lanes, ALL, 4, (1 << 20) // 32 + k) for k in range(4)] == [32] * 4
    assert sector_bytes(lanes, np.int64(1), 4, (1 << 20) // 32) == 4
    assert sector_bytes(lanes, np.int64(1), 4, (1 << 20) // 32 + 1) == 0
