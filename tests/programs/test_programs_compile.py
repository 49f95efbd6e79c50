"""Every kernel of every example program compiles to sm_90 PTX with numba-cuda's NVVM (no GPU needed),
and every program module implements the interface of programs/_base.py."""
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from programs import all_programs  # noqa: E402

PROGRAMS = all_programs()
REQUIRED = {
    "vecadd", "saxpy", "strided", "transpose_naive", "transpose_tiled", "reduce_shared", "reduce_shuffle",
    "histogram", "sgemm_tiled", "divergence", "stencil2d", "softmax", "relu_matmul",
    "elementwise_unfused", "elementwise_fused",
}  # fmt: skip
KERNELS = [
    pytest.param(kernel, sig, id=f"{name}.{getattr(kernel, '__name__', kernel)}")
    for name, mod in PROGRAMS.items()
    for kernel, sig in mod.KERNELS
]


def test_all_required_programs_exist():
    assert REQUIRED <= set(PROGRAMS)


@pytest.mark.parametrize("kernel, signature", KERNELS)
def test_kernel_compiles_to_sm90_ptx_without_float64(kernel, signature):
    from numba import cuda

    ptx, _ = cuda.compile_ptx(getattr(kernel, "py_func", kernel), signature, cc=(9, 0))
    assert ".target sm_90" in ptx and ".entry" in ptx
    assert ".f64" not in ptx, "float64 arithmetic crept in (a Python float or int promotion?)"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_implements_the_interface(name):
    mod = PROGRAMS[name]
    assert mod.__name__.rsplit(".", 1)[-1] == name
    assert isinstance(mod.DESCRIPTION, str) and mod.DESCRIPTION and mod.__doc__
    assert 0 < mod.SMALL_SIZE < mod.DEFAULT_SIZE
    assert mod.RTOL >= 0 and mod.ATOL >= 0 and mod.KERNELS
    inp = mod.inputs(mod.SMALL_SIZE, seed=0)
    again = mod.inputs(mod.SMALL_SIZE, seed=0)
    for key, value in inp.items():
        assert np.array_equal(value, again[key]), f"inputs({key!r}) is not deterministic for a seed"
        assert np.any(np.asarray(value) != 0), f"input {key!r} is all zero"
        assert np.asarray(value).dtype in (np.float32, np.int32, np.int64), f"input {key!r} dtype"
    expected = mod.reference(inp)
    assert expected and all(isinstance(v, np.ndarray) for v in expected.values())
