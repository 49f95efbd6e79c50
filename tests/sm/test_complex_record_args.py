"""Complex and record (numpy structured) kernel arguments are marshalled as numba passes them: a complex
scalar as its real and imaginary parts, a record scalar as a pointer to a device copy of its bytes, a
record array as an array; a PTX kernel's aggregate parameter (`.param .align 8 .b8 z[16]`) takes a
complex number, a record or bytes of its size."""
import numpy as np
import pytest
from conftest import HEADER, run_ptx
from numba import cuda

import gpusim
from gpusim.errors import LaunchError

REC = np.dtype([("a", np.int32), ("b", np.float32)])


def k_complex(z, out):
    i = cuda.grid(1)
    if i < out.size:
        w = z * (i + 1)
        out[i] = w.real + 1000.0 * w.imag


def k_complex_out(z, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = z + i


def k_record(r, arr, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = r.a * i + r.b + arr[i].a * 10 + arr[i].b
        arr[i].a = arr[i].a + r.a


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128, complex])
def test_numba_kernel_takes_a_complex_scalar(ctype):
    z = ctype(1.5 - 2.25j)
    out = np.zeros(40, np.float64)
    for mode in ("functional", "timing"):
        gpusim.launch(k_complex, 1, 64, z, out, mode=mode, gpu="tiny")
        i = np.arange(40) + 1
        w = complex(z) * i
        assert out.tolist() == (w.real + 1000.0 * w.imag).tolist()


def test_numba_kernel_adds_to_a_complex_scalar_into_a_complex_array():
    out = np.zeros(32, np.complex64)
    gpusim.launch(k_complex_out, 1, 32, np.complex64(0.5 + 3j), out, mode="functional")
    assert out.tolist() == [complex(0.5 + i, 3.0) for i in range(32)]


def test_numba_kernel_takes_a_record_scalar_and_a_record_array():
    r = np.array([(7, 0.25)], dtype=REC)[0]
    arr = np.zeros(32, REC)
    arr["a"] = np.arange(32)
    arr["b"] = np.arange(32) * 0.5
    for mode in ("functional", "timing"):
        a = arr.copy()
        out = np.zeros(32, np.float64)
        gpusim.launch(k_record, 1, 32, r, a, out, mode=mode, gpu="tiny")
        i = np.arange(32)
        assert out.tolist() == (7 * i + 0.25 + arr["a"] * 10 + arr["b"]).tolist()
        assert a["a"].tolist() == (arr["a"] + 7).tolist() and a["b"].tolist() == arr["b"].tolist()


AGG = HEADER + """
.visible .entry k(.param .align 8 .b8 z[16], .param .u64 out)
{
    .reg .f64 %re, %im;
    .reg .u64 %O;
    ld.param.u64 %O, [out];
    ld.param.f64 %re, [z];
    ld.param.f64 %im, [z+8];
    st.global.v2.f64 [%O], {%re, %im};
    ret;
}
"""


@pytest.mark.parametrize("value", [np.complex128(2.5 - 7j), 2.5 - 7j, np.array([(2.5, -7.0)],
                                   dtype=[("x", np.float64), ("y", np.float64)])[0],
                                   np.array([2.5, -7.0]).tobytes()])
def test_ptx_aggregate_parameter_takes_complex_record_or_bytes(value):
    out = np.zeros(2, np.float64)
    run_ptx(AGG, "k", 1, 1, value, out, mode="functional")
    assert out.tolist() == [2.5, -7.0]


def test_ptx_aggregate_parameter_refuses_bytes_or_records_of_the_wrong_size():
    for value in (b"\0" * 8, np.zeros(1, REC)[0], 3.0):
        with pytest.raises(LaunchError, match="aggregate of 16 bytes"):
            run_ptx(AGG, "k", 1, 1, value, np.zeros(2), mode="functional")
