"""The Case interface shared by every validation case, and small helpers.

A case isolates one hardware mechanism. It carries:

    NAME, DESCRIPTION, GROUP       identity; GROUP names the mechanism family (e.g. "chase")
    kernel                         a plain Python function written for numba.cuda
    GRID, BLOCK                    launch shape (3-tuples)
    inputs(seed=0) -> dict         numpy arrays and scalars; output arrays are pre-filled with poison
    run(launch, inp) -> dict       launches through `launch(kernel, grid, block, *args)`, which has
                                   numba.cuda host-array semantics (arrays copied in and back in place)
    reference(inp) -> dict         numpy reference of the checked outputs (a subset of run's keys)
    derive(out, inp) -> dict       optional: figures read from in-kernel clocks (cycles per step, ...)
    RTOL, ATOL                     tolerance of the check (0, 0: bit-exact)
    SIGNATURE                      optional numba signature, for cases whose `run` builds arguments
                                   that are not in `inp` (the program cases); else typeof(inp[a])
    RECORDER                       the script that records it on the GPU: validation/record.py for the
                                   numba kernels; the Triton programs (committed PTX, `triton_programs.py`)
                                   are recorded by validation/triton/record_cases.py

Most cases are a single launch: `single_launch` builds `run` from the argument names, copying the
arrays the kernel writes so that `run` never mutates `inp`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Case:
    NAME: str
    DESCRIPTION: str
    GROUP: str
    kernel: Callable
    GRID: tuple
    BLOCK: tuple
    inputs: Callable
    run: Callable
    reference: Callable
    derive: Callable | None = None
    RTOL: float = 0.0
    ATOL: float = 0.0
    ARGS: tuple = field(default_factory=tuple)
    OUTPUTS: tuple = field(default_factory=tuple)
    SIGNATURE: tuple | None = None  # numba types of the kernel's parameters, where ARGS cannot give them
    RECORDER: str = "validation/record.py"  # what records it on the GPU (the Triton PTX cases have their own)

    def check(self, out: dict, ref: dict) -> dict:
        """Compare outputs with the reference; returns {'passed', 'max_abs_err', 'keys'}."""
        passed, worst = True, 0.0
        for key, want in ref.items():
            got = np.asarray(out[key])
            want = np.asarray(want)
            if got.shape != want.shape:
                return {"passed": False, "max_abs_err": None, "keys": sorted(ref),
                        "why": f"{key}: shape {got.shape} != {want.shape}"}
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
            worst = max(worst, float(diff.max()) if diff.size else 0.0)
            ok = np.allclose(got, want, rtol=self.RTOL, atol=self.ATOL, equal_nan=False)
            passed = passed and bool(ok)
        return {"passed": passed, "max_abs_err": worst, "keys": sorted(ref)}


def dim3(x) -> tuple:
    if isinstance(x, int):
        return (x, 1, 1)
    return tuple(x) + (1,) * (3 - len(x))


def single_launch(kernel, grid, block, args: tuple, outputs: tuple) -> Callable:
    """A `run` that launches `kernel` once with inp[a] for a in args; returns copies of outputs."""

    def run(launch, inp):
        vals = {a: inp[a] for a in args}
        for o in outputs:
            vals[o] = np.array(inp[o], copy=True)
        launch(kernel, grid, block, *(vals[a] for a in args))
        return {o: vals[o] for o in outputs}

    return run


def make_case(name, description, group, kernel, grid, block, inputs, reference, args, outputs,
              derive=None, rtol=0.0, atol=0.0) -> Case:
    grid, block = dim3(grid), dim3(block)
    return Case(NAME=name, DESCRIPTION=description, GROUP=group, kernel=kernel, GRID=grid,
                BLOCK=block, inputs=inputs, run=single_launch(kernel, grid, block, args, outputs),
                reference=reference, derive=derive, RTOL=rtol, ATOL=atol, ARGS=tuple(args),
                OUTPUTS=tuple(outputs))


def poison(n, dtype) -> np.ndarray:
    """Output buffer filled with a value no kernel writes (catches unwritten elements)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.full(n, np.nan, dtype)
    if dtype.kind == "u":
        return np.full(n, np.iinfo(dtype).max, dtype)
    return np.full(n, np.iinfo(dtype).min, dtype)
