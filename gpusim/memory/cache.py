"""A sectored, set-associative cache over arrays (numba), with a replacement policy by name.

`Cache` holds, per cache instance u (e.g. one L1 per SM), set and way: tag (line number, -1 empty),
valid (sector bit mask), dirty (sector bit mask), ready[..., 4] (cycle each sector's data arrives),
meta (the replacement policy's number, gpusim/memory/replacement.py), mark (a sector bit mask the
owner uses for bookkeeping of its own: the L2 marks the sectors a 64-B DRAM burst brought unasked) and
part (8 bits a sector: the 4-byte words written to a sector that held no data, until all 8 are or it is
merged with memory's). `spill[u]`: how many of the dirty sectors the last `fill` or `clean_oldest` of
instance u wrote back were such partial sectors.
Lines are 128 B of four 32-B sectors; a line's set is a hash of its number.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.jit import njit
from gpusim.memory.replacement import POLICIES, insert, touch, victim

Cache = namedtuple("Cache", "tag valid dirty ready meta policy mark part spill")


def make_cache(units: int, size_bytes: int, assoc: int, policy: str = "lru", line_bytes: int = 128) -> Cache:
    sets = max(1, size_bytes // (line_bytes * assoc))
    shape = (units, sets, assoc)
    return Cache(np.full(shape, -1, np.int64), np.zeros(shape, np.int64), np.zeros(shape, np.int64),
                 np.zeros(shape + (4,), np.int64), np.zeros(shape, np.int64), np.int64(POLICIES[policy]),
                 np.zeros(shape, np.int64), np.zeros(shape, np.int64), np.zeros(units, np.int64))


@njit
def set_index(line, nsets):
    h = line ^ (line >> 11) ^ (line >> 19)
    return h % nsets


@njit(inline="always")
def line_way(c, u, sector):
    """(set, way) of the 128-B line of `sector` in cache instance u; way -1 where it holds no such line."""
    line = sector >> 2
    s = set_index(line, c.tag.shape[1])
    for w in range(c.tag.shape[2]):
        if c.tag[u, s, w] == line:
            return s, w
    return s, -1


@njit
def probe(c, u, sector, now):
    """Ready cycle of `sector` in cache instance u if present (a pending fill counts: its arrival
    time), else -1. A hit updates the replacement state."""
    s, w = line_way(c, u, sector)
    if w >= 0 and (c.valid[u, s, w] >> (sector & 3)) & 1:
        touch(c.policy, c.meta, u, s, w, now)
        return c.ready[u, s, w, sector & 3]
    return np.int64(-1)


@njit
def holds_line(c, u, sector):
    """Whether cache instance u holds the 128-B line of `sector` (any of its sectors); no state change."""
    s, w = line_way(c, u, sector)
    return w >= 0 and c.valid[u, s, w] != 0


@njit
def pending(c, u, sector, now, whole_line):
    """The last cycle a fill of `sector` (whole_line: of any sector of its 128-B line) held by cache instance u
    arrives, if one is still on its way at `now`; else 0. No state change."""
    s, w = line_way(c, u, sector)
    t = np.int64(0)
    for k in range(4 if w >= 0 else 0):
        if (whole_line or k == sector & 3) and (c.valid[u, s, w] >> k) & 1 and c.ready[u, s, w, k] > t:
            t = c.ready[u, s, w, k]
    return t if t > now else np.int64(0)


@njit
def fill(c, u, sector, when, now, make_dirty):
    """Install `sector` (arriving at `when`). Returns the dirty sectors evicted (to be written back)."""
    line = sector >> 2
    sec = sector & 3
    s, way = line_way(c, u, sector)
    evicted = 0
    c.spill[u] = 0
    if way < 0:
        way = victim(c.policy, c.tag, c.meta, u, s)
        if c.tag[u, s, way] >= 0:
            evicted = popcount(c.dirty[u, s, way])
            c.spill[u] = popcount(c.dirty[u, s, way] & part_sectors(c.part[u, s, way]))
        c.tag[u, s, way] = line
        c.valid[u, s, way] = 0
        c.dirty[u, s, way] = 0
        c.mark[u, s, way] = 0
        c.part[u, s, way] = 0
        insert(c.policy, c.meta, u, s, way, now)
    else:
        touch(c.policy, c.meta, u, s, way, now)
    c.valid[u, s, way] |= 1 << sec
    if make_dirty:
        c.dirty[u, s, way] |= 1 << sec
    c.ready[u, s, way, sec] = when
    return evicted


@njit
def clean_oldest(c, u, sector, limit, spread=1):
    """Where the set of `sector` holds more than its limit of dirty lines (`limit` plus a hash of the set modulo
    `spread`), the least recently used of them other than the line of `sector` is cleaned (its data written back;
    it stays): the dirty sectors cleaned, else 0."""
    s, keep = line_way(c, u, sector)
    if spread > 1:
        h = (s * 0x9E3779B1) & 0xFFFFFFFF
        limit += (h ^ (h >> 16)) % spread
    n, old = 0, -1
    for w in range(c.tag.shape[2]):
        if c.dirty[u, s, w] != 0:
            n += 1
            if w != keep and (old < 0 or c.meta[u, s, w] < c.meta[u, s, old]):
                old = w
    c.spill[u] = 0
    if n <= limit or old < 0:
        return 0
    k = popcount(c.dirty[u, s, old])
    c.spill[u] = popcount(c.dirty[u, s, old] & part_sectors(c.part[u, s, old]))
    c.part[u, s, old] = 0        # merged with memory's bytes on the way out
    c.dirty[u, s, old] = 0
    return k


@njit
def write_words(c, u, sector, words, had):
    """Record a write of the 4-byte words `words` (a bit each, 0xFF all) of `sector`, held by instance u; `had`:
    whether the sector held data before. A sector that held none keeps only the words written (`part`) until
    they are all written or it is merged with memory's bytes."""
    s, w = line_way(c, u, sector)
    if w < 0:
        return
    sh = (sector & 3) * 8
    cur = (c.part[u, s, w] >> sh) & 0xFF
    if not had:
        cur = words
    elif cur != 0:
        cur |= words
    if cur == 0xFF:
        cur = 0
    c.part[u, s, w] = (c.part[u, s, w] & ~(np.int64(0xFF) << sh)) | (cur << sh)


@njit
def take_part(c, u, sector):
    """Whether `sector` holds only some of its words; it is whole afterwards (merged by the caller)."""
    s, w = line_way(c, u, sector)
    sh = (sector & 3) * 8
    if w >= 0 and (c.part[u, s, w] >> sh) & 0xFF:
        c.part[u, s, w] &= ~(np.int64(0xFF) << sh)
        return True
    return False


@njit(inline="always")
def part_sectors(p):
    """The sectors (a bit each) of a line's `part` that hold only some of their words."""
    m = 0
    for k in range(4):
        if (p >> (8 * k)) & 0xFF:
            m |= 1 << k
    return m


@njit
def probe_unasked(c, u, sector, now):
    """`probe`, and whether the sector carried its mark (which it then loses): (ready cycle or -1, marked)."""
    s, w = line_way(c, u, sector)
    sec = sector & 3
    if w >= 0 and (c.valid[u, s, w] >> sec) & 1:
        touch(c.policy, c.meta, u, s, w, now)
        marked = (c.mark[u, s, w] >> sec) & 1
        c.mark[u, s, w] &= ~(np.int64(1) << sec)
        return c.ready[u, s, w, sec], marked != 0
    return np.int64(-1), False


@njit
def set_mark(c, u, sector):
    """Mark `sector`, held by cache instance u (no replacement-state change)."""
    s, w = line_way(c, u, sector)
    if w >= 0:
        c.mark[u, s, w] |= np.int64(1) << (sector & 3)


@njit
def popcount(x):
    n = 0
    while x:
        n += x & 1
        x >>= 1
    return n


def dirty_sectors(c: Cache) -> int:
    """Dirty sectors held (end-of-kernel report)."""
    d = c.dirty[c.tag >= 0]
    return int(sum(bin(int(x)).count("1") for x in d[d != 0]))
