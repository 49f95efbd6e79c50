"""What numba.cuda does around a launch, the drop-in does too: a debug kernel's exception is raised on
the host with the thread that raised it, print() in a kernel prints, ForAll picks a block size from
the kernel's occupancy, integer scalars wrap to their signature's width as ctypes wraps them, a
non-contiguous host array is refused with numba's ValueError, and the environment switch
(GPUSIM_DROPIN=1 with `gpusim dropin-path` on PYTHONPATH) reaches Python processes a script starts."""
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import cuda

import gpusim.dropin as dropin


@pytest.fixture(autouse=True)
def on_gpusim():
    with dropin.simulate(mode="functional"):
        yield


def test_a_debug_kernel_raises_the_exception_of_the_thread_that_raised_it():
    @cuda.jit(debug=True, opt=False)
    def k(x):
        i = cuda.grid(1)
        if i == 37:
            raise ValueError("bad element")
        x[i] = i
    x = np.zeros(64, np.int64)
    with pytest.raises(ValueError, match=r"tid=\[0, 0, 5\] ctaid=\[0, 0, 1\]: bad element"):
        k[2, 32](x)


def test_a_debug_kernel_that_raises_nothing_runs_to_the_end():
    @cuda.jit(debug=True, opt=False)
    def k(x):
        i = cuda.grid(1)
        if i > 1000:
            raise ValueError("never")
        x[i] = i
    x = np.zeros(64, np.int64)
    k[2, 32](x)
    assert x.tolist() == list(range(64))


def test_print_in_a_kernel_reaches_stdout(capsys):
    @cuda.jit
    def k():
        print("block", cuda.blockIdx.x, "thread", cuda.threadIdx.x)
    k[2, 2]()
    out = sorted(capsys.readouterr().out.splitlines())
    assert out == ["block 0 thread 0", "block 0 thread 1", "block 1 thread 0", "block 1 thread 1"]
    assert dropin.last_launch().stdout.count("\n") == 4


def test_forall_chooses_the_block_size_of_highest_occupancy():
    @cuda.jit
    def k(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1
    x = np.zeros(5000, np.float32)
    k.forall(x.size)(x)
    assert (x == 1).all()
    r = dropin.last_launch()
    assert r.block == (1024, 1, 1) and r.grid == (5, 1, 1)      # few registers: the largest block


def test_integer_scalars_wrap_to_the_signature_width_as_ctypes_does():
    @cuda.jit("void(int32[::1], int32)")
    def k(out, v):
        out[0] = v
    out = np.zeros(1, np.int32)
    k[1, 1](out, 0xFFFFFFFF)
    assert out[0] == -1


def test_a_non_contiguous_host_array_is_refused_as_numba_refuses_it():
    @cuda.jit
    def k(x):
        x[0] = 1
    with pytest.raises(ValueError, match="contiguous"):
        k[1, 1](np.zeros(10)[::2])
    with pytest.raises(ValueError, match="contiguous"):
        cuda.devicearray.auto_device(np.zeros(10)[::2])


def test_datetime_scalars_pass_their_count():
    @cuda.jit
    def k(dates, target, out):
        i = cuda.grid(1)
        if i < dates.size:
            out[i] = dates[i] == target
    dates = np.arange("2005-02", "2005-03", dtype="datetime64[D]")
    out = np.zeros(dates.size, np.bool_)
    k[1, 32](dates, dates[5], out)
    assert out.nonzero()[0].tolist() == [5]


CHILD = """
from numba import cuda
import numpy as np, gpusim.dropin
@cuda.jit
def k(x):
    x[cuda.grid(1)] = 7
x = np.zeros(4)
k[1, 4](x)
print(x.tolist(), gpusim.dropin.last_launch() is not None)
"""


def test_the_environment_switch_reaches_child_processes():
    env = dropin.child_env()
    env["NUMBA_ENABLE_CUDASIM"] = "0"
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[7.0, 7.0, 7.0, 7.0] True"
    assert os.path.isfile(os.path.join(dropin.site_dir(), "sitecustomize.py"))


def test_a_block_beyond_the_launch_bounds_is_refused_as_the_driver_refuses_it():
    from cuda.core._utils.cuda_utils import CUDAError

    @cuda.jit(launch_bounds=128)
    def k(x):
        x[cuda.grid(1)] = 1
    x = np.zeros(256)
    k[1, 128](x)
    assert x[:128].sum() == 128
    with pytest.raises(CUDAError, match="CUDA_ERROR_INVALID_VALUE"):
        k[1, 256](x)
