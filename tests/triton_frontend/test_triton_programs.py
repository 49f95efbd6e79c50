"""The Triton example programs (programs/triton/) match their numpy references in functional mode, and so
do the kernels Triton software-pipelines (cp.async) and puts on tensor cores (ldmatrix, mma.sync,
stmatrix on sm_80/sm_90 small tiles; wgmma with fence.proxy.async on sm_90 64-row tiles)."""
import numpy as np
import pytest

pytest.importorskip("triton", reason="Triton is not installed (pip install gpusim[triton]; Linux only)")

import gpusim.triton as gt  # noqa: E402
from gpusim.cli import main  # noqa: E402
from gpusim.errors import UnsupportedInstruction  # noqa: E402
from programs.triton import all_programs  # noqa: E402

PROGRAMS = all_programs()
REQUIRED = {"triton_vecadd", "triton_softmax", "triton_layernorm", "triton_sum", "triton_histogram",
            "triton_matmul", "triton_matmul_fp16", "triton_flash_attention", "triton_matmul_fp8"}


def _launcher(gpu="h100"):
    return lambda fn, grid, *args, **meta: gt.jit_launch(fn, grid, *args, gpu=gpu, mode="functional", **meta)


def _check(mod, gpu="h100", **config):
    inp = mod.inputs(mod.SMALL_SIZE, seed=3)
    out = mod.run(_launcher(gpu), inp, **config)
    for key, expect in mod.reference(inp).items():
        np.testing.assert_allclose(out[key].astype(np.float64), expect.astype(np.float64), rtol=mod.RTOL,
                                   atol=mod.ATOL, err_msg=f"{mod.NAME}:{key}")


def _pending(name):
    mod = PROGRAMS[name]
    reason = getattr(mod, "PENDING", None)
    if reason is None:
        return name
    return pytest.param(name, marks=pytest.mark.xfail(raises=UnsupportedInstruction, strict=True, reason=reason))


def test_all_triton_programs_exist_and_declare_the_interface():
    assert REQUIRED <= set(PROGRAMS)
    for mod in PROGRAMS.values():
        assert mod.TRITON and mod.DESCRIPTION and mod.__doc__ and 0 < mod.SMALL_SIZE < mod.DEFAULT_SIZE


@pytest.mark.parametrize("name", [_pending(n) for n in sorted(PROGRAMS)])
def test_triton_program_matches_reference_on_h100(name):
    _check(PROGRAMS[name])


def test_tensor_core_matmul_fp16_runs_on_v100_where_the_dot_is_fmas():
    _check(PROGRAMS["triton_matmul_fp16"], gpu="v100")


def test_fp32_matmul_runs_on_a100_without_tf32():
    _check(PROGRAMS["triton_matmul"], gpu="a100")


TILE32 = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32)
TILE64 = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32)
PIPELINED = [
    pytest.param("triton_softmax", "h100", dict(num_stages=3), id="softmax-sm90-stages3"),
    pytest.param("triton_matmul", "h100", dict(num_stages=3), id="matmul_fp32_ieee-sm90-stages3"),
    pytest.param("triton_matmul", "h100", dict(INPUT_PRECISION=None, **TILE32), id="matmul_tf32-sm90-stages1-tile32"),
    pytest.param("triton_matmul", "h100", dict(INPUT_PRECISION=None, **TILE64), id="matmul_tf32-sm90-stages1-tile64"),
    pytest.param("triton_matmul", "a100", dict(INPUT_PRECISION=None, num_stages=3), id="matmul_tf32-sm80-stages3"),
    pytest.param("triton_matmul_fp16", "h100", dict(num_stages=1, **TILE32), id="matmul_fp16-sm90-stages1-tile32"),
    pytest.param("triton_matmul_fp16", "h100", dict(num_stages=1), id="matmul_fp16-sm90-stages1-tile64"),
    pytest.param("triton_matmul_fp16", "a100", {}, id="matmul_fp16-sm80-stages3"),
]


@pytest.mark.parametrize("name, gpu, config", PIPELINED)
def test_pipelined_and_tensor_core_variants(name, gpu, config):
    mod = PROGRAMS[name]
    if config.get("INPUT_PRECISION", "ieee") is None:       # tf32 keeps 10 mantissa bits of each product
        mod = _Loose(mod)
    _check(mod, gpu=gpu, **config)


class _Loose:
    """A program module seen with tf32's tolerance."""
    RTOL, ATOL = 1e-2, 5e-2

    def __init__(self, mod):
        self._mod = mod

    def __getattr__(self, name):
        return getattr(self._mod, name)


def test_gpusim_run_accepts_a_triton_program(capsys):
    assert main(["run", "triton_vecadd", "--mode", "functional", "--small"]) == 0
    assert "matches the numpy reference" in capsys.readouterr().out


def test_gpusim_ptx_prints_a_triton_programs_ptx(capsys):
    assert main(["ptx", "triton_sum"]) == 0
    assert ".entry sum_kernel" in capsys.readouterr().out


def test_gpusim_list_shows_the_triton_programs(capsys):
    assert main(["list"]) == 0
    assert "triton_matmul_fp16" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["triton_softmax", "triton_layernorm", "triton_sum", "triton_matmul",
                                  "triton_flash_attention", "triton_matmul_fp8"])
def test_tritons_shared_memory_reductions_are_race_free_under_racecheck_and_synccheck(name):
    mod, runs = PROGRAMS[name], []
    launch = _launcher()
    mod.run(lambda fn, grid, *a, **meta: runs.append(launch(fn, grid, *a, check="racecheck,synccheck", **meta)),
            mod.inputs(mod.SMALL_SIZE))
    assert runs and all(not r.sanitizer.reports for r in runs)
