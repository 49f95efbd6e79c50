"""The store path in the L1: which sectors a warp's store leaves partly unwritten, the write requests (one per
line) it sends to the L2, and write combining, where a warp's store that completes lines its previous store
wrote merges into it and sends nothing more (gpusim/sm/lsu.py `global_access` uses them; the state is the
LSU's: per warp `wc_lines`, `wc_n`, `wc_time`, `wc_addr`)."""
from __future__ import annotations

import numpy as np

from gpusim.jit import njit


@njit
def _lines_within(sectors, ns, lines, n):
    """Whether every sector of sectors[:ns] lies in one of the 128-B lines lines[:n]."""
    for k in range(ns):
        line = sectors[k] >> 2
        j = 0
        while j < n and lines[j] != line:
            j += 1
        if j == n:
            return False
    return True


@njit(inline="always")
def lowest(addrs, mask):
    """The lowest address of the active lanes."""
    lo = np.int64(1) << 62
    for l in range(32):
        if (mask >> l) & 1 and addrs[l] < lo:
            lo = addrs[l]
    return lo


@njit
def write_combines(lsu, w, ns, nl, now, lo):
    """The L1's write combining for warp w's global store, whose sectors are lsu.sectors[:ns] (nl lines),
    issued at cycle `now`: True if it merges into the warp's previous store (it writes only lines that one
    wrote, at most `combine_window` cycles after the warp's last store, and with `combine_ascending` from no
    lower an address, `lo`, than that one's) and sends nothing more to the L2. A store of at most
    `combine_lines` lines that does not merge becomes the one later stores merge into; a wider one ends the
    combining."""
    cap = lsu.combine_lines
    if cap == 0:
        return False
    lines = lsu.wc_lines[w]
    n = lsu.wc_n[w]
    recent = now - lsu.wc_time[w] <= lsu.combine_window
    lsu.wc_time[w] = now
    ascending = lsu.combine_ascending == 0 or lo >= lsu.wc_addr[w]
    lsu.wc_addr[w] = lo
    if n > 0 and nl <= n and recent and ascending and _lines_within(lsu.sectors, ns, lines, n):
        return True
    lsu.wc_n[w] = 0
    if nl > cap:
        return False
    m = 0
    for k in range(ns):
        line = lsu.sectors[k] >> 2
        if m == 0 or lines[m - 1] != line:      # sectors are in address order: a line's are together
            lines[m] = line
            m += 1
    lsu.wc_n[w] = m
    return False


@njit
def line_request(sectors, partial, ns, k):
    """The write request that starts at sectors[k] (its line's sectors, together in address order): its
    sector count if one of its sectors is partial (partial[k]: 1 for sectors[k]), else 0."""
    line = sectors[k] >> 2
    n = 0
    some = 0
    while k + n < ns and sectors[k + n] >> 2 == line:
        some |= partial[k + n]
        n += 1
    return n if some else 0


@njit
def sector_partial(addrs, mask, size, sector):
    """The 4-byte words of `sector` the active lanes' writes leave bytes of unwritten (a bit each; 0: whole)."""
    covered = np.int64(0)       # a bit per byte
    lo = sector << 5
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        for b in range(size):
            off = addrs[l] + b - lo
            if 0 <= off < 32:
                covered |= np.int64(1) << off
    short = 0
    for j in range(8):
        short |= (1 << j) if (covered >> (4 * j)) & 0xF != 0xF else 0
    return short
