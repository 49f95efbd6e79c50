"""The LSU's queue counts instructions, not cycles of work (`lsu.queue_instructions`): a warp stalls on
lg_throttle only when that many global/local instructions of its SM wait for the LSU to begin them, however
long each one keeps the LSU busy; and a store holds the LSU until the L2 has taken it."""

import numpy as np

import gpusim
from gpusim.presets import H100
from gpusim.report_lines import per_line_counters

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
LOADS = 24


def _gathers():
    """One warp, LOADS independent loads whose 32 lanes are 4 KiB apart (32 lines each), then their sum."""
    loads = "".join(f"ld.global.u32 %r{10 + j}, [%rd3+{j * 4}];" for j in range(LOADS))
    adds = "".join(f"add.u32 %r2, %r2, %r{10 + j};" for j in range(LOADS))
    return gpusim.load_ptx(HEAD + f""".visible .entry k(.param .u64 x, .param .u64 out) {{
 .reg .b32 %r<{10 + LOADS}>; .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [x]; cvta.to.global.u64 %rd1, %rd1; ld.param.u64 %rd4, [out]; cvta.to.global.u64 %rd4, %rd4;
 mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4096; add.s64 %rd3, %rd1, %rd2; mov.u32 %r2, 0;
 {loads} {adds}
 mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd4, %rd5; st.global.u32 [%rd6], %r2; ret; }}""")["k"]


def _lg_throttle(r) -> int:
    return sum(row["stalls"].get("lg_throttle", 0) for row in per_line_counters(r))


def _run(**lsu):
    x = np.arange(32 * 1024 + LOADS, dtype=np.uint32)
    out = np.zeros(32, np.uint32)
    r = gpusim.launch(_gathers(), 1, 32, x, out, gpu=H100.with_(**{f"lsu.{k}": v for k, v in lsu.items()}),
                      mode="timing")
    want = np.array([x[1024 * t:1024 * t + LOADS].sum(dtype=np.uint32) for t in range(32)], np.uint32)
    assert (out == want).all()
    return r


def test_fewer_instructions_than_the_queue_holds_never_throttle_however_long_the_lsu_takes():
    assert H100.lsu.queue_instructions >= LOADS
    assert _lg_throttle(_run()) == 0


def test_the_same_loads_throttle_once_the_queue_is_full():
    assert _lg_throttle(_run(queue_instructions=LOADS // 4)) > 0


def test_stores_the_l2_slices_cannot_take_fill_the_queue_and_warps_wait_there_not_at_exit():
    # 8 SMs x 32 warps, each store 32 partial sectors in 8 lines, all warps on the same lines: the slices
    # take them slower than the LSU sends them. A store keeps the LSU until its slice has taken it, so the
    # queue fills and warps wait on lg_throttle. (Were the LSU free once it had sent a store, warps would run
    # ahead and wait for their stores at exit, on drain: 35 and 252 cycles per instruction with the 64-cycle
    # queue of work gpusim had before.)
    k = gpusim.load_ptx(HEAD + """.visible .entry k(.param .u64 out) {
 .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p;
 ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %laneid; mul.wide.u32 %rd2, %r1, 32; add.s64 %rd3, %rd1, %rd2; mov.u32 %r5, 0;
LOOP: st.global.u32 [%rd3], %r5; add.u32 %r5, %r5, 1; setp.lt.u32 %p, %r5, 64; @%p bra LOOP;
 ret; }""")["k"]
    key = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
    out = np.zeros(256, np.uint32)
    m = gpusim.launch(k, 8, 1024, out, gpu=H100, mode="timing").metrics
    assert (out[::8] == 63).all()
    assert m[key.format("lg_throttle")] > 2 * m[key.format("drain")]


def _s2r_behind(kind: str = "st", **lsu):
    """One warp: STORES scattered stores (or loads), 32 lines each, then a special-register read and its
    consumer: the short_scoreboard cycles of that consumer."""
    if kind == "st":
        ops = "".join(f"st.global.u32 [%rd3+{j * 4}], %r1;" for j in range(STORES))
    else:
        ops = "".join(f"ld.global.u32 %r{4 + j % 4}, [%rd3+{j * 4}];" for j in range(STORES))
    k = gpusim.load_ptx(HEAD + """.visible .entry k(.param .u64 out) {
 .reg .b32 %r<8>; .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4096; add.s64 %rd3, %rd1, %rd2;
 """ + ops + """
 mov.u32 %r2, %tid.y;
 add.u32 %r3, %r2, 7;
 st.global.u32 [%rd1], %r3; ret; }""")["k"]
    out = np.zeros(32 * 1024 + STORES, np.uint32)
    r = gpusim.launch(k, 1, 32, out, gpu=H100.with_(**{f"lsu.{n}": v for n, v in lsu.items()}), mode="timing",
                      model="ptx")
    assert out[0] == 7 and (kind != "st" or (out[1024:1024 + STORES] == 1).all())
    return next(row["stalls"].get("short_scoreboard", 0) for row in per_line_counters(r)
                if row["text"].startswith("add.u32 %r3"))


STORES = 64


def test_a_special_register_read_behind_a_backlog_of_stores_waits_for_them_to_enter_the_l1_queue():
    # the sub-partition's MIO queue is in order: the S2R leaves it only once the stores queued before it
    # are in the L1's queue of mio_lg_queue instructions, i.e. once the LSU began all but that many of them
    assert STORES > H100.lsu.mio_lg_queue > 0
    behind = _s2r_behind()
    passing = _s2r_behind(mio_lg_queue=0)
    assert passing <= H100.pipes.lat_s2r
    assert behind > 10 * passing
    # a deeper L1 queue takes more of them in: the read waits for fewer
    assert _s2r_behind(mio_lg_queue=STORES - 4) < behind / 4


def test_loads_do_not_hold_a_special_register_read_in_the_mio_queue():
    # a load's data does not go through the MIO: the H100's load-streaming kernels show almost no
    # short_scoreboard (prog_vecadd 0.8, tri_vecadd 0.4 cycles per instruction)
    assert _s2r_behind("ld") <= H100.pipes.lat_s2r
