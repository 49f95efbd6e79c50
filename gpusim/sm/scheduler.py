"""Warp schedulers: one per SM sub-partition, each issuing at most one warp instruction per cycle.

Sub-partition k of an SM owns the SM's warp slots k, k + n, k + 2n, ... (n sub-partitions). Every
cycle it issues one eligible warp, chosen by a policy; a policy is a priority key per eligible warp
(the smallest key issues; `priority`), named in the spec:

  lrr        loose round robin: the first eligible warp after the one issued last
  gto        greedy-then-oldest: keep issuing the same warp while it is eligible, else the oldest
  cta_rr     the warps of the oldest CTA on the SM first, round robin among them (measured:
             validation/probes/sched_spin.py; the H100 gives a block's spinning warps equal turns, and
             a second block on the SM only the slots the first leaves: ~10x fewer)
  gty        greedy-then-youngest: the same, then the youngest (the order Huerta et al., MICRO 2025, report
             for recent NVIDIA cores, with ptxas's control bits guiding the switches)
  oldest     always the eligible warp that arrived on the SM first
  two_level  warps in fetch groups of `group_size` slots: stay in the group issued last while one of
             its warps is eligible (round robin inside it), then move on to the next group
             (Narasiman et al., MICRO 2011)

A new policy is a constant, a name in POLICIES, a key function and one branch in `priority`.

With the SASS model the scheduler also reads the control bits ptxas wrote into each SASS instruction
(gpusim/sassmap.py), summed per PTX line: its stall cycles, before which the warp's next instruction may
not issue (`stall_counts`), and its yield flag, which makes a greedy policy (gto, gty) move off the warp.

The scheduler also keeps each warp's issue state (`ready_at`: the earliest cycle it may issue and
`reason`: what holds it until then) and charges every cycle of a warp's life to one stall reason
(gpusim/sm/stalls.py), per warp and per PTX line, as Nsight Compute samples them.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.jit import njit
from gpusim.sm.stalls import (
    BARRIER,
    BRANCH_RESOLVING,
    DISPATCH_STALL,
    MATH_PIPE_THROTTLE,
    NOT_SELECTED,
    SELECTED,
    STALLS,
    WAIT,
)
from gpusim.sm.state import W_READY
from gpusim.spec import param

LRR, GTO, OLDEST, TWO_LEVEL, GTY, CTA_RR = 0, 1, 2, 3, 4, 5
POLICIES = {"lrr": LRR, "gto": GTO, "oldest": OLDEST, "two_level": TWO_LEVEL, "gty": GTY, "cta_rr": CTA_RR}
NEVER = np.int64(1) << 62


@dataclass(frozen=True)
class SchedulerSpec:
    """The warp schedulers of one SM: one per sub-partition, each owning every n-th warp slot."""
    subpartitions: int = param(4, "count", "sub-partitions (warp schedulers) per SM: 1, 2 or 4; each issues <= 1 "
                                           "warp instruction per cycle", (1, 4))
    policy: str = param("cta_rr", "name", "lrr | gto | gty | oldest | two_level | cta_rr (cta_rr on h100: the H100 "
                                          "runs its oldest CTA first, probes sched_spin and prologue_wait; with gto "
                                          "or gty the warps a greedy order puts last starve while older ones spin; "
                                          "validation/DEVIATIONS.md, sixth, ninth, thirteenth and twenty-fifth "
                                          "passes)")
    group_size: int = param(4, "warps", "two_level: warp slots per fetch group of a sub-partition", (1, 1024))
    starve_cycles: int = param(200, "cycles", "the PTX model: a warp that has waited this long to issue since it "
                                              "was first eligible goes before the policy's order (the longest-"
                                              "waiting first); 0: never. It stands in for the issue slots the "
                                              "uniform datapath leaves, which the PTX model cannot see: 200 "
                                              "gives the H100's 10:1 between two spinning blocks "
                                              "(validation/probes/sched_spin.py)", (0, 1 << 30))
    starve_cycles_sass: int = param(0, "cycles", "the same under the SASS model. 0 (the oldest CTA strictly "
                                                 "first): a new CTA's warps wait behind the older CTAs' integer "
                                                 "work as on the H100 (probe prologue_wait: 23.1k cycles in "
                                                 "prog_divergence's prologue, the H200 23.1k; 2.4k with 200)",
                                    (0, 1 << 30))
    stall_counts: int = param(1, "flag", "the SASS model: a warp's next instruction waits for the stall cycles ptxas "
                                         "set on the SASS of its last one, which then stand for the fixed "
                                         "latencies of its ALU/FMA results (1); or fixed latencies come from "
                                         "the pipes' classes and nothing else holds the warp (0)", (0, 1))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.policy not in POLICIES:
            raise ConfigError(f"bad value for '{prefix}policy': {self.policy!r} (policies: {', '.join(POLICIES)})")
        if self.subpartitions not in (1, 2, 4):
            raise ConfigError(f"bad value for '{prefix}subpartitions': 1, 2 or 4, got {self.subpartitions}")
        if self.starve_cycles < 0:
            raise ConfigError(f"bad value for '{prefix}starve_cycles': must be 0 or more")
        if self.group_size < 1:
            raise ConfigError(f"bad value for '{prefix}group_size': must be at least 1")


Scheduler = namedtuple("Scheduler", "policy group_size subpartitions warps_per_sm next_event last_issued "
                                    "ready_at reason accounted_until age at_barrier next_bound stall pc_stall "
                                    "wait_cycles yields starve eligible_since first_sp cta_turn free_slots join_split "
                                    "held held_head mio_issued mio_head")
# wait_cycles: per pc, ptxas's stall cycles (x SLOT, sm/pipelines.py) a warp waits after issuing it (zeros: none);
# yields: per pc, 1 where its SASS yields; eligible_since: per warp, the cycle from which it has been
# eligible without issuing (-1: not eligible since it last issued); first_sp: per SM, the sub-partition whose
# scheduler goes first in a cycle (the one after the last to put an instruction into the SM's MIO or LSU queue);
# cta_turn: per SM, the CTAs it has taken (a CTA's warps start that many sub-partitions on, mod 4: timing/placement.py);
# free_slots: scratch for the warp slots a CTA being placed takes; join_split: per warp, a join's hold not yet
# charged (`hold_join`): the end of the hold before it and that hold's reason, the ends of its stretches of wait,
# branch_resolving and wait (the last 0: none); held: per sub-partition, the last HELD_RING stretches its dispatch
# was held (`hold_dispatch`: [start, end) and the holding warp each), held_head the slot of the newest; mio_issued:
# per sub-partition, the cycles it put its last MIO_RING shared-memory instructions into the MIO queue (`note_mio`),
# mio_head the slot of the newest
HELD_RING = 16
MIO_RING = 32


def _held_ring(nsp: int) -> np.ndarray:
    """Per sub-partition, HELD_RING stretches [start, end) its dispatch was held and the warp whose register reads
    held it (-1: held for every warp)."""
    ring = np.zeros((nsp, HELD_RING, 3), np.int64)
    ring[:, :, 2] = -1
    return ring


def make_state(spec: SchedulerSpec, n_sm: int, warps_per_sm: int, n_pcs: int, control=None) -> Scheduler:
    """control: per pc (the SASS model), ptxas's stall cycles x SLOT and the yield flag (shape (n_pcs, 2))."""
    n_warps, nsp = n_sm * warps_per_sm, n_sm * spec.subpartitions
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    # each sub-partition starts as if the warp in its first slot had issued last
    first_slots = np.array([(sp // spec.subpartitions) * warps_per_sm + sp % spec.subpartitions for sp in range(nsp)],
                           np.int64)
    return Scheduler(np.int64(POLICIES[spec.policy]), np.int64(spec.group_size), np.int64(spec.subpartitions),
                     np.int64(warps_per_sm), np.full(nsp, NEVER, np.int64), first_slots,
                     z(n_warps), np.full(n_warps, DISPATCH_STALL, np.int64), z(n_warps), z(n_warps), z(n_warps),
                     z(n_warps), z(len(STALLS)), z(n_pcs, len(STALLS)),
                     z(n_pcs) if control is None or not spec.stall_counts else np.ascontiguousarray(control[:, 0]),
                     z(n_pcs) if control is None else np.ascontiguousarray(control[:, 1]),
                     np.int64(spec.starve_cycles if control is None else spec.starve_cycles_sass),
                     np.full(n_warps, -1, np.int64), z(n_sm), z(n_sm), z(warps_per_sm), z(n_warps, 5),
                     _held_ring(nsp), z(nsp), np.full((nsp, MIO_RING), -1, np.int64), z(nsp))


# ------------------------------------------------------------------ policies: smaller key issues first
@njit(inline="always")
def lrr_key(slot, last_slot, nslots):
    return (slot - last_slot - 1) % nslots


@njit(inline="always")
def gto_key(w, last, age):
    """last: the warp issued last; -2 - w when warp w issued last and its instruction yields: then it
    goes after every other eligible warp."""
    if w == last:
        return -1
    if last == -2 - w:
        return NEVER
    return age[w]


@njit(inline="always")
def gty_key(w, last, age):
    """gto_key's greedy part, then the youngest warp first."""
    if w == last:
        return -1
    if last == -2 - w:
        return NEVER
    return NEVER - 1 - age[w]


@njit(inline="always")
def cta_rr_key(w, slot, last_slot, nslots, age):
    """The oldest CTA's warps first, round robin among them (age: CTA arrival x 64 + the warp's place)."""
    return (age[w] >> 6) * nslots + lrr_key(slot, last_slot, nslots)


@njit(inline="always")
def two_level_key(slot, last_slot, nslots, group):
    ngroups = (nslots + group - 1) // group
    last_group = last_slot // group if last_slot >= 0 else ngroups - 1
    return ((slot // group - last_group) % ngroups) * nslots + lrr_key(slot, last_slot, nslots)


@njit(inline="always")
def priority(s, w, slot, last, last_slot, nslots, now):
    """The policy's key for eligible warp w in slot `slot` of its sub-partition (last: the warp
    issued last there, -1 none); a warp waiting `starve_cycles` since it was first eligible goes first."""
    if s.starve > 0 and s.eligible_since[w] >= 0 and now - s.eligible_since[w] >= s.starve:
        return -2 - (now - s.eligible_since[w])
    if s.policy == LRR:
        return lrr_key(slot, last_slot, nslots)
    if s.policy == GTO:
        return gto_key(w, last, s.age)
    if s.policy == GTY:
        return gty_key(w, last, s.age)
    if s.policy == CTA_RR:
        return cta_rr_key(w, slot, last_slot, nslots, s.age)
    if s.policy == TWO_LEVEL:
        return two_level_key(slot, last_slot, nslots, s.group_size)
    return s.age[w]


# ------------------------------------------------------------------ slots
@njit(inline="always")
def subpartition_of(s, w):
    return (w // s.warps_per_sm) * s.subpartitions + (w % s.warps_per_sm) % s.subpartitions


@njit(inline="always")
def slot_warp(s, sp, j):
    """Warp slot of the j-th warp of sub-partition sp."""
    return (sp // s.subpartitions) * s.warps_per_sm + j * s.subpartitions + sp % s.subpartitions


@njit(inline="always")
def wake(s, w, at, reason):
    """Warp w may issue from cycle `at` (held until then by `reason`); its sub-partition wakes for it."""
    s.ready_at[w] = at
    s.reason[w] = reason
    s.next_bound[w] = 0
    s.join_split[w, 4] = 0      # a join's hold it waited out under another reason (a barrier) is that reason's
    sp = subpartition_of(s, w)
    if at < s.next_event[sp]:
        s.next_event[sp] = at


@njit(inline="always")
def hold_join(s, w, now, until, head, tail):
    """Warp w, which issued at `now` and whose next line opens a join (sm/pipelines.py `join_hold`), may issue it
    at `until`. Nsight Compute samples such a hold in stretches (probe join_stalls): what held the warp anyway
    (its last instruction's stall cycles) as it was, then wait until `head` cycles after the issue, then
    branch_resolving, and the last `tail` cycles wait again. The hold shows as branch_resolving (`reason`);
    `account` charges the stretches."""
    s.join_split[w, 0] = s.ready_at[w]
    s.join_split[w, 1] = s.reason[w]
    s.join_split[w, 2] = min(max(now + head, s.ready_at[w]), until)
    s.join_split[w, 3] = max(until - tail, s.join_split[w, 2])
    s.join_split[w, 4] = until
    s.ready_at[w] = until
    s.reason[w] = BRANCH_RESOLVING


@njit(inline="always")
def hold_dispatch(s, sp, start, end, block, holder=-1):
    """Sub-partition sp dispatches nothing in [start, end) (an IMAD.HI's hold, sm/pipelines.py `disp_hold`): a
    warp that waits for an issue slot there is sampled as dispatch_stall (probe dispatch_pairs). block False: the
    stretch is only sampled so (an IMAD.WIDE's, `disp_sampled`), the sub-partition dispatches on. holder >= 0:
    warp `holder`'s register reads hold it (`bank`): only the other warps wait (`reads_held_until`)."""
    h = s.held_head[sp]
    start = max(start, s.held[sp, h, 1])
    if end <= start:
        return
    h = (h + 1) % HELD_RING
    s.held[sp, h, 0] = start
    s.held[sp, h, 1] = end
    s.held[sp, h, 2] = holder
    s.held_head[sp] = h
    if block and s.next_event[sp] < end:
        s.next_event[sp] = end


@njit(inline="always")
def note_mio(s, sp, now):
    """Sub-partition sp put a shared-memory instruction into the MIO queue at `now`."""
    h = (s.mio_head[sp] + 1) % MIO_RING
    s.mio_issued[sp, h] = now
    s.mio_head[sp] = h


@njit(inline="always")
def mio_taken(s, sp, a, b):
    """How many shared-memory instructions sub-partition sp put into the MIO queue in [a, b) (at most MIO_RING):
    for a warp that waited for the queue then, each was an entry that came free and went to another warp, a cycle
    it was eligible and not selected. The H100 samples about 0.3 not_selected per mio_throttle on the shared
    loads of the per-SASS tables (ho_matmul_tile32 0.28, ho_bitonic_sort_shared 0.35, ho_scan_exclusive 0.32;
    tri_softmax, one warp a sub-partition, 0.06)."""
    n = 0
    for k in range(MIO_RING):
        t = s.mio_issued[sp, k]
        if a <= t < b:
            n += 1
    return n


@njit(inline="always")
def mio_keep(s, sp, a, e):
    """Of a warp's wait for the MIO queue from a to e, the cycles that stay mio_throttle: less one for each
    entry another warp of its sub-partition took (`mio_taken`), which are not_selected."""
    return max(e - a - mio_taken(s, sp, a, e), 0)


@njit(no_cpython_wrapper=True)
def wake_released(s, wcta, wstat, ctas_per_sm, latency, c, now):
    """Warps of CTA slot c that waited at a barrier the executor has released go on `latency` cycles later."""
    sm = c // ctas_per_sm
    for w in range(sm * s.warps_per_sm, (sm + 1) * s.warps_per_sm):
        if s.at_barrier[w] == 1 and wcta[w] == c and wstat[w] == W_READY:
            s.at_barrier[w] = 0
            wake(s, w, now + latency, BARRIER)


@njit(inline="always")
def reads_held_until(s, sp, w, now):
    """The cycle another warp's register reads stop holding sub-partition sp's dispatch for warp w (0: they
    do not hold it at `now`)."""
    h = s.held_head[sp]
    holder = s.held[sp, h, 2]
    if holder >= 0 and holder != w and s.held[sp, h, 1] > now:
        return s.held[sp, h, 1]
    return 0


@njit(inline="always")
def _held(s, sp, a, b, w=-1, fma=True):
    """Cycles of [a, b) in which sub-partition sp's dispatch was held for warp w (fma: at an instruction of the
    FMA pipe, which another warp's register reads hold)."""
    n = 0
    h = s.held_head[sp]
    if s.held[sp, h, 1] <= a:
        return 0
    for k in range(HELD_RING):
        x, y = s.held[sp, (h - k) % HELD_RING, 0], s.held[sp, (h - k) % HELD_RING, 1]
        if y <= a:
            break
        holder = s.held[sp, (h - k) % HELD_RING, 2]
        if holder >= 0 and (holder == w or not fma):     # its own reads, or reads that do not hold it
            continue
        lo, hi = max(x, a), min(y, b)
        if hi > lo:
            n += hi - lo
    return n


@njit(inline="always")
def _charge(s, pc, reason, a, b, sp=-1, w=-1, fma=True):
    """[a, b) to `reason`; with sp, what of it a warp ready to issue (wait, not_selected, math_pipe_throttle) lost
    to sub-partition sp's held dispatch to dispatch_stall."""
    if b > a:
        h = 0
        if sp >= 0 and (reason == WAIT or reason == NOT_SELECTED or reason == MATH_PIPE_THROTTLE):
            h = _held(s, sp, a, b, w, fma)
        s.stall[reason] += b - a - h
        s.pc_stall[pc, reason] += b - a - h
        s.stall[DISPATCH_STALL] += h
        s.pc_stall[pc, DISPATCH_STALL] += h


# ------------------------------------------------------------------ stall accounting
@njit(inline="always")
def account(s, w, pc, now, eligible_at, reason, issued, split_at, split_reason, keep, split0_at, split0_reason,
            fma=True):
    """Charge the cycles since warp w last issued: to `split0_reason` until `split0_at`, then to `split_reason`
    until `split_at`, then to
    `reason` until it was eligible (only `keep` of those cycles; the rest it lost to another warp:
    not_selected), then to not_selected; the issue cycle itself to selected. A join's hold (`hold_join`)
    is charged first, in its stretches. Cycles a ready warp lost to its sub-partition's held dispatch
    (`hold_dispatch`; another warp's register reads hold it only at an FMA-pipe instruction, `fma`) are
    dispatch_stall."""
    t0 = s.accounted_until[w]
    sp = subpartition_of(s, w)
    if s.join_split[w, 4] > t0:
        j = s.join_split[w]
        a, b = min(max(j[0], t0), now), min(max(j[2], t0), now)
        c, d = min(max(j[3], t0), now), min(max(j[4], t0), now)
        _charge(s, pc, j[1], t0, a, sp, w, fma)
        _charge(s, pc, WAIT, a, b, sp, w, fma)
        _charge(s, pc, BRANCH_RESOLVING, b, c)
        _charge(s, pc, WAIT, c, d, sp, w, fma)
        t0 = d
    s.join_split[w, 4] = 0
    a = min(max(eligible_at, t0), now)
    b = min(max(split_at, t0), a)
    b0 = min(max(split0_at, t0), b)
    _charge(s, pc, split0_reason, t0, b0, sp, w, fma)
    _charge(s, pc, split_reason, b0, b, sp, w, fma)
    k = max(min(a - b, keep), 0)
    _charge(s, pc, reason, b, b + k, sp, w, fma)
    _charge(s, pc, NOT_SELECTED, b + k, now, sp, w, fma)
    if issued:
        s.stall[SELECTED] += 1
        s.pc_stall[pc, SELECTED] += 1
    s.accounted_until[w] = now + 1
