"""Instruction fetch: a per-SM instruction cache in front of the memory system.

Each PTX instruction stands for `inst_bytes` of machine code, so instruction `pc` lives in cache
line `pc * inst_bytes // line_bytes`. A warp whose next instruction's line is not in its SM's
instruction cache stalls on no_instruction while the line and the next `prefetch_lines - 1` lines
come in `miss_latency` cycles later; warps that want a line already on its way wait for the same
fill. The cache starts cold at every launch, as the code of a freshly launched kernel is on the
H100 (Nsight Compute's no_instruction stalls of a one-warp kernel are this cold fetch).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gpusim.memory.cache import fill, make_cache, probe
from gpusim.spec import param
from gpusim.timing.state_index import C_FETCH_LAT, C_FETCH_PREF, C_INST_SHIFT, K_IC_MISS


@dataclass(frozen=True)
class FetchSpec:
    """The instruction cache of one SM."""
    icache_bytes: int = param(131072, "B", "instruction cache per SM (the L1.5 / L1i level)")
    icache_assoc: int = param(4, "ways", "its associativity")
    line_bytes: int = param(128, "B", "its line size")
    inst_bytes: int = param(16, "B", "machine code per instruction (Volta and later: 128-bit instructions)")
    miss_latency: int = param(520, "cycles", "a missing line arrives this long after it is asked for "
                                             "(fitted: launch_empty's no_instruction stall)")
    prefetch_lines: int = param(4, "lines", "a miss brings in this many consecutive lines")

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
            "wline": np.full(n_warps, -1, np.int64), "wfetched": np.zeros(n_warps, np.int64)}


def config(spec: FetchSpec) -> dict:
    per_line = spec.line_bytes // spec.inst_bytes
    return {C_FETCH_LAT: spec.miss_latency, C_FETCH_PREF: spec.prefetch_lines,
            C_INST_SHIFT: per_line.bit_length() - 1}


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def fetch_ready(T, sm, w, pc, now):
    """Cycle warp w's instruction at `pc` is (or was) in the instruction cache; a miss starts the fill."""
    line = pc >> T.cfg[C_INST_SHIFT]
    if T.wline[w] == line:
        return T.wfetched[w]
    r = probe(T.ic_tag, T.ic_valid, T.ic_rdy, T.ic_lru, sm, line << 2, now)
    if r < 0:
        T.cnt[K_IC_MISS] += 1
        r = now + T.cfg[C_FETCH_LAT]
        for k in range(T.cfg[C_FETCH_PREF]):
            if k == 0 or probe(T.ic_tag, T.ic_valid, T.ic_rdy, T.ic_lru, sm, (line + k) << 2, now) < 0:
                fill(T.ic_tag, T.ic_valid, T.ic_dirty, T.ic_rdy, T.ic_lru, sm, (line + k) << 2, r, now, False)
    if r <= now:             # remember the line and when it came, to skip the lookup next time
        T.wline[w] = line
        T.wfetched[w] = r
    return r
