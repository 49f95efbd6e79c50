"""The SASS model's first part (gpusim/ptxas.py): ptxas's registers per thread set occupancy when a launch
asks for model="sass"; the PTX model stays the default and needs nothing."""
import json
from pathlib import Path

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


RECORDED = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100"


@pytest.mark.skipif(ptxas.find() is None, reason="no ptxas (the triton extra bundles one)")
def test_registers_equal_what_the_h100_ran_on_every_recorded_kernel():
    """Each validation case's PTX, as recorded on the H100, compiled here gives the registers per thread
    the launched function had there (numba's regs_per_thread, the driver's CU_FUNC_ATTRIBUTE_NUM_REGS).
    Compiled relocatable (-c) instead, 14 of the 109 differ (bank_s01: 26 against 22)."""
    cases = sorted(RECORDED.glob("ptx/*.ptx"))
    assert len(cases) >= 100
    wrong = []
    for f in cases:
        rec = json.loads((RECORDED / f"{f.stem}.json").read_text())["kernel"]
        text = f.read_text()
        res = ptxas.resources(text, ptxas.arch_for(90, text))
        got = [r.registers for name, r in res.items() if rec["function"] in name] or \
              [r.registers for r in res.values()]
        if rec["regs_per_thread"] not in got:
            wrong.append((f.stem, rec["regs_per_thread"], got))
    assert not wrong


CALLS_EXTERN = """.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 r) ext (.param .b32 a);
.visible .entry k(.param .u64 p) {
 .reg .b32 %r<4>; .reg .b64 %rd<3>;
 ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1; mov.u32 %r1, %tid.x;
 { .param .b32 a; .param .b32 r; st.param.b32 [a], %r1;
   call.uni (r), ext, (a); ld.param.b32 %r2, [r]; }
 st.global.u32 [%rd1], %r2; ret; }"""


@pytest.mark.skipif(ptxas.find() is None, reason="no ptxas (the triton extra bundles one)")
def test_a_module_calling_an_undefined_function_is_compiled_relocatable():
    res = ptxas.resources(CALLS_EXTERN, "sm_90")
    assert res["k"].registers > 0


@pytest.mark.skipif(ptxas.find() is None, reason="no ptxas (the triton extra bundles one)")
def test_numba_kernel_registers_are_those_of_the_compile_a_gpu_runs():
    """gpusim compiles numba kernels with line info (per-source-line reports); numba.cuda on a GPU does
    not, and NVVM's code for softmax differs with it (32 registers against 36). The SASS model's
    occupancy follows the GPU's compile: the recorded H100 launch used 36."""
    from programs import softmax
    x = np.random.default_rng(0).standard_normal((2, 128)).astype(np.float32)
    out = np.zeros_like(x)
    r = gpusim.launch(softmax.softmax, 2, 128, x, out, model="sass", fma=True)
    rec = json.loads((RECORDED / "prog_softmax.json").read_text())["kernel"]["regs_per_thread"]
    assert r.metrics["launch__registers_per_thread"] == r.timing["ptxas"].registers == rec == 36
    from gpusim.kernels import numba_kernel
    launched = ptxas.resources(numba_kernel(softmax.softmax, softmax.KERNELS[0][1], True).module.text, "sm_90")
    assert next(iter(launched.values())).registers != 36      # the line-info PTX alone would give another count
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    # gpusim's default compile does not contract a*b+c (results equal numpy's); occupancy is still the GPU's
    q = gpusim.launch(softmax.softmax, 2, 128, x, out, model="sass")
    assert q.metrics["launch__registers_per_thread"] == 36
