"""Warp schedulers: one per SM sub-partition, each issuing at most one warp instruction per cycle.

A policy is a rule for choosing among the eligible warps of a sub-partition, by name:
  lrr     loose round robin: the first eligible warp after the one issued last
  gto     greedy-then-oldest: keep issuing the same warp while it is eligible, else the oldest
  oldest  always the eligible warp that arrived on the SM first
A new policy is a branch in `better` and a name in POLICIES.
"""
from __future__ import annotations

from dataclasses import dataclass

from numba import njit

from gpusim.spec import param

LRR, GTO, OLDEST = 0, 1, 2
POLICIES = {"lrr": LRR, "gto": GTO, "oldest": OLDEST}


@dataclass(frozen=True)
class SchedulerSpec:
    """The warp schedulers of one SM: one per sub-partition, each owning every fourth warp slot."""
    subpartitions: int = param(4, "count", "sub-partitions (warp schedulers) per SM; each issues <= 1 warp "
                                           "instruction per cycle")
    policy: str = param("lrr", "name", "lrr | gto | oldest (lrr on h100: GTO starves warps spinning on %clock64)")

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.policy not in POLICIES:
            raise ConfigError(f"bad value for '{prefix}policy': {self.policy!r} (policies: {', '.join(POLICIES)})")
        if self.subpartitions != 4:
            raise ConfigError(f"bad value for '{prefix}subpartitions': the SM model has 4 sub-partitions")


@njit(cache=True, _nrt=False, error_model="numpy")
def better(policy, cand, cand_pos, best, best_pos, last, last_pos, nslots, age):
    """Whether eligible warp `cand` should be preferred to the current choice `best` (-1: none)."""
    if best < 0:
        return True
    if policy == LRR:
        # distance after the last issued slot, wrapping around
        dc = (cand_pos - last_pos - 1) % nslots
        db = (best_pos - last_pos - 1) % nslots
        return dc < db
    if policy == GTO:
        if cand == last:
            return True
        if best == last:
            return False
    return age[cand] < age[best]
