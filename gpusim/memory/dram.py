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


DRAM = namedtuple("DRAM", "channels latency channel_bandwidth fetch_pairs counters")
READ_BYTES, WRITE_BYTES = range(2)       # counters


def make_state(spec: DRAMSpec) -> DRAM:
    return DRAM(make_timeline(spec.channels), np.int64(spec.latency),
                np.float64(spec.bandwidth / spec.channels), spec.fetch_bytes >= 64, np.zeros(2, np.int64))


def counters(d: DRAM) -> dict:
    return {"dram__bytes_read.sum": int(d.counters[READ_BYTES]), "dram__bytes_write.sum": int(d.counters[WRITE_BYTES])}


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
    return np.int64(start) + d.latency


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
