"""The L2: slices behind an address hash, split into partitions, sectored and write-back.

A sector's slice is a hash of its line. A slice serves one sector per 32 B / (bandwidth / slices)
cycles; a hit is back at the SM `latency` cycles after the request left the L1 (plus the fabric
cost for a far slice, gpusim/memory/interconnect.py); a miss asks DRAM half-way through and the
data returns the other half later. Stores write-allocate as dirty sectors; dirty sectors are
written to DRAM when evicted, or early while kept: a set holds only so many dirty lines (`dirty_ways`; the
H100 writes dirty data back from 20-24 MB of it, validation/probes/l2_dirty_capacity.py); a slice whose
write-backs the DRAM channel cannot begin within `evict_slack` waits for it. Atomics are
performed at the slice, `atomic_interval` cycles per operation on one sector, by the atomic unit of the slice
that owns the sector's `atomic_unit_bytes` chunk: a small array of counters belongs to one or two atomic units
and its atomics queue there.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.jit import njit
from gpusim.memory.cache import (
    clean_oldest,
    dirty_sectors,
    fill,
    holds_line,
    make_cache,
    probe,
    probe_unasked,
    set_mark,
    take_part,
    write_words,
)
from gpusim.memory.dram import dram_burst_extra, dram_merge_reads, dram_read, dram_writeback, jitter
from gpusim.memory.interconnect import deliver, hop
from gpusim.memory.replacement import check_policy
from gpusim.memory.timeline import book, make_timeline, units
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class L2Spec:
    """The GPU-wide L2 cache."""
    size: int = param(52428800, "B", "capacity (50 MB on H100)", (128, 1 << 29))
    usable: float = param(0.79, "x", "share of `size` that holds data: its sets are that many fewer (fitted: the "
                                     "l2_dirty_capacity probe's read sweeps, SM-private clean data read 4 times: "
                                     "the H100 re-reads 1.10 / 1.62 / 3.98 of it at 36 / 40 / 44 MB, a 50-MB LRU "
                                     "none; the H200's 60 MB thrash from 44-48 MB, the same share)", (0.01, 1.0))
    assoc: int = param(16, "ways", "associativity", (1, 1024))
    slices: int = param(96, "count", "slices, each with its own tag pipeline and bandwidth share", (1, 4096))
    partitions: int = param(2, "count", "partitions; slices of the other partition are reached over the fabric",
                            (1, 64))
    spread: float = param(10.0, "cycles", "mean of an exponentially distributed part of a read's latency (taken off "
                                          "`latency`, so a lone read keeps its mean; a fixed hash of the sector and "
                                          "cycle draws it): a warp waits for the latest of its sectors. Fitted with "
                                          "l1.miss_line_cycles on probe gather_latency: a warp load of 16 / 32 lines "
                                          "that hit the L2 waits 41 / 73 cycles more than one of one line on the "
                                          "H200, 43 / 60 with 10", (0.0, 10_000.0))
    latency: int = param(223, "cycles", "near-partition hit, L1 miss to data back at the SM (fitted: "
                                        "chase_l2, 282.7 cycles per step)", (0, MAX_CYCLES))
    bandwidth: float = param(2.7e12 / 1980e6 * 1.9, "B/cycle", "whole-GPU L2 bandwidth", (1e-3, 1e7))
    atomic_latency: int = param(300, "cycles", "a global atomic's round trip when it does not wait", (0, MAX_CYCLES))
    atomic_interval: float = param(1.46, "cycles", "slice time per atomic operation on one sector (fitted: atomics)",
                                   (0.0, 10_000.0))
    atomic_line_interval: float = param(1.2, "cycles", "slice time per sector operation of an integer atomic "
                                                       "request that covers all four sectors of a line, no two "
                                                       "lanes on one address (a coalesced warp RED; fitted: "
                                                       "gatomic_wrap32, 1.20 cycles per operation of its one "
                                                       "slice; validation/probes/atomic_slices.py: 1.19-1.29 on "
                                                       "256-B and 1-KiB arrays)",
                                        (0.0, 10_000.0))
    atomic_unit_bytes: int = param(512, "B", "contiguous bytes whose atomics one slice's atomic unit performs "
                                             "(fitted: gatomic_per_cta and gatomic_bins256, whose busiest slice "
                                             "performs the atomics of exactly 512 B of counters, "
                                             "lts__t_sectors_op_red.max)", (128, 1 << 20))
    atomic_float_chain: float = param(3.4, "cycles", "earliest start of a floating-point atomic after the previous "
                                                     "one on the same sector of an atomic unit: each waits for the "
                                                     "float adder's last result (fitted: gatomic_lane0_one_f32, "
                                                     "one-lane float32 requests on one address at 3.6 cycles each)",
                                      (0.0, 10_000.0))
    write_miss_cycles: float = param(6.0, "cycles", "slice time to take a partial write (a sector not wholly written) "
                                                    "to a 128-B line it does not hold: its other bytes must be "
                                                    "merged from DRAM later (fitted: store_s04..s32, whose time "
                                                    "grows with the lines written, not the sectors)",
                                     (0.0, 10_000.0))
    write_cost: float = param(1.6, "x", "slice time of a written sector, in read sectors: a write to the far "
                                         "partition is taken by a slice of each (ncu counts 1.50 L2 write sectors per "
                                         "L1 store sector on 36 of 40 recorded kernels; fitted: store_s02..s08, "
                                         "l2_store_8mb, store_rows2/4 within 3.1%)", (0.0, 1000.0))
    partial_write_cost: float = param(2.8, "x", "least slice time of a write request (one line's sectors in one "
                                                "store) that leaves bytes of a sector unwritten, in read sectors: "
                                                "the slice merges them into what it holds. Fitted on the "
                                                "sector_share probe: one-word writes, one sector per line, run at "
                                                "26-28 per cycle on the H100 whichever warps share the sectors "
                                                "(gpusim -0.9, +0.3, -3.9, +7.9%)", (0.0, 1000.0))
    write_queue_cycles: float = param(1200.0, "cycles", "slice work a slice's input queue holds: a write that "
                                                    "arrives behind more is held in its SM, whose warp cannot exit "
                                                    "(drain) until the write is in the queue (fitted: store_s16 and "
                                                    "store_s32's drain, 13.2 and 23.2 cycles per instruction against "
                                                    "the H100's 11.3 and 21.0)", (0.0, 1e12))
    replacement: str = param("lru", "name", "replacement policy: lru | fifo | srrip (gpusim/memory/replacement.py)")
    dirty_ways: int = param(8, "ways", "dirty lines a set keeps before it writes one back early: a write that makes "
                                       "one more cleans the least recently used other dirty line (written to DRAM, "
                                       "kept). The set's limit is dirty_ways plus a hash of the set modulo "
                                       "dirty_spread (fitted with it and `usable`: the l2_dirty_capacity probe's "
                                       "write sweeps, DRAM bytes written at 24-44 MB within 0.18 F of the H100's)",
                            (0, 1024))
    dirty_spread: int = param(6, "ways", "how many dirty limits the sets spread over, from dirty_ways up", (1, 1024))
    evict_slack: float = param(120.0, "cycles", "how far ahead of the DRAM channel a slice may write dirty data "
                                                "back (evicted, or early): a line whose write-back the channel "
                                                "begins later holds the slice until then (fitted: copy_bw -13.4% -> "
                                                "-2.2%, local_w64 -5.3% -> +1.7%)", (0.0, 1e12))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.slices < 1:
            raise ConfigError(f"bad value for '{prefix}slices': must be at least 1, got {self.slices}")
        if self.partitions < 1 or self.slices % self.partitions:
            raise ConfigError(f"bad value for '{prefix}partitions': slices ({self.slices}) must split evenly "
                              f"into partitions ({self.partitions})")
        if self.assoc < 1:
            raise ConfigError(f"bad value for '{prefix}assoc': must be at least 1 way, got {self.assoc}")
        if self.size < 128 * self.assoc:      # 128-B lines (gpusim/memory/cache.py)
            raise ConfigError(f"bad value for '{prefix}size': must hold at least one set "
                              f"({self.assoc} ways of 128-B lines = {128 * self.assoc} B), got {self.size}")
        if not 0.0 < self.usable <= 1.0:
            raise ConfigError(f"bad value for '{prefix}usable': a share in (0, 1], got {self.usable}")
        if self.atomic_unit_bytes < 128 or self.atomic_unit_bytes & (self.atomic_unit_bytes - 1):
            raise ConfigError(f"bad value for '{prefix}atomic_unit_bytes': must be a power of two of at least "
                              f"one 128-B line, got {self.atomic_unit_bytes}")
        if self.bandwidth <= 0:
            raise ConfigError(f"bad value for '{prefix}bandwidth': must be positive")
        check_policy(self.replacement, prefix + "replacement")


L2 = namedtuple("L2", "cache slices latency atomic_latency slice_bandwidth atomic_interval counters probe "
                     "atomic_units atomic_shift float_chain chain_sector chain_ready write_miss fill_free write_cost "
                     "partial_cost write_queue accepted atomic_line_interval dirty_ways dirty_spread evict_slack "
                     "spread")
LOOKUPS, HITS, WRITE_SECTORS = range(3)      # counters
# probe: (slice, cycle the sector got to it, hit) of the slowest access since the caller set probe[0] = -1
# (a miss outranks a hit); the event recorder reads it for the requests it samples (gpusim/timing/events.py)


def make_state(spec: L2Spec) -> L2:
    data = max(int(spec.size * spec.usable), 128 * spec.assoc)       # the capacity that holds data
    return L2(make_cache(1, data, spec.assoc, spec.replacement), make_timeline(spec.slices),
              np.int64(spec.latency), np.int64(spec.atomic_latency), np.float64(spec.bandwidth / spec.slices),
              np.float64(spec.atomic_interval), np.zeros(3, np.int64), np.full(3, -1, np.int64),
              make_timeline(spec.slices), np.int64(spec.atomic_unit_bytes.bit_length() - 6),
              np.float64(spec.atomic_float_chain), np.full(spec.slices, -1, np.int64),
              np.zeros(spec.slices, np.float64), np.float64(spec.write_miss_cycles), np.zeros(spec.slices, np.float64),
              np.float64(spec.write_cost), np.float64(spec.partial_write_cost), np.float64(spec.write_queue_cycles),
              np.zeros(1, np.float64), np.float64(spec.atomic_line_interval), np.int64(spec.dirty_ways),
              np.int64(spec.dirty_spread), np.float64(spec.evict_slack), np.float64(spec.spread))


def counters(l2: L2) -> dict:
    c = l2.counters
    return {"lts__t_sectors.sum": int(c[LOOKUPS]),
            "lts__t_sector_hit_rate.pct": 100.0 * c[HITS] / c[LOOKUPS] if c[LOOKUPS] else 0.0,
            # as ncu counts them: a sector written to the far partition at a slice of each
            "lts__t_sectors_op_write.sum": int(c[WRITE_SECTORS]),
            "gpusim__l2_dirty_bytes_at_end.sum": 32 * dirty_sectors(l2.cache)}


@njit
def slice_of(sector, n, shift=2):
    """The slice of a sector: its chunk of 32 << shift bytes (a 128-B line by default), hashed over n."""
    c = sector >> shift
    h = c ^ (c >> 7) ^ (c >> 13)
    return h % n


@njit
def _install(l2, dram, sector, when, now, dirty):
    """Install `sector`; what it evicts, or cleans early (`dirty_ways`), is written back to DRAM, a partly written
    sector after DRAM's copy is read to merge it. Returns the cycle before which the slice cannot take the line:
    `evict_slack` before the DRAM channel begins what it evicted (negative when it evicted nothing dirty)."""
    n = fill(l2.cache, 0, sector, when, now, dirty)
    out = max(dram_merge_reads(dram, sector, l2.cache.spill[0], now), dram_writeback(dram, sector, n, now))
    if dirty and l2.dirty_ways < l2.cache.tag.shape[2]:     # early write-back
        n = clean_oldest(l2.cache, 0, sector, l2.dirty_ways, l2.dirty_spread)
        out = max(out, dram_merge_reads(dram, sector, l2.cache.spill[0], now), dram_writeback(dram, sector, n, now))
    return out - l2.evict_slack


@njit(inline="always")
def _probe(l2, sl, t, hit):
    if l2.probe[0] < 0 or not hit:
        l2.probe[0], l2.probe[1], l2.probe[2] = sl, t, hit


@njit
def l2_access(l2, noc, dram, sm, sector, now, is_write, short=0, merge=0):
    """One sector from SM `sm` leaving its L1 at `now`: the cycle the data (or the write's
    acknowledgement) is back at the SM; `accepted[0]` the cycle it got into the slice's queue.
    A partial write (`short`: the sector's 4-byte words it leaves unwritten, a bit each) to a line the
    slice does not hold waits for the slice's partial-write unit, `write_miss` cycles each. merge > 0: the
    first sector of a write request (one line's sectors in one store) of `merge` sectors that leaves bytes of
    some unwritten: the request takes the slice at least `partial_cost` (the slice merges the bytes into the
    sectors it holds)."""
    nsl = units(l2.slices)
    sl = slice_of(sector, nsl)
    h = hop(noc, sm, sl, nsl)
    cost = 1.0
    if is_write:
        cost = l2.write_cost
        if merge > 0:   # the first sector of a write request of `merge` sectors, some partial: the slice's merge
            cost = max(l2.partial_cost - (merge - 1) * l2.write_cost, cost)
    start = book(l2.slices, sl, np.float64(now + h), 32.0 / l2.slice_bandwidth * cost)
    l2.accepted[0] = start - l2.write_queue     # when the write got into the slice's queue
    t = np.int64(start)
    half = l2.latency // 2
    l2.counters[LOOKUPS] += 1
    r, unasked = probe_unasked(l2.cache, 0, sector, t)
    # as ncu counts: every write is a hit, and so is a read the sector is present or on its way for, unless only a
    # 64-B DRAM burst brought it, which no SM had asked for yet (its first request counts as the miss)
    if is_write or (r >= 0 and not unasked):
        l2.counters[HITS] += 1
    _probe(l2, sl, t, r >= 0)
    if is_write:
        l2.counters[WRITE_SECTORS] += 2 if h > 0 else 1
        done = t
        if short and not holds_line(l2.cache, 0, sector):
            f = max(np.float64(t), l2.fill_free[sl])
            l2.fill_free[sl] = f + l2.write_miss
            done = np.int64(f + l2.write_miss)
        stall = _install(l2, dram, sector, t, t, True)
        if stall > t:       # the slice holds the write until its eviction can leave
            book(l2.slices, sl, np.float64(t), stall - t)
            l2.accepted[0] = max(l2.accepted[0], stall - l2.write_queue)
            done = max(done, np.int64(stall))
        # a partial write to a sector the slice lacks holds only its words: DRAM's are read to merge them (below,
        # and where it is written back) unless writes fill it first (validation/probes/dram_partial.py)
        write_words(l2.cache, 0, sector, 0xFF ^ np.int64(short), r >= 0)
        return done + l2.latency + h
    if r >= 0:
        if take_part(l2.cache, 0, sector):      # the sector's other bytes come from DRAM
            return deliver(noc, sm, dram_read(dram, sector, t + half) + (l2.latency - half) + h
                           + jitter(l2.spread, sector, t), 32)
        return deliver(noc, sm, max(r, t) + l2.latency + h + jitter(l2.spread, sector, t), 32)
    done = dram_read(dram, sector, t + half)
    stall = _install(l2, dram, sector, done, t, False)
    if stall > t:
        book(l2.slices, sl, np.float64(t), stall - t)
        done = max(done, np.int64(stall))
    if dram.fetch_pairs:
        pair = sector ^ 1          # DRAM delivers 64 B: the neighbouring sector comes along
        if probe(l2.cache, 0, pair, t) < 0:
            dram_burst_extra(dram, sector, t + half)
            _install(l2, dram, pair, done, t, False)
            set_mark(l2.cache, 0, pair)
    return deliver(noc, sm, done + (l2.latency - half) + h + jitter(l2.spread, sector, t), 32)


@njit
def l2_atomic(l2, noc, dram, sm, sector, now, ways, is_float=False, full_line=False, nbytes=32):
    """An atomic on one sector at its slice, `ways` operations deep (the most lanes on one of its
    addresses: distinct addresses of one sector are one operation): the cycle its result is back.
    nbytes: the operand bytes it brings the slice (at most a sector's), what it takes of the slice's bandwidth.
    full_line: an integer request that covers all four sectors of the line, one lane per address; its
    operations take `atomic_line_interval` each.
    A floating-point one (is_float) starts no sooner than `float_chain` cycles after the unit's last
    floating-point atomic on the same sector began: it needs that one's sum."""
    nsl = units(l2.slices)
    sl = slice_of(sector, nsl)
    au = slice_of(sector, nsl, l2.atomic_shift)     # the slice whose atomic unit owns the sector
    h = hop(noc, sm, sl, nsl)
    t = book(l2.slices, sl, np.float64(now + h), min(nbytes, 32) / l2.slice_bandwidth)
    busy = (l2.atomic_line_interval if full_line else l2.atomic_interval) * ways   # one after another
    if is_float and l2.chain_sector[au] == sector and l2.chain_ready[au] > t:
        t = l2.chain_ready[au]
    t = book(l2.atomic_units, au, t, busy)      # the unit serves requests as they arrive
    if is_float:
        l2.chain_sector[au] = sector
        l2.chain_ready[au] = t + l2.float_chain
    l2.counters[LOOKUPS] += 1
    ti = np.int64(t + busy)
    hit = probe(l2.cache, 0, sector, ti) >= 0
    if hit:
        l2.counters[HITS] += 1
    _probe(l2, sl, ti, hit)
    _install(l2, dram, sector, ti, ti, True)
    # the reply carries the last operation's result: it leaves once the operations are done
    return ti + l2.atomic_latency + h + np.int64(busy)
