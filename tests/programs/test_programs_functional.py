"""Every example program, run in gpusim's functional mode, matches its numpy reference."""
import numpy as np
import pytest

import gpusim
from programs import all_programs
from programs.argspec import parse_args
from programs.cuda_programs import CUDA_PROGRAMS
from programs.ptx_programs import PTX_DIR, PTX_PROGRAMS

PROGRAMS = all_programs()


def _launch(kernel, grid, block, *args):
    return gpusim.launch(kernel, grid, block, *args, mode="functional")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_reference_in_functional_mode(name):
    mod = PROGRAMS[name]
    inp = mod.inputs(mod.SMALL_SIZE, seed=3)
    out = mod.run(_launch, inp)
    ref = mod.reference(inp)
    assert set(ref) <= set(out)
    for key, expect in ref.items():
        if mod.RTOL == 0 and mod.ATOL == 0:
            np.testing.assert_array_equal(out[key], expect, err_msg=f"{name}:{key}")
        else:
            np.testing.assert_allclose(out[key], expect, rtol=mod.RTOL, atol=mod.ATOL, err_msg=f"{name}:{key}")


# programs/cuda/ programs are tested (with xfails for features other branches add) in test_cuda_c_programs.py
@pytest.mark.parametrize("name", sorted(set(PTX_PROGRAMS) - set(CUDA_PROGRAMS)))
def test_nvcc_ptx_program_matches_reference(name):
    spec = PTX_PROGRAMS[name]
    k = gpusim.load_ptx(str(PTX_DIR / spec["file"]))[spec["kernel"]]
    args = parse_args(spec["args"], seed=5)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    gpusim.launch(k, spec["grid"], spec["block"], *args, mode="functional")
    for idx, expect in spec["reference"](before).items():
        np.testing.assert_allclose(args[idx], expect, rtol=spec.get("rtol", 0), atol=spec.get("atol", 0))


def test_same_launch_twice_gives_identical_counters():
    mod = PROGRAMS["reduce_shared"]
    inp = mod.inputs(mod.SMALL_SIZE)
    runs = []
    for _ in range(2):
        res = []
        mod.run(lambda *a: res.append(_launch(*a)), inp)
        runs.append([r.metrics for r in res])
    assert runs[0] == runs[1]


def test_divergent_program_reports_divergence_and_lost_simt_efficiency():
    mod = PROGRAMS["divergence"]
    res = []
    mod.run(lambda *a: res.append(_launch(*a)) or res[-1], mod.inputs(mod.SMALL_SIZE))
    m = res[0].metrics
    assert m["sm__sass_branch_divergent.sum"] > 0
    assert m["gpusim__simt_efficiency.pct"] < 100.0
