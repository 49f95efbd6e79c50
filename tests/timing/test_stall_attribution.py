"""Stall attribution as Nsight Compute samples it: a warp's wait is split between the reasons that held
it in turn, and a warp waiting for its math pipe is on math_pipe_throttle only while the pipe is busy;
in the cycles the pipe takes another warp's instruction it is not_selected."""

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.isa import opcodes as oc
from gpusim.presets import H100
from gpusim.sm.pipelines import PipelineSpec, accepts_at, busy_cycles, occupy
from gpusim.sm.pipelines import make_state as make_pipes
from gpusim.sm.scheduler import SchedulerSpec, account
from gpusim.sm.scheduler import make_state as make_scheduler
from gpusim.sm.stalls import LONG_SCOREBOARD, MATH_PIPE_THROTTLE, SHORT_SCOREBOARD, STALLS, WAIT
from gpusim.spec import override

INT = oc.C_INT
NEVER = np.int64(1) << 62


def _pipes():
    return make_pipes(PipelineSpec(ii_int=2), 1, 30, 30)


def test_a_pipe_is_busy_only_in_the_cycles_after_each_issue_before_its_interval_ends():
    p = _pipes()
    for now in (10, 12, 14):        # ii_int = 2: each issue keeps the pipe from taking the next cycle
        occupy(p, 0, INT, 0, now)
    assert busy_cycles(p, 0, INT, 0, 10, 16) == 3       # cycles 11, 13, 15
    assert busy_cycles(p, 0, INT, 0, 12, 14) == 1
    assert busy_cycles(p, 0, INT, 0, 16, 40) == 0


def test_the_cycles_a_warp_issues_the_rest_of_its_sass_on_the_pipe_are_not_busy_ones():
    # one PTX instruction that ptxas made 3 ALU instructions: they issue at 10, 12, 14 and the pipe
    # is idle-busy at 11, 13, 15
    p = make_pipes(PipelineSpec(ii_int=2), 1, 30, 30, slots=np.array([[48, 48, 0]]))
    occupy(p, 0, INT, 0, 10)
    assert p.free_at[0, INT] == 16
    assert busy_cycles(p, 0, INT, 0, 10, 16) == 3


def test_a_line_of_one_sass_instruction_occupies_the_pipe_its_sass_runs_on_not_its_ptx_class():
    # mad.lo.s32 (INT class) that ptxas made one IMAD (FMA pipe, 2 cycles); setp.f32 (FP32 class) one
    # FSETP (ALU pipe); add.s32 one IADD3 (ALU pipe)
    p = make_pipes(PipelineSpec(ii_int=2, ii_fp32=1), 1, 30, 30,
                   slots=np.array([[16, 0, 32], [16, 16, 0], [16, 16, 0]]))
    FP32 = oc.C_FP32
    occupy(p, 0, INT, 0, 10)
    assert p.free_at[0, FP32] == 12 and p.free_at[0, INT] == 0
    assert accepts_at(p, 0, INT, 0) == 12          # the next IMAD waits for the FMA pipe
    assert accepts_at(p, 0, INT, 2) == 0           # an IADD3 does not
    occupy(p, 0, FP32, 1, 12)
    assert p.free_at[0, INT] == 14 and p.free_at[0, FP32] == 12
    assert accepts_at(p, 0, INT, 2) == 14


def test_an_imad_keeps_the_fma_pipe_busy_in_the_cycle_after_it_issues():
    # one IMAD (FMA pipe, 2 cycles, one SASS instruction) and one IMAD.WIDE (4 cycles): the pipe issues each in
    # one cycle and is busy, taking nobody, in the rest (the H100's int_imad_throughput: math_pipe_throttle 3.36
    # and not_selected 3.31 cycles per issue-active cycle); a line of an IMAD and an IADD3 issues one FMA-pipe
    # instruction
    FP32 = oc.C_FP32
    p = make_pipes(PipelineSpec(ii_int=2, ii_fp32=1), 1, 30, 30,
                   slots=np.array([[16, 0, 32], [16, 0, 64], [32, 16, 32]]))
    occupy(p, 0, INT, 0, 10)
    assert p.free_at[0, FP32] == 12 and busy_cycles(p, 0, INT, 0, 10, 12) == 1
    occupy(p, 0, INT, 1, 12)
    assert p.free_at[0, FP32] == 16 and busy_cycles(p, 0, INT, 1, 12, 16) == 3
    occupy(p, 0, INT, 2, 16)
    assert p.free_at[0, FP32] == 18 and busy_cycles(p, 0, INT, 2, 16, 18) == 1


def test_waiting_behind_more_busy_stretches_than_remembered_takes_their_busy_share():
    # the pipe takes an instruction every other cycle for 400 cycles: half of any wait was busy, also one
    # longer than the remembered stretches (a warp a priority order puts last waits that long)
    p = _pipes()
    for now in range(0, 400, 2):
        occupy(p, 0, INT, 0, now)
    assert 195 <= busy_cycles(p, 0, INT, 0, 0, 400) <= 205
    assert busy_cycles(p, 0, INT, 0, 380, 400) == 10
    q = _pipes()
    for now in range(0, 400, 4):        # busy one cycle in four
        occupy(q, 0, INT, 0, now)
    assert 95 <= busy_cycles(q, 0, INT, 0, 0, 400) <= 105


def _charged(split_at, split_reason, eligible_at, reason, keep, now=100, since=0, first=(0, WAIT)):
    s = make_scheduler(SchedulerSpec(), 1, 4, 1)
    s.accounted_until[0] = since
    account(s, 0, 0, now, eligible_at, reason, True, split_at, split_reason, keep, first[0], first[1])
    return {STALLS[i]: int(v) for i, v in enumerate(s.stall) if v}


def test_a_wait_for_a_load_then_the_pipe_is_charged_to_each_in_turn():
    got = _charged(split_at=80, split_reason=LONG_SCOREBOARD, eligible_at=90, reason=MATH_PIPE_THROTTLE,
                   keep=4)
    # 0-80 the load, 80-90 the pipe: busy 4 cycles, 6 it took others; 90-100 eligible; 100 issued
    assert got == {"long_scoreboard": 80, "math_pipe_throttle": 4, "not_selected": 16, "selected": 1}


def test_stall_cycles_then_an_operand_then_the_pipe_are_charged_to_each_in_turn():
    # a division's SASS: ptxas's stall cycles hold the warp (wait), then its consumer waits for the xu result
    # (short_scoreboard), then for its pipe; with one remembered stretch the wait was charged as short_scoreboard
    got = _charged(split_at=70, split_reason=SHORT_SCOREBOARD, eligible_at=90, reason=MATH_PIPE_THROTTLE, keep=4,
                   first=(40, WAIT))
    assert got == {"wait": 40, "short_scoreboard": 30, "math_pipe_throttle": 4, "not_selected": 26, "selected": 1}
    # a first stretch that ends before the last issue is not charged again
    assert _charged(70, SHORT_SCOREBOARD, 90, MATH_PIPE_THROTTLE, 4, since=50, first=(40, WAIT)) == {
        "short_scoreboard": 20, "math_pipe_throttle": 4, "not_selected": 26, "selected": 1}


def test_every_cycle_since_the_last_issue_is_charged_exactly_once():
    for split_at, eligible_at, keep, since in [(5, 50, NEVER, 0), (0, 0, 0, 0), (70, 60, 3, 20), (150, 150, 9, 40)]:
        got = _charged(split_at, LONG_SCOREBOARD, eligible_at, MATH_PIPE_THROTTLE, keep, since=since)
        assert sum(got.values()) == 100 - since + 1
        assert got["selected"] == 1


def _alu_ptx():
    head = ".version 8.0\n.target sm_90\n.address_size 64\n"
    body = """
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;
mov.u32 %r1, %tid.x;
mov.u32 %r2, 0;
mov.u32 %r3, 0;
L:
xor.b32 %r1, %r1, 5;
add.u32 %r4, %r1, 3;
xor.b32 %r5, %r4, %r1;
add.u32 %r3, %r3, 1;
setp.lt.u32 %p1, %r3, 64;
@%p1 bra L;
ld.param.u64 %rd1, [out];
mov.u32 %r6, %tid.x;
mul.wide.u32 %rd2, %r6, 4;
add.u64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r5;
ret;
}
"""
    return gpusim.load_ptx(head + body)["k"]


def test_an_int_pipe_bound_kernel_splits_its_pipe_waits_between_busy_and_taken_cycles():
    out = np.zeros(1024, np.uint32)
    r = gpusim.launch(_alu_ptx(), 1, 1024, out, gpu=H100, mode="timing")
    m = r.metrics
    key = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
    mpt, ns = m[key.format("math_pipe_throttle")], m[key.format("not_selected")]
    # 8 warps per sub-partition on the INT pipe (one instruction per 2 cycles): it is busy every other
    # cycle and takes one of the waiting warps in the others
    assert mpt > 1 and ns > 1
    assert 0.4 < mpt / ns < 2.5


def _atom_ptx(use_old: bool):
    head = ".version 8.0\n.target sm_90\n.address_size 64\n"
    body = (".visible .entry k(.param .u64 a)\n{\n.reg .b32 %r<4>; .reg .b64 %rd<2>;\n"
            "ld.param.u64 %rd1, [a];\natom.global.add.u32 %r1, [%rd1], 1;\n"
            + ("add.u32 %r2, %r1, 1;\n" if use_old else "") + "ret;\n}\n")
    return gpusim.load_ptx(head + body)["k"].decoded


def test_an_atom_whose_old_value_is_never_read_holds_no_register_like_the_red_ptxas_makes_of_it():
    from gpusim.sm.scoreboard import register_lists
    _, unused = register_lists(_atom_ptx(False))
    _, used = register_lists(_atom_ptx(True))
    assert (unused[1] < 0).all()            # pc 1: the atom; nothing to wait for
    assert (used[1] >= 0).sum() == 1        # its old value is read: the warp waits for it


_MUL64_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
.reg .b64 %rd<16>;
ld.param.u64 %rd1, [out];
mov.u64 %rd2, %clock64;
mul.lo.s64 %rd3, %rd2, %rd2;
mul.lo.s64 %rd4, %rd2, 77;
mul.lo.s64 %rd5, %rd2, %rd4;
mul.lo.s64 %rd6, %rd3, %rd5;
add.s64 %rd7, %rd6, %rd3;
st.global.u64 [%rd1], %rd7;
ret;
}
"""


@pytest.mark.skipif(sassmap.ptxas.find() is None or sassmap.find_nvdisasm() is None,
                    reason="the SASS model needs ptxas and nvdisasm (the sass extra)")
def test_the_cycles_a_warp_issues_the_rest_of_a_lines_sass_are_selected_not_wait():
    """ptxas makes each 64-bit multiply several IMADs; the warp issues them in consecutive cycles, which ncu
    samples as selected (one per SASS instruction), not as a stall."""
    k = gpusim.load_ptx(_MUL64_PTX)["k"]
    out = np.zeros(1, np.uint64)
    m = {}
    for model in ("ptx", "sass"):
        m[model] = gpusim.launch(k, 1, 32, out, gpu=H100, mode="timing", model=model).metrics
    sel = m["sass"]["smsp__average_warp_latency_issue_stalled_selected.ratio"]
    sass_issued, ptx_issued = m["sass"]["smsp__inst_executed.sum"], m["sass"]["gpusim__ptx_inst_executed.sum"]
    assert sass_issued > ptx_issued + 5
    assert sass_issued <= sel <= sass_issued + 2      # + the lines ptxas folded away (no SASS of their own)
    assert m["ptx"]["smsp__average_warp_latency_issue_stalled_selected.ratio"] == m["ptx"]["smsp__inst_executed.sum"]


_REM_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 d)
{
.reg .b32 %r<8>; .reg .b64 %rd<8>;
ld.param.u64 %rd1, [out];
ld.param.u32 %r1, [d];
mov.u32 %r2, %tid.x;
rem.u32 %r3, %r2, %r1;
cvt.u64.u32 %rd2, %r3;
shl.b64 %rd3, %rd2, 3;
add.s64 %rd4, %rd1, %rd3;
st.global.u64 [%rd4], %rd2;
ret;
}
"""


@pytest.mark.skipif(sassmap.ptxas.find() is None or sassmap.find_nvdisasm() is None,
                    reason="the SASS model needs ptxas and nvdisasm (the sass extra)")
def test_a_divisions_consumer_waits_its_stall_cycles_as_wait_and_its_xu_results_as_short_scoreboard():
    """ptxas's rem.u32 is ~18 SASS instructions with ~80 stall cycles and ~28 cycles of waits on its own xu results
    (I2F, MUFU.RCP, F2I). Its consumer is held first by the stall cycles (wait), then by the result
    (short_scoreboard): the core remembers both stretches before the last (before: the wait went to
    short_scoreboard, 38 / 63 cycles a warp instead of 60 / 36)."""
    from gpusim.sm.stalls import DISPATCH_STALL
    k = gpusim.load_ptx(_REM_PTX)["k"]
    m = sassmap.weights(_REM_PTX, "sm_90")
    rem = next(ln for ln, ops in m.opcodes.items() if "MUFU" in ops)
    spec = override(H100, {"n_sm": 1, "gigathread.gpcs": 1})
    r = gpusim.launch(k, 1, 1024, np.zeros(1024, np.uint64), np.uint32(7), gpu=spec, mode="timing", model="sass")
    pc = int(np.flatnonzero(np.asarray(r.decoded.ptx_lines) == rem)[0]) + 1        # the consumer
    st = np.asarray(r.per_pc["stall"])[pc] / 32                          # cycles a warp
    held = m.stall[rem] - m.weight[rem]       # ptxas's stall cycles past the line's own issue slots
    assert st[WAIT] + st[DISPATCH_STALL] == pytest.approx(held, rel=0.15)
    assert st[SHORT_SCOREBOARD] == pytest.approx(m.xu_chain[rem], rel=0.15)


def _sfu_ptx():
    head = ".version 8.0\n.target sm_90\n.address_size 64\n"
    body = """
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<4>; .reg .f32 %f<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;
mov.u32 %r1, %tid.x;
cvt.rn.f32.u32 %f1, %r1;
mul.f32 %f1, %f1, 0f3A800000;
mov.f32 %f2, %f1;
mov.f32 %f3, %f1;
mov.f32 %f4, %f1;
mov.u32 %r3, 0;
L:
neg.f32 %f1, %f1;
ex2.approx.ftz.f32 %f1, %f1;
neg.f32 %f2, %f2;
ex2.approx.ftz.f32 %f2, %f2;
neg.f32 %f3, %f3;
ex2.approx.ftz.f32 %f3, %f3;
neg.f32 %f4, %f4;
ex2.approx.ftz.f32 %f4, %f4;
add.u32 %r3, %r3, 1;
setp.lt.u32 %p1, %r3, 64;
@%p1 bra L;
add.f32 %f1, %f1, %f2;
add.f32 %f3, %f3, %f4;
add.f32 %f1, %f1, %f3;
ld.param.u64 %rd1, [out];
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.f32 [%rd3], %f1;
ret;
}
"""
    return gpusim.load_ptx(head + body)["k"]


def test_a_warp_held_for_the_busy_mufu_pipe_waits_on_wait_not_math_pipe_throttle():
    # validation/probes/sfu_rate.py: the H100's xu pipe 98.6% busy with independent ex2 chains, its
    # math_pipe_throttle 0.01 cycles per instruction and its wait 2.9
    out = np.zeros(1024, np.float32)
    m = gpusim.launch(_sfu_ptx(), 1, 1024, out, gpu=H100, mode="timing").metrics
    key = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
    assert m[key.format("math_pipe_throttle")] < 0.05
    assert m[key.format("wait")] > 1.0
    # 8 warps x 256 ex2 per sub-partition at one per 8 cycles: the pipe, not the issue slot, sets the time
    assert m["gpc__cycles_elapsed.max"] > 8 * 8 * 256


def _kernel_ptx(body: str) -> str:
    """A kernel k(.param .u64 a) with %rd1 = a, then `body`."""
    return (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
            ".reg .b32 %r<4>; .reg .b64 %rd<2>;\nld.param.u64 %rd1, [a];\n" + body + "ret;\n}\n")


_RED_ONE_ADDRESS = _kernel_ptx("red.global.add.u32 [%rd1], 1;\n" * 4)


def test_warps_stay_on_their_sm_while_the_atomic_unit_they_feed_is_backed_up():
    """Every lane of every warp adds to one word: the unit performs one add after another. With the SMs'
    atomic credits, the warps wait in their SMs until their adds are taken, as the H100's do (ncu: the SMs
    are active nearly the whole kernel); without them every warp sends its adds off and is gone at once."""
    k = gpusim.load_ptx(_RED_ONE_ADDRESS)["k"]
    # (no same-address cost at the SM: the unit alone sets the pace; no latency spread: its instruction fetches
    # from the L2 would start the SMs' warps apart)
    spec = H100.with_(**{"n_sm": 8, "gigathread.gpcs": 2, "lsu.atomic_same_address_cycles": 0, "l2.spread": 0.0,
                         "dram.spread": 0.0})
    active = {}
    for credits in (256, 0):
        m = gpusim.launch(k, 32, 256, np.zeros(1, np.uint32), gpu=spec.with_(**{"lsu.atomic_credits": credits}),
                          mode="timing").metrics
        active[credits] = m["sm__cycles_active.avg"] / m["gpc__cycles_elapsed.max"]
    assert active[256] > 0.7
    assert active[0] < 0.3


def _atomics_ptx(sem: str) -> str:
    return _kernel_ptx(f"atom.global{sem}.add.u32 %r1, [%rd1], 1;\natom.global{sem}.add.u32 %r2, [%rd1], 1;\n")


def test_an_atomic_with_release_semantics_waits_for_the_warps_earlier_atomics_to_be_performed():
    """atom.acq_rel (Triton's histogram): ptxas puts MEMBAR.ALL.GPU before the ATOMG, so the second atomic waits
    until the first is performed and acknowledged (membar); relaxed ones go out back to back."""
    membar = {}
    for sem in ("", ".gpu.acq_rel"):
        k = gpusim.load_ptx(_atomics_ptx(sem))["k"]
        m = gpusim.launch(k, 1, 32, np.zeros(1, np.uint32), gpu=H100, mode="timing").metrics
        membar[sem] = m["smsp__average_warp_latency_issue_stalled_membar.ratio"]
    assert membar[""] == 0
    assert membar[".gpu.acq_rel"] > H100.l2.atomic_latency      # a round trip to the L2 and back
