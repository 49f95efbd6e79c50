"""Shared memory banks: 32 banks of 4 bytes. A warp access needs as many wavefronts as the largest
number of distinct 4-byte words any one bank must deliver (lanes reading the same word share it)."""
from __future__ import annotations

from numba import njit


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
