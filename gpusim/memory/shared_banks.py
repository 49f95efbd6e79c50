"""Shared memory banks: 32 banks of 4 bytes. A warp access needs as many wavefronts as the largest
number of distinct 4-byte words any one bank must deliver (lanes reading the same word share it).
The MIO pipe of an SM moves one wavefront per cycle; the data of an access is ready `latency`
cycles after its first wavefront plus one cycle per further wavefront."""
from __future__ import annotations

from dataclasses import dataclass

from numba import njit

from gpusim.spec import param


@dataclass(frozen=True)
class SharedMemSpec:
    """Shared memory of one SM (its size is an SM resource: sm.smem)."""
    latency: int = param(12, "cycles", "load latency without conflicts (fitted: chase_shared; the PTX address "
                                       "arithmetic of a chase step adds the rest)")
    banks: int = param(32, "count", "4-byte banks; a wavefront serves one word per bank")
    mio_queue: int = param(32, "cycles", "how far ahead of the MIO pipe warps may queue shared accesses before "
                                         "they stall on mio_throttle")

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.banks < 1:
            raise ConfigError(f"bad value for '{prefix}banks': must be at least 1")


@njit(cache=True, _nrt=False, error_model="numpy")
def wavefronts(addrs, mask, size, nbanks, words, banks):
    """Wavefronts for one shared-memory warp access; `words`/`banks` are scratch arrays (>= 128)."""
    n = 0
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        for k in range((size + 3) // 4):
            wd = (addrs[l] >> 2) + k
            dup = False
            for j in range(n):
                if words[j] == wd:
                    dup = True
                    break
            if not dup:
                words[n] = wd
                n += 1
    for b in range(nbanks):
        banks[b] = 0
    worst = 0
    for j in range(n):
        b = words[j] % nbanks
        banks[b] += 1
        if banks[b] > worst:
            worst = banks[b]
    return max(worst, 1)
