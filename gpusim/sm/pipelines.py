"""Execution pipelines of a sub-partition, one per instruction class.

A pipeline accepts a warp instruction every `ii_*` cycles (its issue interval: a 16-lane FP32 unit
takes a 32-lane warp in 1 cycle on Hopper's dual datapaths, the INT unit in 2) and delivers its
result `lat_*` cycles after issue. The core keeps, per sub-partition and class, the cycle the
pipeline accepts its next instruction (`pipe_free`); a warp whose pipeline is busy stalls on
math_pipe_throttle. Memory instructions go to the LSU/MIO queues instead (gpusim/sm/lsu.py).

PTX is not what the SM runs: a 64-bit integer add, compare, min/max or multiply is two or more
dependent SASS operations on the 32-bit INT datapath, so it has its own class ("int64": longer
latency, two issue slots) that shares the INT pipe (`pipe_of`).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class PipelineSpec:
    """Latency (issue to result) and issue interval (cycles between warp instructions) per class."""
    lat_int: int = param(4, "cycles", "integer ALU result latency", (1, MAX_CYCLES))
    ii_int: int = param(2, "cycles", "integer ALU issue interval per sub-partition", (1, 10_000))
    lat_int64: int = param(8, "cycles", "64-bit integer add/sub/compare/min/max/mul: two dependent 32-bit "
                                        "operations on the INT pipe (IADD3 + IADD3.X, ISETP + ISETP.EX)",
                                        (1, MAX_CYCLES))
    ii_int64: int = param(4, "cycles", "their issue interval: two INT-pipe slots", (1, 10_000))
    lat_fp32: int = param(4, "cycles", "FP32 add/mul/fma latency", (1, MAX_CYCLES))
    ii_fp32: int = param(1, "cycles", "FP32 issue interval", (1, 10_000))
    lat_fp64: int = param(8, "cycles", "FP64 latency", (1, MAX_CYCLES))
    ii_fp64: int = param(2, "cycles", "FP64 issue interval", (1, 10_000))
    lat_sfu: int = param(18, "cycles", "special-function unit latency (rcp, sqrt, ex2, sin...)", (1, MAX_CYCLES))
    ii_sfu: int = param(8, "cycles", "SFU issue interval (4 lanes per cycle per sub-partition)", (1, 10_000))
    lat_branch: int = param(6, "cycles", "branch resolution: a warp issues again this long after a branch",
                            (1, MAX_CYCLES))
    lat_misc: int = param(12, "cycles", "conversions, shuffles, votes and other MIO-side operations", (1, MAX_CYCLES))
    ii_misc: int = param(2, "cycles", "their issue interval", (1, 10_000))
    lat_barrier: int = param(20, "cycles", "from the last arrival at bar.sync to the waiting warps' next issue",
                             (1, MAX_CYCLES))
    divergence_cycles: int = param(6, "cycles", "extra delay after a divergent branch: pushing the reconvergence "
                                                "point (BSSY) and later re-joining the paths (BSYNC)", (0, MAX_CYCLES))

    def class_timing(self, lsu_latency: int, atomic_latency: int) -> np.ndarray:
        """(latency, issue interval) per instruction class, in the order of isa.opcodes.CLASSES."""
        t = {"int": (self.lat_int, self.ii_int), "fp32": (self.lat_fp32, self.ii_fp32),
             "fp64": (self.lat_fp64, self.ii_fp64), "sfu": (self.lat_sfu, self.ii_sfu),
             "ldst": (lsu_latency, 1), "branch": (self.lat_branch, 1), "barrier": (self.lat_barrier, 1),
             "misc": (self.lat_misc, self.ii_misc), "atomic": (atomic_latency, 1),
             "int64": (self.lat_int64, self.ii_int64),
             # issue slots only: wgmma and bulk copies run on their own units (asyncops.py)
             "gmma": (self.lat_misc, 1), "tma": (self.lat_misc, 1), "sync": (self.lat_misc, self.ii_misc)}
        return np.array([t[c] for c in oc.CLASSES], np.int64)

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        for name in ("ii_int", "ii_int64", "lat_int64", "ii_fp32", "ii_fp64", "ii_sfu", "ii_misc", "lat_int",
                     "lat_fp32", "lat_fp64",
                     "lat_sfu", "lat_branch", "lat_misc"):
            if getattr(self, name) < 1:
                raise ConfigError(f"bad value for '{prefix}{name}': must be at least 1 cycle")


Pipes = namedtuple("Pipes", "latency interval divergence_delay free_at")


def make_state(spec: PipelineSpec, n_subpartitions: int, lsu_latency: int, atomic_latency: int) -> Pipes:
    t = spec.class_timing(lsu_latency, atomic_latency)
    return Pipes(t[:, 0].copy(), t[:, 1].copy(), np.int64(spec.divergence_cycles),
                 np.zeros((n_subpartitions, len(oc.CLASSES)), np.int64))


@njit(inline="always")
def pipe_of(cls):
    """The pipeline an instruction class issues to (int64 runs on the INT pipe)."""
    return oc.C_INT if cls == oc.C_INT64 else cls


@njit(inline="always")
def accepts_at(p, sp, cls):
    """The cycle sub-partition sp's pipeline for class `cls` takes its next instruction."""
    return p.free_at[sp, pipe_of(cls)]


@njit(inline="always")
def occupy(p, sp, cls, now):
    """An instruction of class `cls` issued at `now`: busy for its issue interval; its latency."""
    p.free_at[sp, pipe_of(cls)] = now + p.interval[cls]
    return p.latency[cls]
