"""PTX of a case's kernel, compiled by numba.cuda for the argument types `run` passes.

The signature is numba's typeof() of each argument (numpy arrays become C-contiguous arrays,
numpy scalars their own type), which is what numba.cuda infers at launch, so the PTX is the one
the GPU ran (for cc 9.0) and the one gpusim simulates.
"""
from __future__ import annotations

import hashlib
import re

import validation  # noqa: F401  (numpy shim)

NORMALIZATION = ("mangled names (_ZN...) -> KERNEL, keeping _param_N suffixes; _cudapy_smem_N -> "
                 "_cudapy_smem: numba numbers these per process, so raw PTX text depends on "
                 "compilation order while the code does not")


def normalize_ptx(ptx: str) -> str:
    """PTX with numba's per-process names made canonical (see NORMALIZATION)."""
    ptx = re.sub(r"_ZN\w+?(_param_\d+)?\b", lambda m: "KERNEL" + (m.group(1) or ""), ptx)
    return re.sub(r"_cudapy_smem_\d+", "_cudapy_smem", ptx)


def case_signature(case, inp) -> tuple:
    from numba import typeof

    if case.SIGNATURE is not None:
        return case.SIGNATURE
    return tuple(typeof(inp[a]) for a in case.ARGS)


def case_ptx(case, inp, cc=(9, 0)) -> tuple[str, str]:
    """(ptx text, sha256 hex of the normalized text) for the case's kernel on its inputs' types."""
    from numba import cuda

    ptx, _ = cuda.compile_ptx(case.kernel, case_signature(case, inp), cc=cc)
    return ptx, hashlib.sha256(normalize_ptx(ptx).encode()).hexdigest()
