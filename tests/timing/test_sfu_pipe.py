"""The SFU (xu) pipe under the SASS model: it takes a line's MUFUs, not all of the line's SASS.

The sfu_rate probe (validation/probes/sfu_rate.py, H200 data validation/data/h100/probe_sfu_rate_h200.json): each
thread runs two independent chains of 256 ex2.approx.f32 (as Triton emits it: FSETP, FMUL, MUFU.EX2, FMUL),
ex2.approx.ftz.f32 (one MUFU) or div.full.f32 (a MUFU.RCP among FSETPs and FMULs), 264 CTAs of 256 threads.
Before, gpusim held the xu pipe 8 cycles per SASS instruction of the line (ex2: 32 cycles a MUFU, +310%), and a
loop of special functions alone, which ptxas unrolled 4 times, counted four copies per execution (+222%)."""

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.kernels import load_ptx
from gpusim.presets import get_preset

ROOT = Path(__file__).resolve().parents[2]
PTX = ROOT / "tests" / "timing" / "ptx" / "sfu_rate.ptx"
HW = {r["kernel"]: r for r in json.loads((ROOT / "validation" / "data" / "h100" / "probe_sfu_rate_h200.json")
                                         .read_text())["results"]}


@pytest.mark.parametrize("kernel", ["sfu_ex2_2", "sfu_ex2ftz_2", "sfu_divfull_2"])
def test_special_function_chains_take_the_h200s_cycles(kernel):
    mod = load_ptx(PTX)
    r = gpusim.launch(mod[kernel], 264, 256, np.zeros(264 * 256, np.float32), np.float32(1.0),
                      gpu=get_preset("h100"), mode="timing", model="sass")
    ref = HW[kernel]["gpc__cycles_elapsed.max"]
    assert abs(r.cycles / ref - 1) < 0.10, (kernel, r.cycles, ref)


def test_a_loop_of_special_functions_that_ptxas_unrolled_counts_one_mufu_per_execution():
    text = PTX.read_text()
    m = sassmap.weights(text, "sm_90")
    lines = [i + 1 for i, s in enumerate(text.splitlines()) if s.strip().startswith("ex2.approx.ftz.f32")]
    assert lines
    for ln in lines:
        assert m.weight[ln] == pytest.approx(1.0) and m.pipes[ln][2] == pytest.approx(1.0), (ln, m.weight[ln])


def test_divisions_by_one_value_share_one_mufu_and_only_it_takes_the_sfu_pipe():
    body = "\n".join(f"div.full.f32 %f{5 + i}, %f{1 + i}, %f0;" for i in range(4))
    text = f""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
.reg .f32 %f<16>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [p];
ld.global.f32 %f0, [%rd1];
ld.global.f32 %f1, [%rd1+4];
ld.global.f32 %f2, [%rd1+8];
ld.global.f32 %f3, [%rd1+12];
ld.global.f32 %f4, [%rd1+16];
{body}
st.global.f32 [%rd1], %f5;
st.global.f32 [%rd1+4], %f6;
st.global.f32 [%rd1+8], %f7;
st.global.f32 [%rd1+12], %f8;
ret;
}}
"""
    m = sassmap.weights(text, "sm_90")
    divs = [i + 1 for i, s in enumerate(text.splitlines()) if s.startswith("div.full")]
    mufu = [m.pipes.get(ln, (0, 0, 0))[2] for ln in divs]
    assert sum(mufu) == pytest.approx(1.0), mufu           # one MUFU.RCP of %f0 for the four
