"""Theoretical occupancy: how many CTAs of a kernel fit on one SM, and which resource limits it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Occupancy:
    ctas_per_sm: int
    limiter: str                # 'warps' (resident warps or threads) | 'blocks' | 'registers' | 'shared_mem'
    limits: dict                # resource -> CTAs per SM it allows
    warps_per_cta: int
    regs_per_thread: int
    smem_per_cta: int           # bytes, including the per-CTA reservation
    waves: float

    @property
    def theoretical_pct(self) -> float:
        return 100.0 * self.ctas_per_sm * self.warps_per_cta / self._max_warps

    _max_warps: int = 64


def _round_up(x: int, unit: int) -> int:
    return (x + unit - 1) // unit * unit


def occupancy(spec, nthreads: int, regs_per_thread: int, smem_bytes: int, n_ctas: int) -> Occupancy:
    """CTAs of `nthreads` threads, `regs_per_thread` registers and `smem_bytes` of shared memory
    (static + dynamic) that one SM holds at once, each resource's limit, and the binding one."""
    warps = (nthreads + 31) // 32
    regs_per_warp = _round_up(regs_per_thread * 32, spec.sm.reg_alloc_unit)
    smem = _round_up(smem_bytes + spec.sm.smem_per_cta_reserved, spec.sm.smem_alloc_unit)
    limits = {
        # resident warps and resident threads (whole warps: a partial warp holds all 32 thread
        # slots) are one limiter, as ncu's launch__occupancy_limit_warps counts them
        "warps": min(spec.sm.max_warps // warps, spec.sm.max_threads // (32 * warps)),
        "blocks": spec.sm.max_ctas,
        "registers": spec.sm.regs // (regs_per_warp * warps) if regs_per_warp else spec.sm.max_ctas,
        "shared_mem": spec.sm.smem // smem if smem_bytes > 0 else spec.sm.max_ctas,
    }
    limiter = min(limits, key=lambda k: (limits[k], list(limits).index(k)))
    per_sm = limits[limiter]
    waves = n_ctas / (per_sm * spec.n_sm) if per_sm else float("inf")
    occ = Occupancy(per_sm, limiter, limits, warps, regs_per_thread, smem, waves)
    object.__setattr__(occ, "_max_warps", spec.sm.max_warps)
    return occ
