"""The CUDA C programs in programs/cuda/ (committed PTX from nvcc -arch=sm_90 -ptx -lineinfo) give
numpy's results on gpusim: every one in functional mode at its registered size, in timing mode on the
tiny preset, and through `gpusim run NAME`."""
import numpy as np
import pytest

import gpusim
from gpusim.cli import main
from programs.argspec import parse_args
from programs.cuda_programs import CUDA_DIR, CUDA_PROGRAMS
from programs.ptx_programs import PTX_PROGRAMS

NEEDS = {
    # name: the missing feature another branch adds; strict, so the lead flips it after merging
}


def _cases():
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=NEEDS[name])) if name in NEEDS
            else name for name in sorted(CUDA_PROGRAMS)]


def _run_and_check(name, seed, **launch_opts):
    spec = CUDA_PROGRAMS[name]
    kernel = gpusim.load_ptx(spec["file"])[spec["kernel"]]
    args = parse_args(spec["args"], seed=seed)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    result = gpusim.launch(kernel, spec["grid"], spec["block"], *args, **launch_opts)
    for idx, expect in spec["reference"](before).items():
        got = np.asarray(args[idx])
        if spec["rtol"] == 0 and spec["atol"] == 0:
            np.testing.assert_array_equal(got, expect, err_msg=f"{name}: argument {idx}")
        else:
            np.testing.assert_allclose(got, expect, rtol=spec["rtol"], atol=spec["atol"],
                                       err_msg=f"{name}: argument {idx}")
    return result


def test_every_cuda_program_has_committed_ptx_and_is_registered():
    sources = sorted(p.stem for p in CUDA_DIR.glob("*.cu"))
    assert sources == sorted(CUDA_PROGRAMS)
    for name in sources:
        assert (CUDA_DIR / f"{name}.ptx").is_file()
        assert PTX_PROGRAMS[name] is CUDA_PROGRAMS[name]


@pytest.mark.parametrize("name", _cases())
def test_cuda_program_matches_numpy_in_functional_mode(name):
    _run_and_check(name, seed=11, mode="functional")


@pytest.mark.parametrize("name", _cases())
def test_cuda_program_matches_numpy_in_timing_mode_on_tiny(name):
    result = _run_and_check(name, seed=12, mode="timing", gpu="tiny")
    assert result.cycles > 0


def test_transposes_agree_and_padded_tile_has_no_more_shared_bank_conflicts_than_reads():
    """The tiled transpose's padding makes a column read of the tile conflict-free: its shared
    accesses take no extra wavefronts beyond one per warp-wide access."""
    result = _run_and_check("transpose_tiled_cu", seed=1, mode="timing", gpu="tiny")
    conflicts = {k: v for k, v in result.metrics.items() if "bank_conflict" in k}
    assert conflicts, "timing mode reports shared-memory bank conflicts"
    assert all(v == 0 for v in conflicts.values()), conflicts


def test_gpusim_run_reports_scan_matches_numpy(capsys):
    assert main(["run", "scan_cu", "--mode", "functional"]) == 0
    assert "matches the numpy reference" in capsys.readouterr().out
