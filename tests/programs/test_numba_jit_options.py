"""A numba.cuda dispatcher's own options change the code a GPU runs (fastmath: approximate division and
flush-to-zero; launch_bounds: the register budget); gpusim compiles with them, as numba does on a GPU."""
import numpy as np
import pytest
from numba import cuda, float32

import gpusim
from gpusim import ptxas
from gpusim.kernels import jit_options, numba_kernel

SIG = (float32[::1], float32[::1])


def _scale(x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = x[i] / float32(3.0) + float32(1.0)


def _divisions(k):
    return [ln.split()[0] for ln in k.module.text.splitlines() if ln.strip().startswith("div.")]


def test_fastmath_dispatcher_runs_approximate_division_as_on_a_gpu():
    fast = cuda.jit(fastmath=True)(_scale)
    plain = cuda.jit(_scale)
    assert jit_options(fast) == {"fastmath": True} and jit_options(plain) == {}
    assert _divisions(numba_kernel(fast, SIG)) == ["div.approx.ftz.f32"]
    assert _divisions(numba_kernel(plain, SIG)) == ["div.rn.f32"]
    x = np.linspace(0.5, 40.0, 96, dtype=np.float32)
    y = np.zeros_like(x)
    gpusim.launch(fast, 1, 96, x, y)
    np.testing.assert_allclose(y, x / np.float32(3.0) + 1, rtol=2e-6)


def test_launch_bounds_reach_the_ptx():
    bounded = cuda.jit(launch_bounds=(128,))(_scale)
    k = numba_kernel(bounded, SIG)
    assert ".maxntid 128" in k.module.text
    assert ".maxntid" not in numba_kernel(cuda.jit(_scale), SIG).module.text


@pytest.mark.skipif(ptxas.find() is None, reason="no ptxas (the triton extra bundles one)")
def test_sass_model_registers_follow_the_dispatcher_options():
    fast = cuda.jit(fastmath=True)(_scale)
    x = np.ones(64, np.float32)
    r = gpusim.launch(fast, 1, 64, x, np.zeros_like(x), model="sass")
    device = ptxas.resources(numba_kernel(fast, SIG).device_ptx(), "sm_90")
    assert r.metrics["launch__registers_per_thread"] == next(iter(device.values())).registers
