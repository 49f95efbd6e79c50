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
GROUPS = {"gatomics", "dispatch", "local", "mlp", "smem_pipe", "exposed", "burst"}


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


def test_the_burst_barrier_wait_comes_from_the_arrivals_not_the_clock_after_the_barrier():
    """On the H100 the clock read after BAR.SYNC.DEFER_BLOCKING is 2 cycles after the one before it on every warp:
    the barrier does not hold it. A warp's wait is its CTA's last arrival minus its own."""
    case = next(c for c in mechanisms.small_cases() if c.NAME == "burst_w32")    # 2 CTAs of 4 warps
    inp = case.inputs(0)
    t0 = np.array([[100, 100, 104, 104], [500, 500, 500, 502]], np.int64)
    t1 = t0 + np.array([[900, 1300, 1000, 1700], [800, 800, 800, 800]])
    st = np.stack([t0, t1, t1 + 2], axis=-1).ravel()
    d = case.derive({"stamps": st, "out": inp["out"]}, inp)
    assert d["warps_per_cta"] == 4
    # CTA 0 has its data at 1000, 1400, 1104 and 1804: its warps wait 804, 404, 700 and 0 cycles; CTA 1's 2, 2, 2, 0
    assert d["barrier_wait_mean"] == pytest.approx((804 + 404 + 700 + 2 + 2 + 2) / 8)
    assert d["arrival_spread_mean"] == pytest.approx((804 + 2) / 2)
