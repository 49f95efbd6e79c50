"""Event recording: what the simulated GPU did and when, for traces and the animated view (off by default).

A unit like the others: `EventsSpec` (sampling interval and caps), a state of preallocated numpy
arrays (`make_state`; when recording is off the arrays are one element each and `on` is 0, so the
cycle loop's single flag check is never taken) and the numba functions the core calls:

  record_cta_start / record_cta_end  every CTA: linear id, SM, CTA slot, dispatch cycle, end cycle
  note_hold / note_issue             per warp slot: the reason that holds it (from `earliest`), its last issue
  take_samples                       at each interval boundary: every warp slot's state, per sub-partition
                                     issue counts, L2 and DRAM bytes, outstanding L1 misses, active warps
  want_request / record_request      every N-th global memory instruction (a warp's request): where it was
                                     served (the L2's probe: the slowest of its sectors that left the L1),
                                     when it got to its L2 slice and when its data was back

Bounded by caps, deterministically: when the sample rows are full, neighbouring intervals merge
(the interval doubles; a warp counts as issued if it issued in either half, else it shows the later
state); when the request buffer is full, every other record is dropped (N doubles). `decode` turns
the state into `Events`, which says what was merged and dropped.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.jit import njit
from gpusim.sm.stalls import BARRIER, NOT_SELECTED, STALLS
from gpusim.sm.state import W_BARRIER, W_DONE, W_FREE

EMPTY, ISSUED = 0, 1                 # warp-slot states; a stall reason r is STALLED + r
STALLED = 2
STATE_NAMES = ["empty", "issued"] + list(STALLS)
L1_HIT, L2_HIT, DRAM, STORE, ATOMIC = 0, 1, 2, 3, 4      # where a sampled request was served
WHERE_NAMES = ["l1_hit", "l2_hit", "dram", "store", "atomic"]
LOAD_REQ, STORE_REQ, ATOMIC_REQ = 0, 1, 2
REQ_FIELDS = ("sm", "warp", "where", "slice", "issue", "l2_at", "back")
CTA_FIELDS = ("cta", "sm", "slot", "start", "end")


@dataclass(frozen=True)
class EventsSpec:
    """What to record: interval in cycles (0: off), caps on samples, memory requests and CTAs."""
    interval: int = 0
    max_samples: int = 2048
    max_slot_samples: int = 16 << 20      # bytes of warp-slot states (samples x SMs x warp slots)
    max_requests: int = 20000
    max_ctas: int = 1 << 20


Recorder = namedtuple("Recorder", "on interval0 n_sm warps_per_sm nsp interval next_at n_samples prev "
                                  "warp_state sp_issue l2_bytes dram_bytes outstanding active last_issue hold "
                                  "cta n_cta slot_row req n_req req_every req_seen")


def make_state(spec: EventsSpec, n_sm: int, warps_per_sm: int, nsp: int, ctas_per_sm: int, total_ctas: int):
    on = spec.interval > 0
    n_warps = n_sm * warps_per_sm
    cap = 2
    if on:
        cap = max(2, min(spec.max_samples, spec.max_slot_samples // max(n_warps, 1)) // 2 * 2)
    rows = cap + 1 if on else 1
    nw, nc = (n_warps, n_sm * ctas_per_sm) if on else (1, 1)
    sms = n_sm if on else 1
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    return Recorder(np.int64(on), np.int64(max(spec.interval, 1)), np.int64(n_sm), np.int64(warps_per_sm),
                    np.int64(nsp), np.full(1, max(spec.interval, 1), np.int64),
                    np.full(1, spec.interval if on else np.int64(1) << 62, np.int64), z(1), z(2),
                    np.zeros((rows, sms, warps_per_sm if on else 1), np.uint8), np.zeros((rows, nsp if on else 1),
                                                                                        np.int32),
                    z(rows), z(rows), np.zeros((rows, sms), np.int32), np.zeros((rows, sms), np.int32),
                    np.full(nw, -1, np.int64), z(nw), z(min(total_ctas, spec.max_ctas) if on else 1, 5), z(1),
                    np.full(nc, -1, np.int64), z(spec.max_requests // 2 * 2 if on else 2, len(REQ_FIELDS)), z(1),
                    np.ones(1, np.int64), z(1))


# ------------------------------------------------------------------ CTAs
@njit(no_cpython_wrapper=True)
def record_cta_start(ev, cta, sm, slot, now):
    n = ev.n_cta[0]
    if n >= ev.cta.shape[0]:
        ev.slot_row[slot] = -1
        return
    ev.cta[n, 0], ev.cta[n, 1], ev.cta[n, 2], ev.cta[n, 3], ev.cta[n, 4] = cta, sm, slot, now, -1
    ev.slot_row[slot] = n
    ev.n_cta[0] = n + 1


@njit(no_cpython_wrapper=True)
def record_cta_end(ev, slot, now):
    row = ev.slot_row[slot]
    if row >= 0:
        ev.cta[row, 4] = now


# ------------------------------------------------------------------ warp slots
@njit(no_cpython_wrapper=True, inline="always")
def note_hold(ev, w, reason):
    ev.hold[w] = reason


@njit(no_cpython_wrapper=True, inline="always")
def note_issue(ev, w, sp, now):
    ev.last_issue[w] = now
    ev.sp_issue[ev.n_samples[0], sp] += 1


@njit(no_cpython_wrapper=True)
def _slot_state(ev, w, t0, t, wstat, next_bound, ready_at, reason, at_barrier):
    if ev.last_issue[w] >= t0:
        return ISSUED
    st = wstat[w]
    if st == W_FREE or st == W_DONE:
        return EMPTY
    if st == W_BARRIER or at_barrier[w] != 0:
        return STALLED + BARRIER
    nb = next_bound[w]
    if nb == 0:            # not looked at since its last issue or wake: held by what set ready_at
        return STALLED + (reason[w] if ready_at[w] > t else NOT_SELECTED)
    return STALLED + (ev.hold[w] if nb > t else NOT_SELECTED)


@njit(no_cpython_wrapper=True)
def _merge(ev):
    """Rows full: neighbouring intervals merge, the interval doubles."""
    cap = ev.warp_state.shape[0] - 1
    half = cap // 2
    for i in range(half):
        a, b = 2 * i, 2 * i + 1
        for sm in range(ev.warp_state.shape[1]):
            for j in range(ev.warp_state.shape[2]):
                s = ev.warp_state[b, sm, j]
                if ev.warp_state[a, sm, j] == ISSUED:
                    s = ISSUED
                ev.warp_state[i, sm, j] = s
            ev.outstanding[i, sm] = ev.outstanding[b, sm]
            ev.active[i, sm] = ev.active[b, sm]
        for sp in range(ev.sp_issue.shape[1]):
            ev.sp_issue[i, sp] = ev.sp_issue[a, sp] + ev.sp_issue[b, sp]
        ev.l2_bytes[i] = ev.l2_bytes[a] + ev.l2_bytes[b]
        ev.dram_bytes[i] = ev.dram_bytes[a] + ev.dram_bytes[b]
    for sp in range(ev.sp_issue.shape[1]):        # the open interval becomes the first half of the new one
        ev.sp_issue[half, sp] = ev.sp_issue[cap, sp]
        for i in range(half + 1, cap + 1):
            ev.sp_issue[i, sp] = 0
    ev.n_samples[0] = half
    ev.interval[0] *= 2
    ev.next_at[0] = (half + 1) * ev.interval[0]


@njit(no_cpython_wrapper=True)
def take_samples(ev, now, wstat, next_bound, ready_at, reason, at_barrier, sm_warps, mshr_free, mshr_next,
                 l2_bytes, dram_bytes):
    """Close every interval that ends at or before `now` (all cycles before `now` are simulated)."""
    while ev.next_at[0] <= now:
        t = ev.next_at[0]
        k = ev.n_samples[0]
        t0 = t - ev.interval[0]
        for sm in range(ev.n_sm):
            base = sm * ev.warps_per_sm
            for j in range(ev.warps_per_sm):
                ev.warp_state[k, sm, j] = _slot_state(ev, base + j, t0, t, wstat, next_bound, ready_at, reason,
                                                      at_barrier)
            busy = 0
            for m in range(min(mshr_next[sm], mshr_free.shape[1])):
                if mshr_free[sm, m] > t:
                    busy += 1
            ev.outstanding[k, sm] = busy
            ev.active[k, sm] = sm_warps[sm]
        ev.l2_bytes[k] = l2_bytes - ev.prev[0]
        ev.dram_bytes[k] = dram_bytes - ev.prev[1]
        ev.prev[0], ev.prev[1] = l2_bytes, dram_bytes
        ev.n_samples[0] = k + 1
        ev.next_at[0] = t + ev.interval[0]
        if k + 1 == ev.warp_state.shape[0] - 1:
            _merge(ev)


# ------------------------------------------------------------------ memory requests
@njit(no_cpython_wrapper=True)
def want_request(ev):
    """Count a global sector request; True when it is one of the every-N-th recorded."""
    seq = ev.req_seen[0]
    ev.req_seen[0] = seq + 1
    if seq % ev.req_every[0] != 0:
        return False
    if ev.n_req[0] == ev.req.shape[0]:         # full: keep every other record, N doubles
        half = ev.req.shape[0] // 2
        for i in range(half):
            for f in range(ev.req.shape[1]):
                ev.req[i, f] = ev.req[2 * i, f]
        ev.n_req[0] = half
        ev.req_every[0] *= 2
        return seq % ev.req_every[0] == 0
    return True


@njit(no_cpython_wrapper=True)
def record_request(ev, sm, w, kind, probe, issue, back):
    """probe: the L2's (slice, cycle at the slice, hit) of the request's slowest sector; slice -1: none
    left the L1."""
    sl, l2_at = probe[0], probe[1]
    if kind == STORE_REQ:
        where = STORE
    elif kind == ATOMIC_REQ:
        where = ATOMIC
    elif sl < 0:
        where, l2_at = L1_HIT, -1
    else:
        where = L2_HIT if probe[2] != 0 else DRAM
    n = ev.n_req[0]
    r = ev.req
    r[n, 0], r[n, 1], r[n, 2], r[n, 3], r[n, 4], r[n, 5], r[n, 6] = sm, w, where, sl, issue, l2_at, back
    ev.n_req[0] = n + 1


# ------------------------------------------------------------------ after the run (Python)
@dataclass
class Events:
    """What a timing launch recorded (`LaunchResult.events`). Cycles are simulated cycles from the
    launch; sample k covers cycles [k * interval, (k + 1) * interval) and its states are those at the
    end of it (the last one may reach past `cycles`)."""
    cycles: int
    clock_mhz: float
    n_sm: int
    warps_per_sm: int
    subpartitions: int
    l2_slices: int
    cta: np.ndarray            # structured: cta, sm, slot, start, end (dispatch order)
    ctas_total: int            # CTAs in the grid (more than len(cta) when the cap dropped some)
    interval: int              # cycles per sample, after merging
    interval_requested: int    # the interval asked for; interval / interval_requested samples were merged
    warp_state: np.ndarray     # uint8 [samples, n_sm, warps_per_sm]: STATE_NAMES index
    sp_issue: np.ndarray       # int32 [samples, n_sm * subpartitions]: warp instructions issued
    l2_bytes: np.ndarray       # int64 [samples]: bytes of L2 sector accesses requested in the interval
    dram_bytes: np.ndarray     # int64 [samples]: DRAM bytes read and written, requested in the interval
    outstanding: np.ndarray    # int32 [samples, n_sm]: L1 misses in flight at the end of the interval
    active: np.ndarray         # int32 [samples, n_sm]: resident warps at the end of the interval
    requests: np.ndarray       # structured: REQ_FIELDS (where: WHERE_NAMES index; slice, l2_at -1 for an L1 hit)
    requests_every: int        # one in this many global memory instructions is in `requests`
    requests_seen: int         # global memory instructions in all
    state_names: tuple = tuple(STATE_NAMES)
    where_names: tuple = tuple(WHERE_NAMES)

    @property
    def n_samples(self) -> int:
        return int(self.warp_state.shape[0])

    def decimation(self) -> list[str]:
        """What was merged or left out, in words (a view must say so)."""
        out = []
        if self.interval != self.interval_requested:
            out.append(f"warp states sampled every {self.interval} cycles ({self.interval // self.interval_requested}"
                       f" intervals of {self.interval_requested} merged to stay within {self.n_samples} samples)")
        if self.requests_every > 1:
            out.append(f"1 in {self.requests_every} of {self.requests_seen} global memory requests recorded")
        if len(self.cta) < self.ctas_total:
            out.append(f"{len(self.cta)} of {self.ctas_total} CTAs recorded")
        return out


def _structured(rows: np.ndarray, names) -> np.ndarray:
    out = np.zeros(len(rows), dtype=[(n, np.int64) for n in names])
    for i, n in enumerate(names):
        out[n] = rows[:, i]
    return out


def decode(rec: Recorder, cycles: int, clock_mhz: float, subpartitions: int, l2_slices: int,
           total_ctas: int) -> Events | None:
    """The recorder's arrays as `Events` (None when recording was off). The core closed every interval
    up to the end of the run (`take_samples` with `rec.next_at[0]`)."""
    if not rec.on:
        return None
    n = int(rec.n_samples[0])
    return Events(cycles=int(cycles), clock_mhz=float(clock_mhz), n_sm=int(rec.n_sm),
                  warps_per_sm=int(rec.warps_per_sm), subpartitions=subpartitions, l2_slices=l2_slices,
                  cta=_structured(rec.cta[:int(rec.n_cta[0])], CTA_FIELDS), ctas_total=int(total_ctas),
                  interval=int(rec.interval[0]), interval_requested=int(rec.interval0),
                  warp_state=rec.warp_state[:n].copy(), sp_issue=rec.sp_issue[:n].copy(),
                  l2_bytes=rec.l2_bytes[:n].copy(), dram_bytes=rec.dram_bytes[:n].copy(),
                  outstanding=rec.outstanding[:n].copy(), active=rec.active[:n].copy(),
                  requests=_structured(rec.req[:int(rec.n_req[0])], REQ_FIELDS),
                  requests_every=int(rec.req_every[0]), requests_seen=int(rec.req_seen[0]))
