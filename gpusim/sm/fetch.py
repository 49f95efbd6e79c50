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

from dataclasses import dataclass

import numpy as np
from numba import njit

from gpusim.memory.cache import fill, make_cache, probe
from gpusim.memory.l2 import l2_access
from gpusim.spec import param
from gpusim.timing.state_index import C_FETCH_LAT, C_FETCH_PREF, C_INST_SHIFT, K_IC_MISS


@dataclass(frozen=True)
class FetchSpec:
    """The instruction cache of one SM."""
    icache_bytes: int = param(131072, "B", "instruction cache per SM (the L1.5 / L1i level)")
    icache_assoc: int = param(4, "ways", "its associativity")
    line_bytes: int = param(128, "B", "its line size")
    inst_bytes: int = param(16, "B", "machine code per instruction (Volta and later: 128-bit instructions)")
    miss_latency: int = param(0, "cycles", "the fetch path's own delay on a miss, beyond the L2 read of the line "
                                             "(fitted: launch_empty's no_instruction stall)")
    prefetch_lines: int = param(32, "lines", "lines each SM keeps requested ahead of the furthest line entered "
                                             "(32: one exposed miss per kernel start, as ncu shows)")

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        for name in ("icache_bytes", "icache_assoc", "line_bytes", "inst_bytes", "prefetch_lines"):
            if getattr(self, name) < 1:
                raise ConfigError(f"bad value for '{prefix}{name}': must be at least 1")
        if self.line_bytes % self.inst_bytes or (self.line_bytes // self.inst_bytes) & (
                self.line_bytes // self.inst_bytes - 1):
            raise ConfigError(f"bad value for '{prefix}line_bytes': must hold a power-of-two number of "
                              "instructions")


def make_state(spec: FetchSpec, n_sm: int, n_warps: int) -> dict:
    tag, valid, dirty, rdy, lru = make_cache(n_sm, spec.icache_bytes, spec.icache_assoc, spec.line_bytes)
    return {"ic_tag": tag, "ic_valid": valid, "ic_dirty": dirty, "ic_rdy": rdy, "ic_lru": lru,
            "wline": np.full(n_warps, -1, np.int64), "wfetched": np.zeros(n_warps, np.int64),
            "ic_head": np.full(n_sm, -1, np.int64)}


def config(spec: FetchSpec) -> dict:
    per_line = spec.line_bytes // spec.inst_bytes
    return {C_FETCH_LAT: spec.miss_latency, C_FETCH_PREF: spec.prefetch_lines,
            C_INST_SHIFT: per_line.bit_length() - 1}


CODE_SECTOR = np.int64(1) << 41        # the kernel's code, as sectors of its own address range


@njit(cache=True, _nrt=False, error_model="numpy")
def _fill_line(T, sm, line, now):
    """Request a line for SM sm's instruction cache: the cycle it arrives."""
    t = now
    for s in range(4):
        t = max(t, l2_access(T, sm, CODE_SECTOR + line * 4 + s, now, False))
    t += T.cfg[C_FETCH_LAT]
    T.cnt[K_IC_MISS] += 1
    fill(T.ic_tag, T.ic_valid, T.ic_dirty, T.ic_rdy, T.ic_lru, sm, line << 2, t, now, False)
    return t


@njit(cache=True, _nrt=False, error_model="numpy")
def _fetch_line(T, sm, w, line, now):
    """The lookup (and, on a miss, the fill and the stream prefetch) when warp w enters a new line."""
    r = probe(T.ic_tag, T.ic_valid, T.ic_rdy, T.ic_lru, sm, line << 2, now)
    if r < 0:
        r = _fill_line(T, sm, line, now)
    ahead = min(line + T.cfg[C_FETCH_PREF], (T.srcregs.shape[0] - 1) >> T.cfg[C_INST_SHIFT])
    if T.ic_head[sm] < ahead:            # stream ahead of the furthest line entered
        for x in range(max(T.ic_head[sm] + 1, line + 1), ahead + 1):
            if probe(T.ic_tag, T.ic_valid, T.ic_rdy, T.ic_lru, sm, x << 2, now) < 0:
                _fill_line(T, sm, x, now)
        T.ic_head[sm] = ahead
    if r <= now:             # remember the line and when it came, to skip the lookup next time
        T.wline[w] = line
        T.wfetched[w] = r
    return r


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def fetch_ready(T, sm, w, pc, now):
    """Cycle warp w's instruction at `pc` is (or was) in the instruction cache; a miss starts the fill.
    Inlined fast path: the warp is still in the line it last found present."""
    line = pc >> T.cfg[C_INST_SHIFT]
    if T.wline[w] == line:
        return T.wfetched[w]
    return _fetch_line(T, sm, w, line, now)
