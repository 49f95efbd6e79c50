"""Conversions between integers and FP32 under the SASS model: an F2I (or I2F) takes the xu pipe, an I2FP the
ALU, and a loop of them that ptxas unrolled counts one per execution.

The conv_rate probe (validation/probes/conv_rate.py, H200 data validation/data/h100/probe_conv_rate_h200.json):
each thread runs K independent chains of 256 `cvt.rzi.s32.f32` (F2I.TRUNC.NTZ, after two LOP3s) or
`cvt.rn.f32.s32` (I2FP.F32.S32, after one LOP3), 2 CTAs of 256 threads an SM. ncu counts one xu instruction per
F2I and none per I2FP (two ALU instructions a step), the F2I chains issue one xu instruction per ~8.8 cycles
of a sub-partition, and a lone chain waits for its F2I's result on the short scoreboard (5.7 cycles per
instruction), as for a MUFU's. Before, gpusim gave F2I and I2FP no pipe at all (conv_f2i_8 -42%, conv_i2f_4 -38%), and
counted four copies of each line of the unrolled loop (conv_i2f_1 +92%). Here one SM runs the probe's two CTAs
(every SM of the probe runs the same two)."""

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.kernels import load_ptx
from gpusim.presets import get_preset
from gpusim.spec import override

ROOT = Path(__file__).resolve().parents[2]
PTX = ROOT / "tests" / "timing" / "ptx" / "conv_rate.ptx"
HW = {r["kernel"]: r for r in json.loads((ROOT / "validation" / "data" / "h100" / "probe_conv_rate_h200.json")
                                         .read_text())["results"]}
REASON = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"


def one_sm(kernel):
    spec = override(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1})
    return gpusim.launch(load_ptx(PTX)[kernel], 2, 256, np.zeros(512, np.uint32), np.uint32(977), gpu=spec,
                         mode="timing", model="sass")


@pytest.mark.parametrize("kernel", ["conv_f2i_2", "conv_f2i_8", "conv_i2f_1", "conv_i2f_4"])
def test_conversion_chains_take_the_h200s_cycles(kernel):
    r = one_sm(kernel)
    ref = HW[kernel]["gpc__cycles_elapsed.max"]
    assert abs(r.cycles / ref - 1) < 0.16, (kernel, r.cycles, ref)


def test_a_warp_held_for_the_xu_pipe_by_its_f2i_samples_mio_throttle():
    m = one_sm("conv_f2i_8").metrics
    assert HW["conv_f2i_8"][REASON.format("mio_throttle")] > 3 * HW["conv_f2i_8"][REASON.format("math_pipe_throttle")]
    assert m[REASON.format("mio_throttle")] > 2.0
    assert m[REASON.format("math_pipe_throttle")] < 0.5


def test_an_f2is_result_is_waited_for_on_the_short_scoreboard():
    # two chains a thread: the H200 samples short_scoreboard 1.96, mio_throttle 2.32 cycles per instruction
    m = one_sm("conv_f2i_2").metrics
    assert m[REASON.format("short_scoreboard")] > 1.0
    assert m[REASON.format("mio_throttle")] > 1.0


def test_population_counts_take_the_xu_pipe_at_its_rate_with_a_scoreboarded_result():
    # conv_popc_8: ncu counts one xu instruction a POPC, one per ~8.5 cycles of a sub-partition; conv_popc_1: a
    # lone chain waits 8.9 cycles per instruction on the short scoreboard
    r = one_sm("conv_popc_8")
    assert abs(r.cycles / HW["conv_popc_8"]["gpc__cycles_elapsed.max"] - 1) < 0.10
    assert r.metrics[REASON.format("mio_throttle")] > 3.0
    assert one_sm("conv_popc_1").metrics[REASON.format("short_scoreboard")] > 5.0


def test_an_i2fp_chain_is_held_by_the_alu_pipe():
    m = one_sm("conv_i2f_4").metrics
    assert m[REASON.format("math_pipe_throttle")] > 1.0          # the H200: 1.91
    assert m[REASON.format("mio_throttle")] < 0.1


def test_a_loop_of_conversions_that_ptxas_unrolled_counts_one_conversion_per_execution():
    text = PTX.read_text()
    m = sassmap.weights(text, "sm_90")
    ptx = text.splitlines()
    f2i = [i + 1 for i, s in enumerate(ptx) if s.strip().startswith("cvt.rzi.s32.f32")]
    i2f = [i + 1 for i, s in enumerate(ptx) if s.strip().startswith("cvt.rn.f32.s32")]
    assert f2i and i2f
    for ln in f2i:      # one F2I, on the xu pipe
        assert m.weight[ln] == pytest.approx(1.0), ln
        assert m.pipes[ln] == pytest.approx((0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)), ln
    for ln in i2f:      # one I2FP, on the ALU
        assert m.weight[ln] == pytest.approx(1.0), ln
        assert m.pipes[ln] == pytest.approx((1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)), ln
