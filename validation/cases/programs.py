"""The example programs (`programs/`) as validation cases: whole kernels, not microbenchmarks.

Every microbenchmark case isolates one mechanism and the h100 preset is fitted on them
(`gpusim calibrate`); these cases are never used for fitting. They are the suite's held-out
kernels: how well gpusim predicts code it was not tuned on. `gpusim validate` reports their
cycle error apart from the microbenchmarks'.

Each case is one program at its DEFAULT_SIZE, run through the program's own `run` (so the GPU,
numba's simulator and gpusim see the very launch `gpusim run PROGRAM` makes) and checked with the
program's own reference and tolerance. Only programs that launch one kernel are cases: ncu's rows
are matched to cases one launch each. `elementwise_unfused` (three launches) is left out; its
kernels are the elementwise pattern `elementwise_fused`, `saxpy` and `vecadd` already cover.
"""
from __future__ import annotations

from programs import all_programs
from validation.cases._case import Case, dim3

SKIPPED = {"elementwise_unfused": "three launches; ncu rows are matched one launch per case"}


def _launch_shape(mod, inp) -> tuple:
    """(kernel, grid, block, names of run's outputs) of the program's single launch, by a dry run."""
    seen = []

    def record(kernel, grid, block, *args):
        seen.append((kernel, grid, block, args))

    outputs = mod.run(record, inp)
    if len(seen) != 1:
        raise ValueError(f"program {mod.NAME} launches {len(seen)} kernels; a case needs exactly one")
    kernel, grid, block, _ = seen[0]
    return kernel, grid, block, tuple(outputs)


def _make(mod, size=None) -> Case:
    """The case of one program at `size` (default: its DEFAULT_SIZE; the smoke test uses SMALL_SIZE)."""
    size = mod.DEFAULT_SIZE if size is None else size
    kernel, signature = mod.KERNELS[0]
    inp = mod.inputs(size, seed=0)
    launched, grid, block, outputs = _launch_shape(mod, inp)
    if launched is not kernel:
        raise ValueError(f"program {mod.NAME} launches {launched.__name__}, not KERNELS[0] {kernel.__name__}")
    doc = (mod.__doc__ or mod.DESCRIPTION).strip().splitlines()[0]
    return Case(NAME=f"prog_{mod.NAME}", DESCRIPTION=f"{doc} (size {size})", GROUP="programs",
                kernel=kernel, GRID=dim3(grid), BLOCK=dim3(block),
                inputs=lambda seed=0, m=mod, n=size: m.inputs(n, seed=seed),
                run=mod.run, reference=mod.reference, RTOL=mod.RTOL, ATOL=mod.ATOL,
                OUTPUTS=outputs, SIGNATURE=tuple(signature))


CASES = [_make(mod) for name, mod in all_programs().items() if name not in SKIPPED]
