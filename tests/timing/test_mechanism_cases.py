"""The mechanism microbenchmarks (validation/cases/mechanisms/) are well-formed cases: each builds
deterministic inputs whose numpy reference agrees in keys, shapes and dtypes with what the kernel writes,
checks bit-exactly, is one launch of its kernel at its own grid and block, and its small variant (same
kernel, fewer blocks and steps) gives the reference in gpusim's functional mode. Full-size timing runs
take up to a minute each and are not run here (`validation/replay.py` `simulate`)."""
import numpy as np
import pytest

import gpusim
import validation  # noqa: F401  (numpy shim before numba is imported)
from validation.cases import mechanisms

CASES = mechanisms.CASES
GROUPS = {"gatomics", "dispatch", "local", "mlp", "smem_pipe", "exposed"}


def test_every_family_is_there_with_unique_names():
    names = [c.NAME for c in CASES]
    assert len(names) == len(set(names))
    assert {c.GROUP for c in CASES} == GROUPS
    assert all(c.NAME.replace("_", "").isalnum() and c.DESCRIPTION for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.NAME for c in CASES])
def test_inputs_reference_and_launch_agree(case):
    inp = case.inputs(0)
    ref = case.reference(inp)
    assert case.RTOL == 0 and case.ATOL == 0
    assert set(case.ARGS) <= set(inp) and set(case.OUTPUTS) <= set(case.ARGS)
    assert ref and set(ref) <= set(case.OUTPUTS)
    for key, want in ref.items():
        assert want.shape == inp[key].shape and want.dtype == inp[key].dtype, key
    again = case.inputs(0)
    for key, val in inp.items():
        assert np.array_equal(val, again[key], equal_nan=True), f"inputs(0) not deterministic: {key}"

    calls = []

    def launch(kernel, grid, block, *args):
        calls.append((kernel, grid, block, len(args)))

    out = case.run(launch, inp)
    assert calls == [(case.kernel, case.GRID, case.BLOCK, len(case.ARGS))]
    assert set(out) == set(case.OUTPUTS)
    # the untouched (poisoned or zeroed) outputs must not pass: the check is not vacuous
    assert not case.check(out, ref)["passed"]


SMALL = mechanisms.small_cases()


@pytest.mark.parametrize("case", SMALL, ids=[f"{i}-{c.NAME}" for i, c in enumerate(SMALL)])
def test_small_variant_matches_reference_in_gpusim(case):
    inp = case.inputs(1)

    def launch(kernel, grid, block, *args):
        return gpusim.launch(kernel, grid, block, *args, gpu="h100", mode="functional", fma=True)

    out = case.run(launch, inp)
    res = case.check(out, case.reference(inp))
    assert res["passed"], res
    if case.derive:
        case.derive(out, inp)
