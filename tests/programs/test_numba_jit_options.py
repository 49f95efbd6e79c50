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
    text = numba_kernel(fast, SIG).device_ptx()
    assert "div.approx.ftz.f32" in text          # the device compile keeps fastmath too
    device = ptxas.resources(text, "sm_90")
    assert r.metrics["launch__registers_per_thread"] == next(iter(device.values())).registers
    plain = gpusim.launch(cuda.jit(_scale), 1, 64, x, np.zeros_like(x), model="sass")
    assert plain.metrics["launch__registers_per_thread"] != r.metrics["launch__registers_per_thread"]


def test_line_info_asked_for_is_a_kernel_of_its_own():
    """A dispatcher compiled with lineinfo=True runs the line-info PTX on a GPU; the same function without it
    runs the plain one: the two never share a compile."""
    with_lines = cuda.jit(lineinfo=True)(_scale)
    plain = cuda.jit(_scale)
    a = numba_kernel(with_lines, SIG, True)
    b = numba_kernel(plain, SIG, True)
    assert a is not b
    assert a.device_ptx() == a.module.text       # already what the GPU runs
    assert ".loc" not in b.device_ptx()


def test_forceinline_dispatchers_still_compile():
    k = numba_kernel(cuda.jit(forceinline=True)(_scale), SIG)
    assert _divisions(k) == ["div.rn.f32"]


@pytest.mark.skipif(ptxas.find() is None, reason="no ptxas (the triton extra bundles one)")
def test_max_registers_limits_the_sass_model_as_the_driver_does():
    """numba passes max_registers to the driver's JIT (ptxas -maxrregcount): softmax's 36 registers become 24,
    and what ptxas spills to fit is timed as local traffic; the values are unchanged."""
    from programs import softmax
    x = np.random.default_rng(1).standard_normal((2, 128)).astype(np.float32)
    ref = np.exp(x - x.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    free, capped = np.zeros_like(x), np.zeros_like(x)
    r = gpusim.launch(cuda.jit(softmax.softmax), 2, 128, x, free, model="sass", fma=True)
    c = gpusim.launch(cuda.jit(max_registers=24)(softmax.softmax), 2, 128, x, capped, model="sass", fma=True)
    assert r.metrics["launch__registers_per_thread"] == 36
    assert c.metrics["launch__registers_per_thread"] <= 24
    np.testing.assert_allclose(capped, ref, rtol=1e-5)
    np.testing.assert_array_equal(capped, free)
