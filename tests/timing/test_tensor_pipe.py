"""The tensor pipe (pipelines.py, class "tensor"): mma.sync's issue interval and latency come from the
preset's per-type rates, a dependent chain pays the latency each step, independent mmas pay only the
interval, and the busy cycles are counted as ncu's sm__pipe_tensor_op_{hmma,imma,dmma}_cycles_active."""
import numpy as np
import pytest
from conftest import run_lanes

import gpusim

N = 6
DECLS = "\t.reg .u64 %t0, %t1;\n\t.reg .b32 %x;"
F16 = ("m16n8k16", "f16", "f32", "{%a0, %a1, %a2, %a3}, {%b0, %b1}")
S8 = ("m16n8k32", "s8", "s32", "{%a0, %a1, %a2, %a3}, {%b0, %b1}")
F64 = ("m8n8k4", "f64", "f64", "{%e0}, {%e1}")
E4M3 = ("m16n8k32", "e4m3", "f32", "{%a0, %a1, %a2, %a3}, {%b0, %b1}")


def mma_burst(case, dependent: bool, gpu="tiny"):
    shape, ty, acc, ab = case
    nd = 2 if ty == "f64" else 4
    regs = {**{f"a{i}": "b32" for i in range(4)}, "b0": "b32", "b1": "b32", "e0": "f64", "e1": "f64"}
    lines = ["mov.u64 %t0, %clock64;"]
    for j in range(N):
        src = j - 1 if dependent and j else N      # a chain feeds each D into the next C
        rt = "f64" if ty == "f64" else ("s32" if acc == "s32" else "f32")
        for r in range(nd):
            regs[f"c{j}_{r}"] = rt
            regs[f"c{N}_{r}"] = rt
        d = "{" + ", ".join(f"%c{j}_{r}" for r in range(nd)) + "}"
        c = "{" + ", ".join(f"%c{src}_{r}" for r in range(nd)) + "}"
        lines.append(f"mma.sync.aligned.{shape}.row.col.{acc}.{ty}.{ty}.{acc} {d}, {ab}, {c};")
    last = f"%c{N - 1}_0"
    lines += [f"mov.b{64 if ty == 'f64' else 32} {'%t1' if ty == 'f64' else '%x'}, {last};",
              "mov.u64 %t1, %clock64;", "sub.s64 %el, %t1, %t0;"]
    out = run_lanes("\n    ".join(lines), outs={"el": "s64"}, regs=regs, decls=DECLS, mode="timing", gpu=gpu)
    return int(out["el"][0]), out["_result"].metrics


@pytest.mark.parametrize("case, family", [(F16, "hmma"), (S8, "imma"), (F64, "dmma")], ids=["f16", "s8", "f64"])
def test_mma_chain_pays_latency_and_independent_mmas_pay_the_interval(case, family):
    spec = gpusim.get_preset("tiny")
    lat, ii, _ = spec.pipes.mma_timing(case[0], case[1], spec.scheduler.subpartitions)
    chained, m = mma_burst(case, dependent=True)
    independent, _ = mma_burst(case, dependent=False)
    assert chained >= N * lat
    assert (N - 1) * ii <= independent < N * lat
    assert m[f"sm__pipe_tensor_op_{family}_cycles_active.sum"] == N * ii
    assert m[f"sm__inst_executed_pipe_tensor_op_{family}.sum"] == N


def test_mma_rates_follow_the_preset():
    a100, h100 = gpusim.get_preset("a100"), gpusim.get_preset("h100")
    sp = h100.scheduler.subpartitions
    assert a100.pipes.mma_timing("m16n8k16", "f16", sp)[1] > h100.pipes.mma_timing("m16n8k16", "f16", sp)[1]
    slow = gpusim.get_preset("tiny").with_(**{"pipes.tensor_f16": 512})
    fast, _ = mma_burst(F16, dependent=False)
    slowed, m = mma_burst(F16, dependent=False, gpu=slow)
    ii = slow.pipes.mma_timing("m16n8k16", "f16", sp)[1]
    assert slowed > fast and slowed >= (N - 1) * ii
    assert m["sm__pipe_tensor_op_hmma_cycles_active.sum"] == N * ii
    assert np.isfinite(slowed)


def test_a_predicated_mma_with_ten_source_registers_is_scoreboarded_in_timing_mode():
    # a guard plus mma.m16n8k16.f32's 10 source registers: 11 register reads for the scoreboard
    body = ("setp.ne.u32 %q, %z_tid, 99;\n"
            "    @%q mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, "
            "{%b0, %b1}, {%c0, %c1, %c2, %c3};")
    ins = {**{f"a{i}": ("b32", 0x3C003C00) for i in range(4)}, **{f"b{i}": ("b32", 0x3C003C00) for i in range(2)},
           **{f"c{i}": ("f32", 1.0) for i in range(4)}}
    out = run_lanes(body, ins=ins, outs={f"d{i}": "f32" for i in range(4)}, regs={"q": "pred"})
    assert all(np.all(out[f"d{i}"] == 17.0) for i in range(4))        # 16 products of 1 * 1, plus c = 1


def test_an_fp8_mma_holds_the_dispatch_for_the_instructions_ptxas_emulates_it_with():
    # sm_90 has no fp8 mma.sync: each costs fp8_dispatch issue slots, so independent ones cannot come faster
    spec = gpusim.get_preset("tiny")
    fp8, _ = mma_burst(E4M3, dependent=False)
    f16, _ = mma_burst(F16, dependent=False)
    assert fp8 >= (N - 1) * spec.pipes.fp8_dispatch > f16


def test_f64_and_fp8_chains_pay_their_own_latency():
    spec = gpusim.get_preset("tiny")
    sp = spec.scheduler.subpartitions
    for case in (F64, E4M3):
        lat, _, _ = spec.pipes.mma_timing(case[0], case[1], sp)
        chained, _ = mma_burst(case, dependent=True)
        assert chained >= N * lat
    assert spec.pipes.mma_timing("m8n8k4", "f64", sp)[0] == spec.pipes.lat_tensor_f64 + 16
