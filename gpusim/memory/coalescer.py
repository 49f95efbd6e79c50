"""The per-warp coalescer: which 32-byte sectors (and 128-byte lines) one warp instruction touches.

Requests and sectors are counted as Nsight Compute counts them for l1tex global/local traffic:
one request per warp instruction, one sector per distinct 32-byte sector any active lane touches.
"""
from __future__ import annotations

import numpy as np

from gpusim.jit import njit


@njit
def coalesce(addrs, mask, size, out):
    """Distinct sector numbers (address // 32) touched by active lanes, sorted, into `out`.

    Returns the number of sectors. `out` needs room for 32 * (size // 32 + 2) entries.
    """
    n = 0
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        first = addrs[l] >> 5
        last = (addrs[l] + size - 1) >> 5
        for s in range(first, last + 1):
            # insertion into the sorted prefix, skipping duplicates
            j = n
            while j > 0 and out[j - 1] > s:
                j -= 1
            if j > 0 and out[j - 1] == s:
                continue
            for k in range(n, j, -1):
                out[k] = out[k - 1]
            out[j] = s
            n += 1
    return n


@njit
def count_lines(sectors, n):
    """Distinct 128-byte lines among sorted sector numbers."""
    lines = 0
    prev = np.int64(-1)
    for k in range(n):
        ln = sectors[k] >> 2
        if ln != prev:
            lines += 1
            prev = ln
    return lines
