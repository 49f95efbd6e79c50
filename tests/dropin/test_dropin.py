"""Unchanged numba.cuda code runs on gpusim through the drop-in: launches, device arrays, eager
signatures, device functions (inlined or not), cuda.fp16, recursion, streams and events, dynamic
shared memory, and each launch's LaunchResult kept for assertions."""
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import cuda

import gpusim.dropin as dropin
from gpusim.errors import GpusimError

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def on_gpusim():
    with dropin.simulate(mode="functional"):
        yield


@cuda.jit
def add_one(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + 1


def test_host_arrays_are_copied_in_and_back_as_numba_does():
    x = np.arange(100, dtype=np.int32)
    out = np.zeros_like(x)
    add_one[4, 32](x, out)
    assert out.tolist() == (x + 1).tolist()


def test_device_arrays_round_trip_and_every_launch_is_recorded():
    x = np.arange(64, dtype=np.float32)
    d_x = cuda.to_device(x)
    d_out = cuda.device_array(64, np.float32)
    with dropin.recording() as runs:
        add_one[2, 32](d_x, d_out)
        add_one[2, 32](d_out, d_x)
    assert d_x.copy_to_host().tolist() == (x + 2).tolist()
    host = np.empty(64, np.float32)
    d_out.copy_to_host(host)
    assert host.tolist() == (x + 1).tolist()
    assert len(runs) == 2 and runs[-1] is dropin.last_launch()
    assert runs[0].warp_instructions > 0 and runs[0].grid == (2, 1, 1)


def test_eager_signature_kernel_compiles_without_a_gpu_and_runs():
    @cuda.jit("void(float64[::1], float64)")
    def scale(x, k):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= k
    x = np.arange(10, dtype=np.float64)
    scale[1, 32](x, 2.5)
    assert x.tolist() == (np.arange(10) * 2.5).tolist()


@cuda.jit(device=True, inline="never")
def cube(v):
    return v * v * v


@cuda.jit
def cubes(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = cube(x[i])


def test_a_device_function_that_is_not_inlined_is_called():
    x = np.arange(-8, 8, dtype=np.int64)
    out = np.zeros_like(x)
    cubes[1, 32](x, out)
    assert out.tolist() == (x ** 3).tolist()


def make_fibs():
    # an eager signature compiles at definition: after the switch, as in a script that starts with it
    @cuda.jit("int64(int64)", device=True)
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    @cuda.jit
    def fibs(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = fib(i)
    return fibs


def test_recursive_device_function_gives_each_thread_its_own_result():
    out = np.zeros(16, np.int64)
    make_fibs()[1, 16](out)
    assert out.tolist() == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610]


def test_fp16_intrinsics_link_numbas_helper_library():
    @cuda.jit
    def hfma(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = cuda.fp16.hfma(a[i], b[i], a[i])
    a = np.linspace(-4, 4, 32).astype(np.float16)
    b = np.linspace(0.5, 3, 32).astype(np.float16)
    out = np.zeros(32, np.float16)
    hfma[1, 32](a, b, out)
    # fma in float32 then one rounding to half equals the hardware's single-rounding hfma on these inputs
    exact = (a.astype(np.float64) * b.astype(np.float64) + a.astype(np.float64)).astype(np.float16)
    assert out.view(np.uint16).tolist() == exact.view(np.uint16).tolist()


def test_stream_launch_with_dynamic_shared_memory():
    @cuda.jit
    def reverse(x):
        buf = cuda.shared.array(0, np.int32)
        t = cuda.threadIdx.x
        buf[t] = x[t]
        cuda.syncthreads()
        x[t] = buf[cuda.blockDim.x - 1 - t]
    x = np.arange(64, dtype=np.int32)
    s = cuda.stream()
    d = cuda.to_device(x, stream=s)
    reverse[1, 64, s, 64 * 4](d)
    s.synchronize()
    assert d.copy_to_host().tolist() == x[::-1].tolist()


def test_events_measure_simulated_time_in_timing_mode():
    with dropin.simulate(mode="timing", gpu="tiny"):
        start, end = cuda.event(), cuda.event()
        x = np.arange(256, dtype=np.int32)
        start.record()
        add_one[8, 32](x, x)
        end.record()
        end.synchronize()
        res = dropin.last_launch()
    ms = start.elapsed_time(end)
    assert res.mode == "timing" and res.cycles > 0
    assert ms == pytest.approx(res.cycles / (res.timing["clock_mhz"] * 1e3))


@cuda.jit
def two_phase(x, out):
    # phase 1 writes x, the grid syncs, phase 2 reads what another block wrote
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    x[i] = i * 3
    g.sync()
    j = (i + cuda.blockDim.x) % x.size
    out[i] = x[j]


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_grid_sync_orders_writes_of_every_block_before_reads(mode):
    n = 4 * 64
    x, out = np.zeros(n, np.int64), np.zeros(n, np.int64)
    with dropin.simulate(mode=mode, gpu="tiny"):
        two_phase[4, 64](x, out)
    assert out.tolist() == [((i + 64) % n) * 3 for i in range(n)]


def test_a_cooperative_grid_that_does_not_fit_is_refused_as_the_driver_does():
    from gpusim.errors import LaunchError
    with dropin.simulate(gpu="tiny"):
        with pytest.raises(LaunchError, match="cooperative launch of 4096 blocks does not fit"):
            two_phase[4096, 64](np.zeros(4096 * 64, np.int64), np.zeros(4096 * 64, np.int64))


def test_a_kernel_fault_names_thread_and_line_not_a_wrong_value():
    @cuda.jit
    def oob(x):
        x[cuda.threadIdx.x * 1000000] = 1
    with pytest.raises(GpusimError, match=r"out-of-bounds.*thread"):
        oob[1, 32](np.zeros(4, np.int32))


def test_math_library_calls_match_numpy_closely():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = math.exp(x[i]) + math.sin(x[i])
    x = np.linspace(-3, 3, 64)
    out = np.zeros_like(x)
    k[2, 32](x, out)
    np.testing.assert_allclose(out, np.exp(x) + np.sin(x), rtol=1e-15, atol=1e-15)


def test_disable_restores_numba_cuda():
    dropin.disable()
    assert not dropin.enabled()
    from numba.cuda import api
    assert api.to_device.__module__.startswith("numba.cuda")
    dropin.enable(mode="functional")


def test_an_unchanged_script_runs_under_gpusim_python():
    r = subprocess.run([sys.executable, "-m", "gpusim.cli", "python", "--mode", "functional",
                        str(HERE / "script_saxpy.py"), "1000"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "ok [1.0, 3.0, 5.0]" in r.stdout
    assert "1 kernel launch(es)" in r.stderr and "saxpy" in r.stderr


def test_tuple_arguments_are_flattened_as_numba_passes_them():
    @cuda.jit
    def k(t, out):
        arrs, (a, b), c = t
        out[0] = arrs[0][1] + arrs[1][2] + a * b + c
    x, y = np.arange(4, dtype=np.int64), np.arange(10, 14, dtype=np.int64)
    out = np.zeros(1, np.int64)
    k[1, 1](((x, y), (3, 4), 5), out)
    assert out[0] == 1 + 12 + 12 + 5
