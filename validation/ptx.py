"""PTX of a case's kernel, compiled by numba.cuda for the argument types `run` passes.

The signature is numba's typeof() of each argument (numpy arrays become C-contiguous arrays,
numpy scalars their own type), which is what numba.cuda infers at launch, so the PTX is the one
the GPU ran (for cc 9.0) and the one gpusim simulates.
"""
from __future__ import annotations

import hashlib

import validation  # noqa: F401  (numpy shim)


def case_signature(case, inp) -> tuple:
    from numba import typeof

    return tuple(typeof(inp[a]) for a in case.ARGS)


def case_ptx(case, inp, cc=(9, 0)) -> tuple[str, str]:
    """(ptx text, sha256 hex) for the case's kernel on its inputs' argument types."""
    from numba import cuda

    ptx, _ = cuda.compile_ptx(case.kernel, case_signature(case, inp), cc=cc)
    return ptx, hashlib.sha256(ptx.encode()).hexdigest()
