"""Device global memory for one launch: module variables, argument arrays, allocation table.

Arrays land where the CUDA driver puts a fresh process's allocations (validation/probes/alloc_placement.py,
driver 580, the H100's): one under 2 MiB is packed into a 2-MiB pool at 512-B granularity, in the order they
are made; one of 2 MiB or more starts at a 2-MiB boundary of its own. Where an array sits within those 2 MiB
decides which L2 slices, atomic units and DRAM channels its lines go to (prog_histogram's 1-KiB histogram runs
27-29k cycles on the H100 when 1-KiB aligned, as a fresh process has it, and 18.2k at 512 B past:
validation/data/h100/probe_histogram_placement.json). gpusim keeps the driver's address within each 2 MiB but
gives every allocation a 2-MiB window of its own, so an overrun faults instead of reading the next array.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa.spaces import ALLOC_GUARD, GLOBAL_BASE

POOL = 2 << 20            # the driver's pool of small allocations, and the alignment of large ones
SMALL_ALIGN = 512         # its granularity within the pool


class DeviceMemory:
    """A flat byte array starting at GLOBAL_BASE, with an allocation table for bounds checks."""

    def __init__(self, module_globals_size: int, inits: list):
        self.regions: list[tuple[int, int]] = []
        self.size = 0
        self.pool_used = 0
        self._pending: list[tuple[int, np.ndarray]] = []
        base = self.alloc(max(module_globals_size, 8), pooled=False)    # the module's image, not the pool
        for off, data in inits:
            self._pending.append((base + off, np.frombuffer(data, np.uint8)))
        self.gmem: np.ndarray | None = None

    def alloc(self, nbytes: int, pooled: bool = True) -> int:
        """The address of a new allocation of `nbytes`: at its offset in the driver's pool if it is a small one
        (`pooled` and under 2 MiB), else at a 2-MiB boundary; in a window of its own past the last one's end."""
        window = 0 if not self.regions else (self.size + ALLOC_GUARD + POOL - 1) // POOL * POOL
        off = window
        if pooled and nbytes < POOL:
            step = (max(nbytes, 1) + SMALL_ALIGN - 1) // SMALL_ALIGN * SMALL_ALIGN
            if self.pool_used + step > POOL:        # the pool is full: the driver starts another
                self.pool_used = 0
            off = window + self.pool_used
            self.pool_used += step
        addr = GLOBAL_BASE + off
        self.regions.append((addr, addr + nbytes))
        self.size = off + nbytes
        return addr

    def put_array(self, arr: np.ndarray) -> int:
        addr = self.alloc(max(arr.nbytes, 1))
        self._pending.append((addr, arr.reshape(-1, order="A").view(np.uint8)))
        return addr

    def build(self):
        """Materialise the byte array once every allocation is known."""
        self.gmem = np.zeros(self.size + 64, np.uint8)
        for addr, data in self._pending:
            off = addr - GLOBAL_BASE
            self.gmem[off:off + data.size] = data
        self.alo = np.array([a for a, _ in self.regions], np.int64)
        self.ahi = np.array([b for _, b in self.regions], np.int64)
        return self.gmem

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        off = addr - GLOBAL_BASE
        return self.gmem[off:off + nbytes]
