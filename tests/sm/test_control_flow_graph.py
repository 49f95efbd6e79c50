"""Reconvergence when the compiler places the kernel's `ret` in the middle of the function (as NVVM
does for a shared early-return block), and the post-dominator analysis on graphs without an exit."""
import numpy as np
from conftest import run_ptx

from gpusim.isa.cfg import reconvergence_points

MID_RET = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 flag)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [flag];
    mov.u32 %r1, %tid.x;
    ld.global.u32 %r2, [%rd2];
    rem.u32 %r3, %r1, 3;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra ELSE;
    add.u32 %r4, %r1, 7;
    bra JOIN;
RET:
    ret;
ELSE:
    mul.lo.u32 %r4, %r1, 2;
JOIN:
    setp.ne.u32 %p2, %r2, 0;
    @%p2 bra RET;
    shfl.sync.down.b32 %r5, %r4, 1, 31, -1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r5;
    bra RET;
}
"""


def test_shuffle_after_if_else_sees_every_lane_when_ret_sits_mid_function():
    out = np.zeros(32, np.uint32)
    run_ptx(MID_RET, "k", 1, 32, out, np.zeros(1, np.uint32))
    lane = np.arange(32, dtype=np.uint32)
    v = np.where(lane % 3 == 0, lane * 2, lane + 7).astype(np.uint32)
    assert out.tolist() == np.concatenate([v[1:], v[31:]]).tolist()


def test_branch_to_a_mid_function_ret_exits_the_taken_lanes():
    out = np.full(32, 5, np.uint32)
    run_ptx(MID_RET, "k", 1, 32, out, np.ones(1, np.uint32))
    assert (out == 5).all()


def test_if_else_reconverges_at_the_join_even_when_no_path_reaches_an_exit():
    # 0: @p bra 3 | 1: a | 2: bra 4 | 3: b | 4: join | 5: bra 0 (an infinite loop: no exit at all)
    is_branch = [True, False, True, False, False, True]
    targets = [3, 0, 4, 0, 0, 0]
    term = [None, None, "jump", None, None, "jump"]
    assert reconvergence_points(6, is_branch, targets, term)[0] == 4
