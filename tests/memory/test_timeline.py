"""The arrival-order timeline of the L2 slices and DRAM channels (gpusim/memory/timeline.py)."""
import numpy as np

import gpusim
from gpusim.memory.l2 import l2_access, slice_of
from gpusim.memory.timeline import BUCKET, book, free_from, make_timeline, units
from gpusim.presets import H100
from gpusim.timing.state import make_units

TINY_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
    ret;
}
"""


def test_requests_arriving_in_order_start_where_a_single_free_at_cycle_says():
    rng = np.random.default_rng(3)
    tl = make_timeline(1)
    free, t = 0.0, 0.0
    for _ in range(20_000):
        t += rng.random() * 1.5          # sometimes idle, often backlogged
        cost = 0.3 + rng.random() * 2.0
        want = max(t, free)
        assert book(tl, 0, t, cost) == want
        free = want + cost


def test_work_booked_for_a_later_cycle_does_not_delay_a_request_that_arrives_before_it():
    tl = make_timeline(1)
    assert book(tl, 0, 50_000.0, 3_000.0) == 50_000.0      # e.g. a load that waited for an MSHR
    assert book(tl, 0, 100.0, 10.0) == 100.0                # a store arriving now is served now
    assert book(tl, 0, 51_000.0, 1.0) == 53_000.0           # one arriving during that work waits for it


def test_a_request_longer_than_a_bucket_holds_the_buckets_after_it():
    tl = make_timeline(1)
    assert book(tl, 0, 0.0, 5.5 * BUCKET) == 0.0
    assert book(tl, 0, 2.0 * BUCKET, 1.0) == 5.5 * BUCKET
    assert free_from(tl, 0, 0.0) == 5.5 * BUCKET + 1.0


def test_units_are_independent_and_booking_is_deterministic():
    a, b = make_timeline(2), make_timeline(2)
    for tl in (a, b):
        book(tl, 0, 0.0, 100.0)
    assert book(a, 1, 10.0, 1.0) == 10.0
    assert book(b, 1, 10.0, 1.0) == 10.0
    assert np.array_equal(a.fill, b.fill) and np.array_equal(a.epoch, b.epoch)


def test_free_from_books_nothing():
    tl = make_timeline(1)
    book(tl, 0, 0.0, 40.0)
    assert free_from(tl, 0, 10.0) == free_from(tl, 0, 10.0) == 40.0
    assert book(tl, 0, 10.0, 1.0) == 40.0


def test_a_store_arriving_now_is_not_held_behind_a_load_its_slice_takes_later():
    """The ho_compact/tri_vecadd drain: an L2 write got into its slice's queue only after reads that reach
    the slice thousands of cycles later (their MSHR waits), because the slice was one free-at cycle."""
    U = make_units(H100, gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)
    nsl = units(U.l2.slices)
    first = (1 << 24) // 32
    same = [first] + [first + 4 * k for k in range(1, 20_000) if slice_of(first + 4 * k, nsl) == slice_of(first, nsl)]
    for s in same[:150]:                        # 150 loads that reach the slice at cycle 50,000
        l2_access(U.l2, U.noc, U.dram, 0, s, 50_000, False)
    alone = make_units(H100, gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)
    want = l2_access(alone.l2, alone.noc, alone.dram, 0, same[160], 1_000, True, False)
    assert l2_access(U.l2, U.noc, U.dram, 0, same[160], 1_000, True, False) == want
    assert U.l2.accepted[0] == alone.l2.accepted[0] < 50_000
