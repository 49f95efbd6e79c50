"""Device global memory for one launch: module variables, argument arrays, allocation table."""
from __future__ import annotations

import numpy as np

from gpusim.isa.spaces import ALLOC_ALIGN, ALLOC_GUARD, GLOBAL_BASE


class DeviceMemory:
    """A flat byte array starting at GLOBAL_BASE, with an allocation table for bounds checks."""

    def __init__(self, module_globals_size: int, inits: list):
        self.regions: list[tuple[int, int]] = []
        self.size = 0
        self._pending: list[tuple[int, np.ndarray]] = []
        base = self.alloc(max(module_globals_size, 8))
        for off, data in inits:
            self._pending.append((base + off, np.frombuffer(data, np.uint8)))
        self.gmem: np.ndarray | None = None

    def alloc(self, nbytes: int) -> int:
        off = (self.size + ALLOC_ALIGN - 1) // ALLOC_ALIGN * ALLOC_ALIGN
        addr = GLOBAL_BASE + off
        self.regions.append((addr, addr + nbytes))
        self.size = off + nbytes + ALLOC_GUARD
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
