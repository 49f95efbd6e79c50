"""The SASS model's first part (gpusim/ptxas.py): ptxas's registers per thread set occupancy when a launch
asks for model="sass"; the PTX model stays the default and needs nothing."""
import numpy as np
import pytest

import gpusim
from gpusim import ptxas
from gpusim.errors import LaunchError

PTXAS_V = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'heavy' for 'sm_90'
ptxas info    : Function properties for heavy
    24 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers
ptxas info    : Compiling entry function 'light' for 'sm_90'
ptxas info    : Function properties for light
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
"""

KERNEL = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p) {
 .reg .b32 %r<4>; .reg .b64 %rd<3>;
 ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1; mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd2, %r1, 4; add.s64 %rd1, %rd1, %rd2; st.global.u32 [%rd1], %r1; ret; }"""


def test_ptxas_report_is_read_per_entry_function():
    res = ptxas.parse(PTXAS_V)
    assert res["heavy"] == ptxas.KernelResources(registers=255, spill_stores=16, spill_loads=8, stack=24)
    assert res["light"].registers == 8 and res["light"].spill_stores == 0


def test_an_unknown_model_is_refused_by_name():
    k = gpusim.load_ptx(KERNEL)["k"]
    with pytest.raises(LaunchError, match="model must be one of ptx, sass"):
        gpusim.launch(k, 1, 32, np.zeros(32, np.int32), model="rtl")


@pytest.mark.skipif(ptxas.find() is None, reason="no ptxas (the triton extra bundles one)")
def test_sass_model_takes_registers_per_thread_from_ptxas():
    k = gpusim.load_ptx(KERNEL)["k"]
    out = np.zeros(64, np.int32)
    r = gpusim.launch(k, 1, 64, out, model="sass")
    assert (out == np.arange(64)).all()
    assert r.timing["model"] == "sass"
    assert r.metrics["launch__registers_per_thread"] == r.timing["ptxas"].registers
    p = gpusim.launch(k, 1, 64, out)
    assert p.timing["model"] == "ptx" and "ptxas" not in p.timing
