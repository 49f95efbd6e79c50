"""The warp schedulers' issue order, pinned at `better` (gpusim/sm/scheduler.py), the one rule each
policy is: the scan in gpusim/timing/core.py issue_smsp walks a sub-partition's slots in order and
keeps the candidate `better` prefers. A test here fails if a policy's rule changes."""
import numpy as np
import pytest

from gpusim.sm.scheduler import GTO, LRR, OLDEST, POLICIES, SchedulerSpec, better

NSLOTS = 8          # warp slots of one sub-partition; warp id = slot * 4 (sub-partition 0 of SM 0)


def warp(slot: int) -> int:
    return slot * 4


def pick(policy: int, eligible, last_slot: int | None, age, reverse: bool = False) -> int:
    """The slot issue_smsp chooses among `eligible` slots, scanning them in slot order (or reversed)."""
    last = warp(last_slot) if last_slot is not None else -1
    last_pos = last_slot if last_slot is not None else -1
    ages = np.zeros(4 * NSLOTS, np.int64)
    for slot, a in enumerate(age):
        ages[warp(slot)] = a
    best, best_pos = -1, 0
    for j in sorted(eligible, reverse=reverse):
        if better(policy, warp(j), j, best, best_pos, last, last_pos, NSLOTS, ages):
            best, best_pos = warp(j), j
    return best_pos


AGES = [50, 10, 70, 30, 60, 20, 80, 40]       # slot 1 is the oldest warp, then 5, 3, 7, 0, 4, 2, 6


def test_policy_names():
    assert POLICIES == {"lrr": LRR, "gto": GTO, "oldest": OLDEST}
    assert len({LRR, GTO, OLDEST}) == 3
    assert SchedulerSpec().policy == "lrr"


@pytest.mark.parametrize("policy", [LRR, GTO, OLDEST])
def test_any_eligible_warp_beats_no_choice(policy):
    ages = np.zeros(4 * NSLOTS, np.int64)
    assert better(policy, warp(3), 3, -1, 0, warp(5), 5, NSLOTS, ages)


# ------------------------------------------------------------------ loose round robin
@pytest.mark.parametrize("last, eligible, want", [
    (None, range(NSLOTS), 0),            # nothing issued yet: the first slot
    (None, [3, 6], 3),
    (2, range(NSLOTS), 3),               # the slot right after the last issued
    (2, [0, 1, 5, 7], 5),                # the first eligible one after it
    (7, range(NSLOTS), 0),               # wraps around past the last slot
    (5, [1, 3], 1),                      # ... and to the first eligible one after the wrap
    (2, [0, 2, 6], 6),                   # the last issued warp comes last in the order
    (2, [0, 2], 0),
    (2, [2], 2),                         # ... but issues again when it is the only one
])
def test_lrr_takes_the_first_eligible_warp_after_the_last_issued(last, eligible, want):
    assert pick(LRR, eligible, last, AGES) == want
    assert pick(LRR, eligible, last, AGES, reverse=True) == want      # a strict order: scan order is moot


def test_lrr_ignores_age():
    young_next = [0, 0, 0, 99, 0, 0, 0, 0]      # slot 3, right after the last issued, is the youngest
    assert pick(LRR, range(NSLOTS), 2, young_next) == 3


def test_lrr_rotates_through_every_eligible_warp_in_slot_order():
    order, last = [], None
    for _ in range(2 * NSLOTS):
        last = pick(LRR, [1, 2, 4, 6], last, AGES)
        order.append(last)
    assert order == [1, 2, 4, 6] * 4


# ------------------------------------------------------------------ greedy then oldest
def test_gto_keeps_the_last_issued_warp_while_it_is_eligible():
    # slot 6 is the youngest warp and not the first scanned, yet it keeps priority
    assert pick(GTO, range(NSLOTS), 6, AGES) == 6
    assert pick(GTO, range(NSLOTS), 6, AGES, reverse=True) == 6
    assert pick(GTO, [0, 6], 6, AGES) == 6


def test_gto_falls_back_to_the_oldest_eligible_warp():
    assert pick(GTO, range(NSLOTS), None, AGES) == 1
    assert pick(GTO, [0, 2, 3, 4, 6, 7], 1, AGES) == 3      # the last issued (1) stalled: oldest of the rest
    assert pick(GTO, [0, 2, 4, 6], 7, AGES, reverse=True) == 0


def test_gto_stays_on_one_warp_until_it_stalls():
    order, last = [], None
    for eligible in ([0, 2, 4], [0, 2, 4], [0, 2], [0, 2, 4], [2, 4], [2, 4]):
        last = pick(GTO, eligible, last, AGES)
        order.append(last)
    # the oldest (0: age 50; 4: 60; 2: 70) first, kept while eligible; then the oldest left (4), kept
    assert order == [0, 0, 0, 0, 4, 4]


def test_gto_better_prefers_last_over_an_older_warp_and_never_the_reverse():
    ages = np.zeros(4 * NSLOTS, np.int64)
    ages[warp(1)], ages[warp(5)] = 1, 100       # 1 is much older; 5 issued last
    assert better(GTO, warp(5), 5, warp(1), 1, warp(5), 5, NSLOTS, ages)
    assert not better(GTO, warp(1), 1, warp(5), 5, warp(5), 5, NSLOTS, ages)


def test_gto_and_oldest_keep_the_first_scanned_warp_on_equal_age():
    ages = np.zeros(4 * NSLOTS, np.int64)
    for policy in (GTO, OLDEST):
        assert not better(policy, warp(3), 3, warp(2), 2, -1, -1, NSLOTS, ages)
        assert pick(policy, [2, 3, 5], None, [0] * NSLOTS) == 2


# ------------------------------------------------------------------ oldest
def test_oldest_always_takes_the_oldest_eligible_warp():
    assert pick(OLDEST, range(NSLOTS), None, AGES) == 1
    assert pick(OLDEST, range(NSLOTS), 6, AGES) == 1          # the last issued warp has no priority
    assert pick(OLDEST, range(NSLOTS), 1, AGES) == 1          # ... nor a penalty (LRR would move on)
    assert pick(OLDEST, [0, 2, 4, 6, 7], 0, AGES, reverse=True) == 7


def test_the_three_policies_choose_differently_from_the_same_state():
    eligible, last = [1, 3, 4], 3          # ages 10, 30, 60
    assert pick(LRR, eligible, last, AGES) == 4
    assert pick(GTO, eligible, last, AGES) == 3
    assert pick(OLDEST, eligible, last, AGES) == 1
