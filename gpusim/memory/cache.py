"""A sectored, set-associative cache with LRU replacement, over arrays (numba).

Arrays (leading axis: cache instance, e.g. one L1 per SM): tag[u, set, way] (line number, -1
empty), valid[u, set, way] (sector bit mask), dirty[u, set, way], ready[u, set, way, 4] (cycle each
sector's data arrives), lru[u, set, way] (last-use cycle). Lines are 128 B of four 32-B sectors.
"""
from __future__ import annotations

import numpy as np
from numba import njit


def make_cache(units: int, size_bytes: int, assoc: int, line_bytes: int = 128):
    sets = max(1, size_bytes // (line_bytes * assoc))
    tag = np.full((units, sets, assoc), -1, np.int64)
    return (tag, np.zeros((units, sets, assoc), np.int64), np.zeros((units, sets, assoc), np.int64),
            np.zeros((units, sets, assoc, 4), np.int64), np.zeros((units, sets, assoc), np.int64))


@njit(cache=True, _nrt=False, error_model="numpy")
def set_index(line, nsets):
    h = line ^ (line >> 11) ^ (line >> 19)
    return h % nsets


@njit(cache=True, _nrt=False, error_model="numpy")
def probe(tag, valid, ready, lru, u, sector, now):
    """Ready cycle of `sector` if cached (a pending fill counts: its arrival time), else -1."""
    line = sector >> 2
    s = set_index(line, tag.shape[1])
    sec = sector & 3
    for w in range(tag.shape[2]):
        if tag[u, s, w] == line and (valid[u, s, w] >> sec) & 1:
            lru[u, s, w] = now
            return ready[u, s, w, sec]
    return np.int64(-1)


@njit(cache=True, _nrt=False, error_model="numpy")
def fill(tag, valid, dirty, ready, lru, u, sector, when, now, make_dirty):
    """Install `sector` (arriving at `when`). Returns dirty sectors evicted (written back)."""
    line = sector >> 2
    s = set_index(line, tag.shape[1])
    sec = sector & 3
    way = -1
    for w in range(tag.shape[2]):
        if tag[u, s, w] == line:
            way = w
            break
    evicted = 0
    if way < 0:
        way = 0
        oldest = lru[u, s, 0]
        for w in range(tag.shape[2]):
            if tag[u, s, w] < 0:
                way = w
                break
            if lru[u, s, w] < oldest:
                oldest = lru[u, s, w]
                way = w
        if tag[u, s, way] >= 0:
            d = dirty[u, s, way]
            while d:
                evicted += d & 1
                d >>= 1
        tag[u, s, way] = line
        valid[u, s, way] = 0
        dirty[u, s, way] = 0
    valid[u, s, way] |= 1 << sec
    if make_dirty:
        dirty[u, s, way] |= 1 << sec
    ready[u, s, way, sec] = when
    lru[u, s, way] = now
    return evicted


@njit(cache=True, _nrt=False, error_model="numpy")
def dirty_sectors(dirty):
    n = 0
    for u in range(dirty.shape[0]):
        for s in range(dirty.shape[1]):
            for w in range(dirty.shape[2]):
                d = dirty[u, s, w]
                while d:
                    n += d & 1
                    d >>= 1
    return n
