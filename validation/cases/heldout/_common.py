"""What the held-out kernels share: their group and small helpers."""
from __future__ import annotations

import numpy as np

GROUP = "programs"
FULL_MASK = 0xFFFFFFFF


def _small_float_ints(rng, shape, lo=-4, hi=4) -> np.ndarray:
    """float32 values that are small integers: every product and partial sum of the cases is exact."""
    return rng.integers(lo, hi + 1, size=shape).astype(np.float32)
