"""SM resources: what one SM holds at once. They bound occupancy (gpusim/timing/occupancy.py)."""
from __future__ import annotations

from dataclasses import dataclass

from gpusim.spec import param


@dataclass(frozen=True)
class SMSpec:
    """The per-SM resources a CTA must fit into before the GigaThread engine may place it."""
    max_threads: int = param(2048, "threads", "resident threads per SM", (32, 65536))
    max_warps: int = param(64, "warps", "resident warps per SM", (4, 2048))
    max_ctas: int = param(32, "CTAs", "resident thread blocks per SM", (1, 1024))
    max_threads_per_cta: int = param(1024, "threads", "largest thread block a launch may ask for", (1, 65536))
    regs: int = param(65536, "registers", "32-bit registers per SM", (1, 1 << 24))
    reg_alloc_unit: int = param(256, "registers", "registers are allocated per warp in this granularity", (1, 65536))
    max_regs_per_thread: int = param(255, "registers", "most registers one thread may use", (1, 65536))
    smem: int = param(233472, "B", "shared memory one SM can give its CTAs (228 KB on H100)", (0, 1 << 24))
    smem_per_cta_reserved: int = param(1024, "B", "shared memory the driver reserves per CTA", (0, 1 << 24))
    smem_alloc_unit: int = param(128, "B", "shared memory is allocated in this granularity", (1, 65536))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        for name in ("max_threads", "max_warps", "max_ctas", "max_threads_per_cta", "regs", "reg_alloc_unit",
                     "smem_alloc_unit"):
            if getattr(self, name) < 1:
                raise ConfigError(f"bad value for '{prefix}{name}': must be at least 1")
        if self.max_warps % 4:
            raise ConfigError(f"bad value for '{prefix}max_warps': must be a multiple of 4 (one per sub-partition)")
