"""DRAM channels (HBM3 on H100): each channel serves sectors at its share of the bandwidth, in the order they
reach it (gpusim/memory/timeline.py: a read booked for a later cycle does not hold up one that arrives first).

A sector's channel is a hash of its line address. A read sector occupies its channel for
32 B / (bandwidth / channels) cycles and its data is back `latency` cycles after the channel takes
it. With `fetch_bytes` 64 a lone sector miss brings its 64-byte pair (the DRAM burst), which the
L2 keeps.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.jit import njit
from gpusim.memory.timeline import book, make_timeline, units
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class DRAMSpec:
    """Device memory behind the L2."""
    latency: int = param(407, "cycles", "beyond the L2 on a miss (fitted: chase_dram, 689.0 cycles per step)",
                         (0, MAX_CYCLES))
    bandwidth: float = param(2.9e12 / 1980e6, "B/cycle", "whole-GPU bandwidth (HBM3, ~2.9 TB/s at 1980 MHz)",
                             (1e-3, 1e7))
    channels: int = param(80, "count", "independent channels (HBM3: 5 stacks x 16)", (1, 4096))
    fetch_bytes: int = param(64, "B", "access granularity: a lone 32-B sector miss fetches its 64-B pair", (32, 64))
    reorder: float = param(1.0, "fraction", "a read's data comes back earlier than its turn in the channel's arrival "
                                           "order by up to this fraction of its wait for the channel (a fixed hash "
                                           "of its 256-B chunk picks how much), as a controller that picks among "
                                           "its waiting reads does; the channel's time is booked as before (probe "
                                           "cta_spread: a CTA's data as spread out as the H200's)", (0.0, 1.0))
    spread: float = param(30.0, "cycles", "mean of an exponentially distributed part of a read's latency (taken off "
                                          "`latency`, so a lone read keeps its mean; a fixed hash of the sector and "
                                          "cycle draws it). Fitted with l2.spread and l1.miss_line_cycles on probe "
                                          "gather_latency: a warp load of 16 / 32 DRAM lines waits 89 / 173 cycles "
                                          "more than one of one line on the H200, 87 / 115 with 30", (0.0, 10_000.0))
    capacity: int = param(81559 << 20, "B", "device memory a launch may use (81559 MiB, as nvidia-smi reports for "
                                            "an H100 SXM5 80GB)", (1 << 20, 1 << 44))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.channels < 1:
            raise ConfigError(f"bad value for '{prefix}channels': must be at least 1")
        if self.bandwidth <= 0:
            raise ConfigError(f"bad value for '{prefix}bandwidth': must be positive")
        if self.fetch_bytes not in (32, 64):
            raise ConfigError(f"bad value for '{prefix}fetch_bytes': 32 or 64")


DRAM = namedtuple("DRAM", "channels latency channel_bandwidth fetch_pairs counters reorder spread")
READ_BYTES, WRITE_BYTES = range(2)       # counters


def make_state(spec: DRAMSpec) -> DRAM:
    return DRAM(make_timeline(spec.channels), np.int64(spec.latency),
                np.float64(spec.bandwidth / spec.channels), spec.fetch_bytes >= 64, np.zeros(2, np.int64),
                np.float64(spec.reorder), np.float64(spec.spread))


def counters(d: DRAM) -> dict:
    return {"dram__bytes_read.sum": int(d.counters[READ_BYTES]), "dram__bytes_write.sum": int(d.counters[WRITE_BYTES])}


@njit(inline="always")
def jitter(mean, key, t):
    """Cycles added to a latency: exponentially distributed with `mean`, less the mean (so a lone access keeps its
    average), at most 7 means more; a fixed hash of `key` and cycle t draws it."""
    if mean <= 0.0:
        return 0
    c = (key * np.int64(0x9E3779B1)) ^ (t * np.int64(0x85EBCA6B))
    c ^= c >> 13
    c *= np.int64(0xC2B2AE35)
    c ^= c >> 16
    u = np.float64((c & 0xFFFF) + 1) / 65537.0
    return np.int64(-mean * np.log(max(u, 0.000335)) - mean)


@njit
def channel_of(sector, n):
    line = sector >> 2
    h = line ^ (line >> 7) ^ (line >> 13)
    return h % n


@njit
def dram_read(d, sector, now):
    """One 32-byte sector read: the cycle its data is back at the L2."""
    ch = channel_of(sector, units(d.channels))
    start = book(d.channels, ch, np.float64(now), 32.0 / d.channel_bandwidth)
    d.counters[READ_BYTES] += 32
    if d.reorder > 0.0 and start > now:
        c = (sector >> 3) * np.int64(0x9E3779B1)
        u = np.float64((c ^ (c >> 15)) & 0xFFFF) / 65536.0
        start -= d.reorder * u * (start - now)
    return np.int64(start) + d.latency + jitter(d.spread, sector ^ 0x5BD1E995, np.int64(now))


@njit
def dram_burst_extra(d, sector, now):
    """The second sector of a 64-byte burst read at `now`: channel time and bytes, no extra latency."""
    ch = channel_of(sector, units(d.channels))
    book(d.channels, ch, np.float64(now), 32.0 / d.channel_bandwidth)
    d.counters[READ_BYTES] += 32


@njit
def dram_merge_reads(d, sector, n, now):
    """n partly written sectors read so that the L2 can merge them before writing them back (charged, as
    `dram_writeback`, to the channel of the line that evicted them): the cycle the channel begins them, -1 if none."""
    if n == 0:
        return -1.0
    ch = channel_of(sector, units(d.channels))
    d.counters[READ_BYTES] += 32 * n
    return book(d.channels, ch, np.float64(now), n * 32.0 / d.channel_bandwidth)


@njit
def dram_writeback(d, sector, n, now):
    """n dirty sectors evicted from the L2 (charged to the channel of the line that evicted them): the cycle the
    channel begins them, -1 if none."""
    if n == 0:
        return -1.0
    ch = channel_of(sector, units(d.channels))
    d.counters[WRITE_BYTES] += 32 * n
    return book(d.channels, ch, np.float64(now), n * 32.0 / d.channel_bandwidth)
