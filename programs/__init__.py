"""Example kernels: numba.cuda Python programs with numpy references, and hand-written PTX."""
from programs._base import all_programs

__all__ = ["all_programs"]
