"""Cache replacement policies, chosen by name per cache (`l1.replacement`, `l2.replacement`,
`fetch.replacement` in a preset or TOML file).

Each way of a set keeps one number of replacement state (`meta`). A policy is three small rules:
what a hit does to it (`touch`), what an installed line starts with (`insert`) and which way to
evict when the set is full (`victim`; an empty way is always taken first).

    lru     meta = cycle of the last use; evict the least recently used way
    fifo    meta = cycle the line arrived; hits change nothing; evict the oldest arrival
    srrip   meta = re-reference prediction value (RRPV, 2 bits): a line arrives at 2, a hit sets 0;
            evict a way at 3, ageing every way of the set by one until there is one
            (Jaleel et al., ISCA 2010)

A new policy: a constant and a name in POLICIES, and a branch in each rule that needs one.
"""
from __future__ import annotations

from gpusim.jit import njit

LRU, FIFO, SRRIP = 0, 1, 2
POLICIES = {"lru": LRU, "fifo": FIFO, "srrip": SRRIP}
RRPV_MAX = 3


def check_policy(name: str, path: str) -> None:
    from gpusim.errors import ConfigError
    if name not in POLICIES:
        raise ConfigError(f"bad value for '{path}': {name!r} (policies: {', '.join(POLICIES)})")


@njit
def touch(policy, meta, u, s, w, now):
    """A hit on way w of set s."""
    if policy == LRU:
        meta[u, s, w] = now
    elif policy == SRRIP:
        meta[u, s, w] = 0


@njit
def insert(policy, meta, u, s, w, now):
    """A line installed in way w of set s."""
    if policy == SRRIP:
        meta[u, s, w] = RRPV_MAX - 1
    else:
        meta[u, s, w] = now


@njit
def victim(policy, tag, meta, u, s):
    """The way of set s a new line replaces."""
    ways = tag.shape[2]
    for w in range(ways):
        if tag[u, s, w] < 0:
            return w
    if policy == SRRIP:
        while True:
            for w in range(ways):
                if meta[u, s, w] >= RRPV_MAX:
                    return w
            for w in range(ways):
                meta[u, s, w] += 1
    way = 0
    for w in range(1, ways):
        if meta[u, s, w] < meta[u, s, way]:
            way = w
    return way
