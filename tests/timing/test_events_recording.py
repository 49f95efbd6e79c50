"""Event recording (gpusim/timing/events.py): off by default, every CTA, warp-slot states that agree
with the issue counts, sampled memory requests, bounded and deterministic."""

import numpy as np
import pytest

import gpusim
from gpusim.presets import TINY
from gpusim.timing.events import ISSUED
from programs import reduce_shared, vecadd


def _first_launch(mod, size, **opts):
    inp = mod.inputs(size)
    out = []

    def launcher(kernel, grid, block, *args):
        r = gpusim.launch(kernel, grid, block, *args, **opts)
        out.append(r)
        return r

    mod.run(launcher, inp)
    return out[0]


@pytest.fixture(scope="module")
def reduce_tiny():
    """reduce_shared on two SMs: more CTAs than slots (slots are reused), barriers, global loads."""
    return _first_launch(reduce_shared, 1 << 14, gpu=TINY, events=True)


def test_events_are_none_unless_asked_for():
    assert _first_launch(vecadd, vecadd.SMALL_SIZE, gpu=TINY).events is None
    assert _first_launch(vecadd, vecadd.SMALL_SIZE, gpu=TINY, mode="functional", events=True).events is None


def test_every_cta_is_recorded_once_within_the_run(reduce_tiny):
    r, ev = reduce_tiny, reduce_tiny.events
    total = int(np.prod(r.grid))
    assert total > 2 * ev.n_sm                              # slots were reused
    assert {"cta", "sm", "start", "end"} <= set(ev.cta.dtype.names)
    assert len(ev.cta) == total == ev.ctas_total
    assert sorted(ev.cta["cta"]) == list(range(total))
    assert (ev.cta["start"] >= 0).all() and (ev.cta["start"] < ev.cta["end"]).all()
    assert (ev.cta["end"] <= r.cycles).all()
    assert set(ev.cta["sm"]) == set(range(ev.n_sm))


def test_ctas_in_one_slot_do_not_overlap(reduce_tiny):
    cta = reduce_tiny.events.cta
    for slot in set(cta["slot"]):
        rows = np.sort(cta[cta["slot"] == slot], order="start")
        assert (rows["start"][1:] >= rows["end"][:-1]).all()


def test_issue_counts_per_interval_add_up_to_the_instructions_issued(reduce_tiny):
    ev = reduce_tiny.events
    assert int(ev.sp_issue.sum()) == reduce_tiny.warp_instructions
    assert ev.sp_issue.shape == (ev.n_samples, ev.n_sm * ev.subpartitions)
    assert ev.n_samples * ev.interval >= reduce_tiny.cycles


def test_a_subpartition_shows_an_issuing_warp_exactly_when_it_issued(reduce_tiny):
    ev = reduce_tiny.events
    n, nsm, wps = ev.warp_state.shape
    issued = (ev.warp_state == ISSUED).reshape(n, nsm, wps // ev.subpartitions, ev.subpartitions).sum(axis=2)
    counts = ev.sp_issue.reshape(n, nsm, ev.subpartitions)
    assert ((issued > 0) == (counts > 0)).all()
    assert (issued <= counts).all()
    names = [ev.state_names[s] for s in np.unique(ev.warp_state)]
    assert "barrier" in names and "long_scoreboard" in names


def test_counter_tracks_follow_the_memory_counters(reduce_tiny):
    ev, m = reduce_tiny.events, reduce_tiny.metrics
    assert ev.dram_bytes.sum() == m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
    assert ev.l2_bytes.sum() > 0 and ev.outstanding.max() > 0
    assert ev.active.max() <= ev.warps_per_sm and ev.active[-1].sum() == 0


def test_sampled_requests_travel_forward_in_time(reduce_tiny):
    req = reduce_tiny.events.requests
    assert len(req) > 0 and reduce_tiny.events.requests_every == 1
    via_l2 = req["l2_at"] >= 0
    assert (req["issue"][via_l2] < req["l2_at"][via_l2]).all()
    assert (req["l2_at"][via_l2] < req["back"][via_l2]).all()
    assert (req["slice"][via_l2] < TINY.l2.slices).all()
    where = {reduce_tiny.events.where_names[w] for w in req["where"]}
    assert "dram" in where


def test_recording_is_deterministic(reduce_tiny):
    again = _first_launch(reduce_shared, 1 << 14, gpu=TINY, events=True).events
    for f in ("cta", "warp_state", "sp_issue", "l2_bytes", "dram_bytes", "outstanding", "active", "requests"):
        assert np.array_equal(getattr(again, f), getattr(reduce_tiny.events, f)), f


def test_intervals_merge_to_stay_within_the_cap_and_say_so():
    r = _first_launch(vecadd, 1 << 16, gpu=TINY, events=1)
    ev = r.events
    assert ev.interval_requested == 1 and ev.interval > 1
    assert ev.n_samples <= 2048 and ev.n_samples * ev.interval >= r.cycles
    assert int(ev.sp_issue.sum()) == r.warp_instructions
    assert any("merged" in d for d in ev.decimation())


def test_a_bad_interval_is_refused():
    with pytest.raises(gpusim.LaunchError, match="events"):
        _first_launch(vecadd, vecadd.SMALL_SIZE, gpu=TINY, events=-5)
