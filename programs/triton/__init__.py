"""Example programs written in Triton (`gpusim run triton_vecadd`; the kernels are in kernels.py).

Each module follows programs/_base.py (NAME, DESCRIPTION, DEFAULT_SIZE, SMALL_SIZE, RTOL, ATOL,
inputs, run, reference) with TRITON = True, and its `run(launch, inp)` receives a Triton-style
launcher, `launch(fn, grid, *args, **meta)`, with the call shape of `fn[grid](*args, **meta)`:
gpusim.triton.jit_launch with the preset and mode chosen. A module imports Triton only in `run`,
so listing the programs needs no Triton. PENDING, where present, names the PTX instructions gpusim
does not have yet that the program's kernel needs on the h100 preset (it fails with
UnsupportedInstruction until they land).
"""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

_SKIP = {"kernels"}


def all_programs() -> dict[str, ModuleType]:
    """Every Triton program module, keyed by NAME, in name order."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in _SKIP:
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if getattr(mod, "TRITON", False):
            found[mod.NAME] = mod
    return dict(sorted(found.items()))
