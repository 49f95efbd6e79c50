"""Validation suite: microbenchmark kernels measured on a real H100 and replayed on gpusim.

numpy 2.5 dropped `np.row_stack`, which numba-cuda 0.30.x still calls at import; restore it
before anything imports numba.
"""
import numpy as _np

if not hasattr(_np, "row_stack"):
    _np.row_stack = _np.vstack
