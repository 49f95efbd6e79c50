"""Validation cases: microbenchmark kernels that isolate one GPU mechanism each, and the example
programs as whole-kernel cases never used for calibration (`programs.py`).

`all_cases()` returns every case keyed by NAME, in module then definition order. The Case
interface is described in `validation/cases/_case.py`.
"""
from __future__ import annotations

import importlib

import validation  # noqa: F401  (numpy shim before numba is imported)
from validation.cases._case import Case

MODULES = ("chase", "compute", "bandwidth", "coalesce", "banks", "divergence", "atomics", "waves", "stores", "l2_write",
           "shared_atomics", "mechanisms", "programs", "heldout", "triton_programs")


def all_cases() -> dict[str, Case]:
    found: dict[str, Case] = {}
    for mod_name in MODULES:
        mod = importlib.import_module(f"validation.cases.{mod_name}")
        for case in mod.CASES:
            found[case.NAME] = case
    return found


__all__ = ["Case", "all_cases", "MODULES"]
