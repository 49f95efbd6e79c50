"""mbarrier: phases, arrival counts, transaction counts, arrive_drop, waits by state and by parity,
cp.async.mbarrier.arrive, and a warp spinning on try_wait while another warp arrives (both modes)."""
from conftest import run_lanes

BAR = ".shared .align 8 .b64 bar;\n\t.reg .b64 %st;\n\t.reg .pred %lane0;"
INIT = """setp.eq.u32 %lane0, %z_tid, 0;
    @%lane0 mbarrier.init.shared::cta.b64 [bar], {n};
    fence.mbarrier_init.release.cluster;
    bar.sync 0;
"""


def test_phase_zero_completes_after_every_expected_arrival_and_parity_one_does_not():
    body = INIT.format(n=32) + """
    mbarrier.test_wait.parity.shared::cta.b64 %before, [bar], 0;
    mbarrier.arrive.release.cta.shared::cta.b64 %st, [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %p0, [bar], 0;
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 1;
    fence.proxy.async.shared::cta;
"""
    out = run_lanes(body, outs={"before": "pred", "p0": "pred", "p1": "pred"}, decls=BAR)
    assert out["before"].tolist() == [0] * 32
    assert out["p0"].tolist() == [1] * 32          # phase 0 complete: current parity is 1
    assert out["p1"].tolist() == [0] * 32          # phase 1 is the current, incomplete phase


def test_arrive_returns_a_state_whose_pending_count_falls_in_lane_order():
    body = INIT.format(n=40) + """
    mbarrier.arrive.shared.b64 %st, [bar];
    mbarrier.pending_count.b64 %pend, %st;
    mbarrier.test_wait.shared.b64 %early, [bar], %st;
    @%lane0 mbarrier.arrive.shared.b64 _, [bar], 8;
    mbarrier.test_wait.shared.b64 %late, [bar], %st;
"""
    out = run_lanes(body, outs={"pend": "u32", "early": "pred", "late": "pred"}, decls=BAR)
    assert out["pend"].tolist() == [39 - lane for lane in range(32)]
    assert out["early"].tolist() == [0] * 32       # 8 arrivals missing
    assert out["late"].tolist() == [1] * 32        # the count-8 arrival completed the phase


def test_phase_waits_for_the_transaction_count_to_reach_zero():
    body = INIT.format(n=1) + """
    @%lane0 mbarrier.arrive.expect_tx.shared::cta.b64 %st, [bar], 64;
    mbarrier.test_wait.parity.shared::cta.b64 %a, [bar], 0;
    @%lane0 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 32;
    mbarrier.test_wait.parity.shared::cta.b64 %b, [bar], 0;
    @%lane0 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 48;
    @%lane0 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 16;
    mbarrier.test_wait.parity.shared::cta.b64 %c, [bar], 0;
    @%lane0 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 16;
    @%lane0 mbarrier.arrive.shared::cta.b64 _, [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %d, [bar], 1;
    @%lane0 mbarrier.complete_tx.shared::cta.b64 [bar], 16;
    mbarrier.test_wait.parity.shared::cta.b64 %e, [bar], 1;
"""
    out = run_lanes(body, outs={"a": "pred", "b": "pred", "c": "pred", "d": "pred", "e": "pred"}, decls=BAR)
    assert out["a"].tolist() == [0] * 32           # arrivals done, 64 bytes pending
    assert out["b"].tolist() == [0] * 32           # 32 pending
    assert out["c"].tolist() == [1] * 32           # tx went to -16 then back to 0: phase 0 completes
    assert out["d"].tolist() == [0] * 32           # phase 1: arrived, 16 bytes pending
    assert out["e"].tolist() == [1] * 32


def test_arrive_drop_lowers_the_expected_count_of_later_phases():
    body = INIT.format(n=2) + """
    @%lane0 mbarrier.arrive_drop.shared::cta.b64 _, [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %a, [bar], 0;
    @%lane0 mbarrier.arrive.shared::cta.b64 _, [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %b, [bar], 0;
    @%lane0 mbarrier.arrive.shared::cta.b64 _, [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %c, [bar], 1;
"""
    out = run_lanes(body, outs={"a": "pred", "b": "pred", "c": "pred"}, decls=BAR)
    assert (out["a"].tolist(), out["b"].tolist(), out["c"].tolist()) == ([0] * 32, [1] * 32, [1] * 32)


def test_cp_async_mbarrier_arrive_counts_only_with_noinc():
    body = INIT.format(n=32) + """
    cp.async.mbarrier.arrive.shared::cta.b64 [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %a, [bar], 0;
    cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %b, [bar], 0;
"""
    out = run_lanes(body, outs={"a": "pred", "b": "pred"}, decls=BAR)
    assert out["a"].tolist() == [0] * 32           # +1 pending, then the arrival: no net change
    assert out["b"].tolist() == [1] * 32


def test_warp_spinning_on_try_wait_sees_the_other_warps_arrivals_without_deadlock():
    """Warps 1..3 spin on phase 0 until warp 0 arrives after a delay loop; the wait is charged to
    the `barrier` stall reason in timing mode."""
    body = """
    setp.eq.u32 %lane0, %z_tid, 0;
    @%lane0 mbarrier.init.shared::cta.b64 [bar], 32;
    bar.sync 0;
    setp.lt.u32 %w0, %z_tid, 32;
    @!%w0 bra WAIT;
    mov.u32 %i, 0;
DELAY:
    add.u32 %i, %i, 1;
    setp.lt.u32 %more, %i, 200;
    @%more bra DELAY;
    mbarrier.arrive.shared::cta.b64 %st, [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %done, [bar], 0;
    @!%done bra WAIT;
    mbarrier.pending_count.b64 %n, %st;
"""
    out = run_lanes(body, outs={"done": "pred"}, regs={"i": "u32", "more": "pred", "w0": "pred", "n": "u32"},
                    decls=BAR, block=128)
    assert out["done"].tolist() == [1] * 128
    m = out["_result"].metrics
    assert m["gpusim__mbarrier_waits_incomplete.sum"] > 0
    assert m["smsp__average_warp_latency_issue_stalled_barrier.ratio"] > 0
