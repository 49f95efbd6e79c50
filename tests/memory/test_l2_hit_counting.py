"""The L2 sector hit rate as ncu counts it (`lts__t_sector_hit_rate.pct`, gpusim/memory/l2.py): every write is a
hit (ncu: store_s01 98.4%, store_s04 100.9%, l2_store_8mb 100.3%), a read is a hit when its sector is present or
on its way for another request, and the sector a 64-B DRAM burst brought alongside a miss counts as a miss at its
first request, before or after its data is there (ncu about 2.5% on the mlp sweeps and load_bw, whose loads ask for
both sectors of each pair; gpusim had counted 50%). Counting only: the cycles a request takes are what they
were."""

import gpusim
from gpusim.memory.l2 import counters, l2_access
from gpusim.presets import H100
from gpusim.timing.state import make_units

TINY_PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"


def _units():
    return make_units(H100, gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)


def _hits_lookups(U):
    c = counters(U.l2)
    return round(c["lts__t_sector_hit_rate.pct"] * c["lts__t_sectors.sum"] / 100), c["lts__t_sectors.sum"]


def test_the_sector_a_burst_brought_counts_as_a_miss_at_its_first_request_only():
    U = _units()
    s = 4096                                             # an even sector: its burst partner is s + 1
    first = l2_access(U.l2, U.noc, U.dram, 0, s, 100, False)
    assert _hits_lookups(U) == (0, 1)
    partner = l2_access(U.l2, U.noc, U.dram, 0, s + 1, 110, False)
    assert _hits_lookups(U) == (0, 2)                    # present (on its way), but nobody had asked for it
    assert partner < first + H100.dram.latency          # and served from the burst: no DRAM trip of its own
    l2_access(U.l2, U.noc, U.dram, 0, s + 1, 5000, False)
    l2_access(U.l2, U.noc, U.dram, 0, s, 5000, False)
    assert _hits_lookups(U) == (2, 4)


def test_the_first_request_after_the_data_is_there_is_still_the_miss():
    U = _units()
    first = l2_access(U.l2, U.noc, U.dram, 0, 4096, 100, False)
    again = l2_access(U.l2, U.noc, U.dram, 0, 4097, first + 100, False)
    assert again <= first + 100 + H100.l2.latency + 40       # an L2 hit's time: no DRAM trip
    assert _hits_lookups(U) == (0, 2)


def test_a_read_joining_another_request_in_flight_is_a_hit():
    U = _units()
    l2_access(U.l2, U.noc, U.dram, 0, 8192, 100, False)
    l2_access(U.l2, U.noc, U.dram, 5, 8192, 105, False)     # another SM, before the data is back
    assert _hits_lookups(U) == (1, 2)


def test_every_write_is_a_hit():
    U = _units()
    l2_access(U.l2, U.noc, U.dram, 0, 12288, 100, True, False)      # a sector the slice does not hold
    l2_access(U.l2, U.noc, U.dram, 0, 12289, 100, True, True)       # a partial one
    assert _hits_lookups(U) == (2, 2)
