"""A kernel's launch bounds hold as the driver holds them: a block larger than `.maxntid` allows, or
of another shape than `.reqntid` names, is refused before anything runs (CUDA_ERROR_INVALID_VALUE)."""
import numpy as np
import pytest
from conftest import HEADER

import gpusim
from gpusim.errors import LaunchBoundsError, LaunchError


def kernel(directive):
    return gpusim.load_ptx(HEADER + f""".visible .entry k(.param .u64 out) {directive}
{{
    .reg .u64 %rd<4>;
    .reg .u32 %r<2>;
    ld.param.u64 %rd0, [out];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd1, %r0, 4;
    add.u64 %rd2, %rd0, %rd1;
    st.global.u32 [%rd2], %r0;
    ret;
}}
""")["k"]


def test_maxntid_admits_blocks_up_to_its_product_and_refuses_larger_ones():
    k = kernel(".maxntid 64, 2, 1")
    out = np.zeros(256, np.uint32)
    gpusim.launch(k, 1, 128, out, mode="functional")
    assert out[:128].tolist() == list(range(128))
    with pytest.raises(LaunchBoundsError, match=r"CUDA_ERROR_INVALID_VALUE.*129 threads.*\.maxntid 64, 2, 1"):
        gpusim.launch(k, 1, 129, out, mode="functional")
    assert issubclass(LaunchBoundsError, LaunchError)


def test_reqntid_admits_only_its_block_shape():
    k = kernel(".reqntid 32, 2")
    out = np.zeros(64, np.uint32)
    gpusim.launch(k, 1, (32, 2), out, mode="functional")
    with pytest.raises(LaunchBoundsError, match="reqntid"):
        gpusim.launch(k, 1, 64, out, mode="functional")
