"""The interface every example program implements.

A program is a module in `programs/` that defines:

    NAME: str               short name used on the command line (`gpusim run NAME`)
    DESCRIPTION: str        one line
    DEFAULT_SIZE: int       problem size for `gpusim run`
    SMALL_SIZE: int         problem size for tests (must run in well under a second of simulation)
    RTOL, ATOL: float       tolerance of outputs against the reference (0, 0 means bit-exact)
    inputs(size, seed=0) -> dict[str, np.ndarray | scalar]
    run(launch, inp) -> dict[str, np.ndarray]
    reference(inp) -> dict[str, np.ndarray]

`run` receives a `launch(kernel, grid, block, *args)` callable with the semantics of numba.cuda's
`kernel[grid, block](*args)` on host arrays: numpy arrays are copied to the device and copied back
in place after the kernel. The same `run` therefore drives gpusim (`gpusim.launch`), numba's CUDA
simulator and a real GPU. Kernels are numba.cuda kernels (`@cuda.jit` or plain functions).
`run` must not mutate `inp` (copy what the kernel writes).
"""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

_SKIP = {"_base"}


def all_programs() -> dict[str, ModuleType]:
    """Every program module, keyed by NAME, in name order."""
    import programs

    found = {}
    for info in pkgutil.iter_modules(programs.__path__):
        if info.name.startswith("_") or info.name in _SKIP:
            continue
        mod = importlib.import_module(f"programs.{info.name}")
        if hasattr(mod, "NAME") and hasattr(mod, "run"):
            found[mod.NAME] = mod
    return dict(sorted(found.items()))
