"""Each warp-scheduler policy's issue order: its priority key (gpusim/sm/scheduler.py) checked at
its boundaries, and the order the real core issues warps in under it."""
import numpy as np
import pytest
from conftest import HEADER

import gpusim
from gpusim.errors import ConfigError
from gpusim.presets import TINY, get_preset
from gpusim.sm.scheduler import (
    CTA_RR,
    GTO,
    GTY,
    LRR,
    OLDEST,
    POLICIES,
    TWO_LEVEL,
    SchedulerSpec,
    cta_rr_key,
    gto_key,
    lrr_key,
    two_level_key,
)

NSLOTS = 8


def test_every_policy_has_a_name():
    assert POLICIES == {"lrr": LRR, "gto": GTO, "oldest": OLDEST, "two_level": TWO_LEVEL, "gty": GTY,
                        "cta_rr": CTA_RR}
    # the h100 default: the oldest CTA's warps first; the PTX model with the starvation guard the sched_spin
    # probe fits, the SASS model strictly (probe prologue_wait)
    spec = SchedulerSpec()
    assert (spec.policy, spec.starve_cycles, spec.starve_cycles_sass) == ("cta_rr", 200, 0)


def test_lrr_orders_slots_from_the_one_after_the_last_issued():
    assert [lrr_key(s, 2, NSLOTS) for s in range(NSLOTS)] == [5, 6, 7, 0, 1, 2, 3, 4]
    assert lrr_key(2, 2, NSLOTS) == NSLOTS - 1                       # the last issued warp comes last ...
    assert [lrr_key(s, -1, NSLOTS) for s in range(3)] == [0, 1, 2]   # ... and with none issued, slot 0 first


def test_gto_keeps_the_last_warp_first_then_the_oldest():
    age = np.array([50, 10, 70, 30], np.int64)
    assert gto_key(2, 2, age) == -1 < min(age)
    assert [gto_key(w, 2, age) for w in (0, 1, 3)] == [50, 10, 30]


def test_two_level_stays_in_the_last_group_then_moves_to_the_next():
    keys = [two_level_key(s, 1, NSLOTS, 4) for s in range(NSLOTS)]   # last issued: slot 1, group 0
    assert max(keys[:4]) < min(keys[4:])                             # group 0 before group 1
    assert sorted(range(4), key=lambda s: keys[s]) == [2, 3, 0, 1]   # round robin inside the group
    keys = [two_level_key(s, 5, NSLOTS, 4) for s in range(NSLOTS)]   # last issued in group 1
    assert max(keys[4:]) < min(keys[:4])


@pytest.mark.parametrize("key, value", [("policy", "fifo"), ("subpartitions", 3), ("group_size", 0)])
def test_bad_scheduler_settings_name_their_key(key, value):
    with pytest.raises(ConfigError, match=f"scheduler.{key}"):
        TINY.with_(**{f"scheduler.{key}": value})


# Four warps of one CTA on one sub-partition, released together by a barrier, each running 64
# independent FP32 adds (eight destination registers in turn: no warp ever waits on its own results)
# between two clock reads.
ADDS = "\n".join(f"    add.f32 %f{1 + k % 8}, %f0, 0f3F800000;" for k in range(64))
KERNEL = HEADER + f"""
.visible .entry k(.param .u64 out)
{{
    .reg .u32 %r<4>;
    .reg .u64 %rd<8>;
    .reg .f32 %f<10>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    mov.f32 %f0, 0f00000000;
    bar.sync 0;
    mov.u64 %rd1, %clock64;
{ADDS}
    mov.u64 %rd2, %clock64;
    and.b32 %r3, %r1, 31;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd3, [out];
    mul.wide.u32 %rd4, %r2, 16;
    add.s64 %rd5, %rd3, %rd4;
    st.global.v2.u64 [%rd5], {{%rd1, %rd2}};
DONE:
    ret;
}}
"""


def spans(policy: str, **over) -> np.ndarray:
    """(start, end) clock of each of the four warps' add chains under `policy`."""
    out = np.zeros((4, 2), np.int64)
    # the whole kernel is fetched at the first miss, at once (prefetch_lines, bandwidths): no warp
    # waits on instruction fetch after the start
    spec = TINY.with_(**{"scheduler.policy": policy, "scheduler.subpartitions": 1, "fetch.prefetch_lines": 1024,
                         "dram.bandwidth": 4096.0, "l2.bandwidth": 4096.0, "noc.port_bandwidth": 4096.0, **over})
    gpusim.launch(gpusim.load_ptx(KERNEL)["k"], 1, 128, out, gpu=spec, mode="timing")
    return out


def _serial(s) -> bool:
    """No two chains overlap: each ends before the next (by start) begins."""
    order = np.argsort(s[:, 0])
    return all(s[a, 1] < s[b, 0] for a, b in zip(order, order[1:]))


def test_gto_runs_one_warp_to_the_end_before_the_next():
    s = spans("gto")
    assert _serial(s)
    assert ((s[:, 1] - s[:, 0]) < 2 * 64).all()     # no chain is stretched by another warp's issues


def test_oldest_runs_the_released_warps_one_after_another_in_arrival_order():
    # warp 3 arrives last at the barrier and goes on at once; the others wait out the barrier latency
    s = spans("oldest")
    assert _serial(s[:3]) and list(np.argsort(s[:3, 0])) == [0, 1, 2]
    assert s[3, 1] > s[:3, 1].max()                 # the youngest issues only when no older warp can


def test_lrr_interleaves_all_warps():
    s = spans("lrr")
    assert s[:, 0].max() < s[:, 1].min()            # every chain starts before any ends
    assert ((s[:, 1] - s[:, 0]) >= 3 * 64).all()    # each is stretched by the other three warps' issues


def test_two_level_interleaves_within_a_group_and_runs_groups_in_turn():
    s = spans("two_level", **{"scheduler.group_size": 2})
    first, second = sorted(([0, 1], [2, 3]), key=lambda g: s[g, 0].min())
    assert s[first, 0].max() < s[first, 1].min()    # the two warps of a group interleave
    assert s[first, 1].max() < s[second, 0].min()   # one group finishes before the other starts
    assert s[second, 0].max() < s[second, 1].min()


@pytest.mark.parametrize("subpartitions, at_least, at_most", [(1, 4 * 64, 5 * 64), (2, 2 * 64, 3 * 64),
                                                             (4, 64, 2 * 64)])
def test_warps_spread_over_the_sub_partitions_issue_in_parallel(subpartitions, at_least, at_most):
    # 4 x 64 adds: one scheduler issues them one per cycle; four issue four per cycle
    s = spans("lrr", **{"scheduler.subpartitions": subpartitions})
    assert at_least <= s[:, 1].max() - s[:, 0].min() < at_most


# every thread spins on %clock64 for 3000 cycles from its first clock read, counting its trips; lane 0 of
# each warp stores that read and the count (as validation/probes/sched_spin.py does on the H100)
SPIN_KERNEL = HEADER + """
.visible .entry spin(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    mov.u64 %rd1, %clock64;
    mov.u32 %r4, 0;
SPIN:
    add.u32 %r4, %r4, 1;
    mov.u64 %rd2, %clock64;
    sub.s64 %rd3, %rd2, %rd1;
    setp.lt.s64 %p1, %rd3, 3000;
    @%p1 bra SPIN;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    setp.ne.u32 %p2, %r2, 0;
    @%p2 bra DONE;
    mov.u32 %r5, %ctaid.x;
    mov.u32 %r6, %ntid.x;
    mad.lo.u32 %r1, %r5, %r6, %r1;
    ld.param.u64 %rd4, [out];
    shr.u32 %r3, %r1, 5;
    mul.wide.u32 %rd5, %r3, 16;
    add.s64 %rd6, %rd4, %rd5;
    cvt.u64.u32 %rd7, %r4;
    st.global.v2.u64 [%rd6], {%rd1, %rd7};
DONE:
    ret;
}
"""


def test_cta_rr_gives_the_older_blocks_warps_equal_turns_before_the_younger_block():
    # on the H100 (validation/data/h100/probe_sched_spin.json, two 1024-thread blocks per SM) the first
    # block's warps make equal trips (min/max 0.95) and the second block's about a tenth as many, but every
    # warp starts within ~400 cycles. gpusim's spin trips fill every issue slot (the H100 makes one trip per
    # ~10 cycles per scheduler, however many warps spin): the younger block starts only when the older one is
    # done (validation/DEVIATIONS.md, sixth pass)
    spec = get_preset("h100").with_(**{"n_sm": 1, "gigathread.gpcs": 1, "scheduler.policy": "cta_rr"})
    out = np.zeros((64, 2), np.uint64)
    gpusim.launch(gpusim.load_ptx(SPIN_KERNEL)["spin"], 2, 1024, out, gpu=spec, mode="timing")
    first, trips = out[:, 0].astype(np.int64), out[:, 1].astype(np.int64)
    assert trips[:32].min() > 0.8 * trips[:32].max()
    assert first[:32].max() - first[:32].min() < 100 < first[32:].min() - first[:32].max()


def test_cta_rr_orders_the_oldest_ctas_warps_first_and_rotates_among_them():
    age = np.array([0 * 64 + 0, 0 * 64 + 1, 1 * 64 + 0, 1 * 64 + 1], np.int64)    # CTA 0: warps 0, 1; CTA 1: 2, 3
    keys = [cta_rr_key(w, w, 0, 4, age) for w in range(4)]      # slot w; slot 0 issued last
    assert max(keys[:2]) < min(keys[2:])
    assert keys[1] < keys[0]                                    # round robin inside CTA 0
