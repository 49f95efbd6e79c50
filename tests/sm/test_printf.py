"""printf in kernels prints what the GPU prints: nvcc's and numba's `vprintf` calls are linked to
gpusim's device runtime (gpusim/devrt.py), which fills a printf FIFO in global memory that the host
formats after the kernel, writes to stdout and keeps in `result.stdout`. A FIFO that overflows drops
records, as on the GPU, and gpusim says so."""
from pathlib import Path

import numpy as np
import pytest
from numba import cuda

import gpusim

DATA = Path(__file__).resolve().parent.parent / "data" / "printf"     # not in the PTX fuzzer's corpus
# tests/data/printf/printf_cu.cu (nvcc -arch=sm_90 -ptx):
#   printf("thread %d of %u: x=%.2f %s %c %lld %5.1e %x%%\n", i, n, x[i], "ok", 'A' + i,
#          (long long)i * 1000000000000LL, x[i] * 1000.0f, 255 + i);
# and what C's printf writes for it, by hand
C_OUTPUT = """\
thread 0 of 5: x=0.50 ok A 0 5.0e+02 ff%
thread 1 of 5: x=-1.25 ok B 1000000000000 -1.2e+03 100%
thread 2 of 5: x=3.00 ok C 2000000000000 3.0e+03 101%
thread 3 of 5: x=7.75 ok D 3000000000000 7.8e+03 102%
thread 4 of 5: x=2.50 ok E 4000000000000 2.5e+03 103%
"""


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_cuda_c_printf_formats_every_conversion_as_c_does(mode, capsys):
    x = np.array([0.5, -1.25, 3.0, 7.75, 2.5], np.float32)
    k = gpusim.load_ptx(str(DATA / "printf_cu.ptx"))["hello"]
    res = gpusim.launch(k, 1, 8, x, np.int32(5), mode=mode, gpu="tiny")
    assert res.stdout == C_OUTPUT                   # threads of one warp reserve their records in lane order
    assert capsys.readouterr().out == C_OUTPUT


def k_print(a):
    i = cuda.grid(1)
    print("i", i, "a", a[i], "half", a[i] / 2)


def test_numba_print_writes_one_line_per_thread(capsys):
    a = np.arange(40, dtype=np.int64)
    res = gpusim.launch(k_print, 2, 20, a, mode="functional")
    lines = sorted(capsys.readouterr().out.splitlines())
    assert lines == sorted(f"i {i} a {i} half {i / 2:f}" for i in range(40))
    assert res.stdout.count("\n") == 40


def k_flood(out):
    i = cuda.grid(1)
    print(i)
    out[i] = i


def test_a_full_printf_fifo_drops_records_and_says_so(capsys):
    out = np.zeros(64 * 1024, np.int64)
    res = gpusim.launch(k_flood, 64, 1024, out, mode="functional")
    captured = capsys.readouterr()
    printed = captured.out.splitlines()
    # 24-byte records (header + one 8-byte argument) in a 1 MiB FIFO: 43690 fit
    assert len(printed) == (1 << 20) // 24
    assert "printf output of" in captured.err and "was lost" in captured.err
    np.testing.assert_array_equal(out, np.arange(out.size))
    assert res.stdout.count("\n") == len(printed)


def test_a_kernel_without_printf_writes_nothing(capsys):
    out = np.zeros(32, np.int64)

    def k(o):
        o[cuda.grid(1)] = 1
    res = gpusim.launch(k, 1, 32, out, mode="functional")
    assert res.stdout == "" and capsys.readouterr().out == ""
