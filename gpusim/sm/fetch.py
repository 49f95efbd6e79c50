"""Instruction fetch: a per-SM instruction cache, filled through the L2.

Each PTX instruction stands for `inst_bytes` of machine code, so instruction `pc` lives in cache
line `pc * inst_bytes // line_bytes`. A warp whose next instruction's line is not in its SM's
instruction cache stalls on no_instruction until the line arrives: its four sectors are read from
the L2 like data (so the first SM to need a line finds it in DRAM, the others in the L2), plus
`miss_latency` cycles of the fetch path itself. Warps that want a line already on its way wait for
the same fill. Each SM streams ahead of the furthest line any of its warps has entered, keeping
`prefetch_lines` lines requested beyond it, so straight-line code rarely waits after the first
miss. The cache starts cold at every launch, as a freshly launched kernel's code is on the H100
(with the L2 flushed, a one-warp kernel's no_instruction stall is one DRAM round trip).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.jit import njit
from gpusim.memory.cache import fill, make_cache, probe
from gpusim.memory.l2 import l2_access
from gpusim.memory.replacement import check_policy
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class FetchSpec:
    """The instruction cache of one SM."""
    icache_bytes: int = param(131072, "B", "instruction cache per SM (the L1.5 / L1i level)", (1, 1 << 22))
    icache_assoc: int = param(4, "ways", "its associativity", (1, 1024))
    line_bytes: int = param(128, "B", "its line size", (1, 4096))
    inst_bytes: int = param(16, "B", "machine code per instruction (Volta and later: 128-bit instructions)", (1, 64))
    miss_latency: int = param(0, "cycles", "the fetch path's own delay on a miss, beyond the L2 read of the line "
                                             "(fitted: launch_empty's no_instruction stall)", (0, MAX_CYCLES))
    prefetch_lines: int = param(32, "lines", "lines each SM keeps requested ahead of the furthest line entered "
                                             "(32: one exposed miss per kernel start, as ncu shows)", (1, 4096))
    replacement: str = param("lru", "name", "replacement policy: lru | fifo | srrip (gpusim/memory/replacement.py)")

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        for name in ("icache_bytes", "icache_assoc", "line_bytes", "inst_bytes", "prefetch_lines"):
            if getattr(self, name) < 1:
                raise ConfigError(f"bad value for '{prefix}{name}': must be at least 1")
        if self.line_bytes % self.inst_bytes or (self.line_bytes // self.inst_bytes) & (
                self.line_bytes // self.inst_bytes - 1):
            raise ConfigError(f"bad value for '{prefix}line_bytes': must hold a power-of-two number of "
                              "instructions")
        check_policy(self.replacement, prefix + "replacement")


Fetch = namedtuple("Fetch", "cache miss_latency prefetch_lines line_shift last_line warp_line warp_line_ready "
                           "stream_head counters")
MISSES = 0      # counters
CODE_SECTOR = np.int64(1) << 41        # the kernel's code, as sectors of its own address range


def make_state(spec: FetchSpec, n_sm: int, n_warps: int, n_pcs: int) -> Fetch:
    shift = (spec.line_bytes // spec.inst_bytes).bit_length() - 1
    return Fetch(make_cache(n_sm, spec.icache_bytes, spec.icache_assoc, spec.replacement, spec.line_bytes),
                 np.int64(spec.miss_latency), np.int64(spec.prefetch_lines), np.int64(shift),
                 np.int64((n_pcs - 1) >> shift), np.full(n_warps, -1, np.int64), np.zeros(n_warps, np.int64),
                 np.full(n_sm, -1, np.int64), np.zeros(1, np.int64))


def counters(f: Fetch) -> dict:
    return {"gpusim__icache_misses.sum": int(f.counters[MISSES])}


@njit
def _fill_line(f, l2, noc, dram, sm, line, now):
    """Request a line for SM sm's instruction cache: the cycle it arrives."""
    t = now
    for s in range(4):
        t = max(t, l2_access(l2, noc, dram, sm, CODE_SECTOR + line * 4 + s, now, False))
    t += f.miss_latency
    f.counters[MISSES] += 1
    fill(f.cache, sm, line << 2, t, now, False)
    return t


@njit
def fetch_line(f, l2, noc, dram, sm, w, line, now):
    """The lookup (and, on a miss, the fill and the stream prefetch) when warp w enters a new line."""
    r = probe(f.cache, sm, line << 2, now)
    if r < 0:
        r = _fill_line(f, l2, noc, dram, sm, line, now)
    ahead = min(line + f.prefetch_lines, f.last_line)
    if f.stream_head[sm] < ahead:            # stream ahead of the furthest line entered
        for x in range(max(f.stream_head[sm] + 1, line + 1), ahead + 1):
            if probe(f.cache, sm, x << 2, now) < 0:
                _fill_line(f, l2, noc, dram, sm, x, now)
        f.stream_head[sm] = ahead
    if r <= now:             # remember the line and when it came, to skip the lookup next time
        f.warp_line[w] = line
        f.warp_line_ready[w] = r
    return r


@njit(inline="always")
def fetch_ready(f, l2, noc, dram, sm, w, pc, now):
    """Cycle warp w's instruction at `pc` is (or was) in the instruction cache; a miss starts the fill.
    Fast path: the warp is still in the line it last found present."""
    line = pc >> f.line_shift
    if f.warp_line[w] == line:
        return f.warp_line_ready[w]
    return fetch_line(f, l2, noc, dram, sm, w, line, now)
