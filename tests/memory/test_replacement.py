"""Cache replacement policies by name (gpusim/memory/replacement.py), on a one-set, two-way cache:
which line a third line evicts after a hit on the older one."""
import pytest

from gpusim.memory.cache import fill, make_cache, probe
from gpusim.presets import TINY

A, B, C = 0, 4, 8        # sectors of three lines (sector = line * 4)


def survivors(policy: str) -> set:
    c = make_cache(1, 256, 2, policy)        # 256 B, 2 ways of 128-B lines: one set
    fill(c, 0, A, 1, 1, False)               # A arrives first
    fill(c, 0, B, 2, 2, False)
    assert probe(c, 0, A, 3) == 1            # a hit on A, the older line
    fill(c, 0, C, 4, 4, False)               # the set is full: C evicts one line
    return {name for name, s in (("A", A), ("B", B)) if probe(c, 0, s, 5) >= 0}


def test_lru_evicts_the_least_recently_used_line():
    assert survivors("lru") == {"A"}


def test_fifo_evicts_the_first_arrival_even_after_a_hit():
    assert survivors("fifo") == {"B"}


def test_srrip_keeps_the_line_re_referenced_since_it_arrived():
    assert survivors("srrip") == {"A"}


def test_srrip_evicts_the_first_way_among_lines_never_re_referenced():
    c = make_cache(1, 256, 2, "srrip")
    fill(c, 0, A, 1, 1, False)
    fill(c, 0, B, 2, 2, False)
    fill(c, 0, C, 3, 3, False)               # both at the same RRPV: ageing picks way 0 (A)
    assert probe(c, 0, A, 4) < 0 and probe(c, 0, B, 4) >= 0


def test_a_dirty_line_evicted_is_counted_for_write_back():
    c = make_cache(1, 256, 2, "lru")
    fill(c, 0, A, 1, 1, True)
    fill(c, 0, A + 1, 1, 1, True)            # two dirty sectors of line A
    fill(c, 0, B, 2, 2, False)
    assert fill(c, 0, C, 3, 3, False) == 2


@pytest.mark.parametrize("unit", ["l1", "l2", "fetch"])
def test_replacement_is_chosen_per_cache_by_name_and_checked(unit):
    assert getattr(TINY.with_(**{f"{unit}.replacement": "srrip"}), unit).replacement == "srrip"
    with pytest.raises(Exception, match=f"{unit}.replacement"):
        TINY.with_(**{f"{unit}.replacement": "random"})
