"""Arrays reach the kernel in their own memory order: a Fortran-ordered (column-major) array is copied to
device memory as it lies in host memory and numba's descriptor carries its strides, so element [i, j]
is the same element on both sides, and the kernel's writes come back in the same layout."""
import numpy as np
import pytest
from numba import cuda

import gpusim


def k_rowsum_into(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] * 10 + i


@pytest.mark.parametrize("mode", ["functional", "timing"])
@pytest.mark.parametrize("a_order,out_order", [("F", "C"), ("C", "F"), ("F", "F")])
def test_fortran_ordered_arrays_keep_their_elements_in_and_out(mode, a_order, out_order):
    a = np.asarray(np.arange(35, dtype=np.float64).reshape(5, 7), order=a_order)
    out = np.zeros((5, 7), np.float64, order=out_order)
    want, a_before = a * 10 + np.arange(5)[:, None], a.copy()
    gpusim.launch(k_rowsum_into, (1, 1), (8, 8), a, out, mode=mode)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(a, a_before)      # copied back unchanged, in its own order
    assert out.flags.f_contiguous == (out_order == "F")
