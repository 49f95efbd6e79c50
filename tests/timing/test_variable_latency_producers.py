"""Which unit a warp waits for after each kind of producer, as the SM runs them: special-register
reads (S2R) and shuffles (SHFL) are MIO operations with a scoreboard, so their consumers wait on
short_scoreboard, not on the fixed-latency `wait`; under the SASS model ptxas's stall cycles, not the
pipes' class latencies, hold a warp for fixed-latency results."""

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.presets import H100
from gpusim.report_lines import per_line_counters

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")


def _run(body: str, model: str = "ptx", **spec):
    text = HEAD + (".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .f32 %f<40>;\n"
                   + body + "\nret;\n}\n")
    k = gpusim.load_ptx(text)["k"]
    out = np.zeros(64, np.uint32)
    r = gpusim.launch(k, 1, 32, out, gpu=H100.with_(**spec) if spec else H100, mode="timing", model=model)
    return r, out


def _stalls_at(r, text: str) -> dict:
    return next(row["stalls"] for row in per_line_counters(r) if row["text"].startswith(text))


TID = """
ld.param.u64 %rd1, [out];
mov.u32 %r1, %tid.x;
add.u32 %r2, %r1, 5;
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r2;
"""


def test_a_special_register_read_is_waited_for_on_the_short_scoreboard():
    r, out = _run(TID)
    assert (out[:32] == np.arange(32) + 5).all()
    s = _stalls_at(r, "add.u32")
    assert s.get("short_scoreboard", 0) >= H100.pipes.lat_s2r - 2 and "wait" not in s   # one warp


def test_a_special_register_read_takes_the_s2r_latency_not_the_mio_one():
    slow, _ = _run(TID, **{"pipes.lat_s2r": 60, "pipes.lat_shfl": 5})
    fast, _ = _run(TID, **{"pipes.lat_s2r": 5, "pipes.lat_shfl": 60})
    assert _stalls_at(slow, "add.u32").get("short_scoreboard", 0) >= 58
    assert _stalls_at(fast, "add.u32").get("short_scoreboard", 0) <= 5
    assert slow.cycles > fast.cycles


def test_a_shuffle_result_is_waited_for_on_the_short_scoreboard():
    r, out = _run("""
ld.param.u64 %rd1, [out];
mov.u32 %r1, %laneid;
shfl.sync.down.b32 %r2, %r1, 1, 31, -1;
add.u32 %r3, %r2, 100;
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r3;
""")
    assert (out[:31] == np.arange(1, 32) + 100).all()
    assert _stalls_at(r, "add.u32").get("short_scoreboard", 0) > 0
    assert "wait" not in _stalls_at(r, "add.u32")


FMA_CHAIN = "ld.param.u64 %rd1, [out];\nmov.f32 %f0, 0f3F800000;\n" + "\n".join(
    f"fma.rn.f32 %f{i + 1}, %f{i}, %f{i}, %f{i};" for i in range(32)) + \
    "\ncvt.rzi.u32.f32 %r1, %f32;\nst.global.u32 [%rd1], %r1;"


@needs_tools
def test_sass_model_waits_ptxas_stall_cycles_instead_of_class_latencies():
    """A dependent FFMA chain: ptxas sets each FFMA's stall cycles to the FMA latency and the warp waits
    just those, about 4 cycles a step, not the class latency on top of them (8). With stall_counts off
    the class latency alone times the chain: the same cycles within a quarter."""
    r1, out1 = _run(FMA_CHAIN, "sass")
    r0, out0 = _run(FMA_CHAIN, "sass", **{"scheduler.stall_counts": 0})
    assert out1[0] == out0[0]
    fma = sum(row["cycles"] for row in per_line_counters(r1) if row["text"].startswith("fma"))
    assert 3 * 32 <= fma <= 6 * 32
    assert abs(r1.cycles - r0.cycles) < 0.25 * r0.cycles


@needs_tools
def test_sass_model_a_parameter_ptxas_folded_costs_its_consumer_nothing():
    """`ld.param` of a scalar ptxas makes a constant-bank operand (c[0x0][...]) of the IADD3 that adds 7: no
    SASS of its own, so the add waits for nothing; the PTX model waits the constant cache's latency."""
    text = HEAD + (".visible .entry k(.param .u64 out, .param .u32 k)\n{\n.reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
                   "ld.param.u64 %rd1, [out];\nld.param.u32 %r5, [k];\nadd.u32 %r2, %r5, 7;\n"
                   "st.global.u32 [%rd1], %r2;\nret;\n}\n")
    k = gpusim.load_ptx(text)["k"]
    waits = {}
    for model in ("ptx", "sass"):
        out = np.zeros(4, np.uint32)
        r = gpusim.launch(k, 1, 32, out, np.uint32(5), gpu=H100, mode="timing", model=model)
        assert out[0] == 12
        waits[model] = _stalls_at(r, "add.u32").get("wait", 0)
    assert waits["sass"] == 0 and waits["ptx"] >= H100.l1.latency - 4
