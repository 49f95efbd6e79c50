"""Warp-level instructions: shfl.sync (all modes, clamps, segments, predicate output), vote.sync,
activemask under divergence, redux.sync, and bar.sync across the warps of a block."""
import numpy as np
import pytest
from conftest import HEADER, run_lanes, run_ptx


def shfl_ref(mode: str, a, b, c):
    """PTX ISA semantics of shfl.sync for a full warp: (d, p) per lane."""
    d, p = [], []
    for lane in range(32):
        bval, cval, seg = int(b[lane]) & 0x1F, int(c[lane]) & 0x1F, (int(c[lane]) >> 8) & 0x1F
        max_lane = (lane & seg) | (cval & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~seg)
            ok = j <= max_lane
        d.append(int(a[j if ok else lane]))
        p.append(int(ok))
    return d, p


# (mode, b, c): c = ((32 - width) << 8) | clamp, as CUDA's __shfl_*_sync builds it
SHFL_CASES = [
    ("up", 1, 0x0000), ("up", 5, 0x0000), ("up", 3, 0x1800), ("up", 0, 0x0000), ("up", 31, 0x0000),
    ("down", 1, 0x001F), ("down", 16, 0x001F), ("down", 2, 0x181F), ("down", 7, 0x1C1F), ("down", 3, 0x0010),
    ("bfly", 1, 0x001F), ("bfly", 16, 0x001F), ("bfly", 31, 0x001F), ("bfly", 4, 0x181F), ("bfly", 8, 0x0007),
    ("idx", 0, 0x001F), ("idx", 13, 0x001F), ("idx", 5, 0x181F), ("idx", 31, 0x0F1F), ("idx", 40, 0x001F),
    ("idx", 20, 0x0010),
]


@pytest.mark.parametrize("mode, b, c", SHFL_CASES, ids=[f"{m}-b{b}-c{c:#06x}" for m, b, c in SHFL_CASES])
def test_shfl_sync_moves_values_per_ptx_semantics_with_predicate(mode, b, c, rng):
    a = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    out = run_lanes(f"shfl.sync.{mode}.b32 %d|%p, %a, {b}, {c}, -1;", ins={"a": ("b32", a)},
                    outs={"d": "b32", "p": "pred"})
    d, p = shfl_ref(mode, a, [b] * 32, [c] * 32)
    assert out["d"].tolist() == d
    assert out["p"].tolist() == p


def test_shfl_sync_idx_with_per_lane_source_register(rng):
    a = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    src = rng.integers(0, 64, 32).astype(np.uint32)
    out = run_lanes("shfl.sync.idx.b32 %d, %a, %s, 31, 0xffffffff;", ins={"a": ("b32", a), "s": ("u32", src)},
                    outs={"d": "b32"})
    assert out["d"].tolist() == [int(a[s & 31]) for s in src]


def test_shfl_sync_down_tree_reduction_sums_the_warp(rng):
    x = rng.integers(-1000, 1000, 32).astype(np.int32)
    body = "".join(f"shfl.sync.down.b32 %t, %a, {o}, 31, -1; add.s32 %a, %a, %t;" for o in (16, 8, 4, 2, 1))
    out = run_lanes(body + " mov.s32 %d, %a;", ins={"a": ("s32", x)}, outs={"d": "s32"}, regs={"t": "s32"})
    assert out["d"][0] == x.sum()


def test_shfl_sync_bfly_f32_all_reduce_gives_max_everywhere(rng):
    x = rng.standard_normal(32).astype(np.float32)
    body = "".join(f"shfl.sync.bfly.b32 %t, %a, {o}, 31, -1; max.f32 %a, %a, %t;" for o in (16, 8, 4, 2, 1))
    out = run_lanes(body + " mov.f32 %d, %a;", ins={"a": ("f32", x)}, outs={"d": "f32"}, regs={"t": "f32"})
    assert (out["d"] == x.max()).all()


# ------------------------------------------------------------------ vote
@pytest.mark.parametrize("pattern", ["all", "none", "even", "one", "top"])
def test_vote_sync_all_any_uni_ballot(pattern):
    lane = np.arange(32)
    p = {"all": lane >= 0, "none": lane < 0, "even": lane % 2 == 0, "one": lane == 7, "top": lane >= 16}[pattern]
    p = p.astype(np.uint32)
    body = ("vote.sync.all.pred %va, %p, -1; vote.sync.any.pred %vy, %p, -1; vote.sync.uni.pred %vu, %p, -1;"
            " vote.sync.ballot.b32 %vb, %p, -1; vote.sync.any.pred %vn, !%p, -1;")
    out = run_lanes(body, ins={"p": ("pred", p)},
                    outs={"va": "pred", "vy": "pred", "vu": "pred", "vb": "b32", "vn": "pred"})
    ballot = sum(1 << i for i in range(32) if p[i])
    assert (out["va"] == int(p.all())).all()
    assert (out["vy"] == int(p.any())).all()
    assert (out["vu"] == int(p.all() or not p.any())).all()
    assert (out["vb"] == ballot).all()
    assert (out["vn"] == int(not p.all())).all()


def test_vote_in_a_divergent_branch_counts_only_active_lanes():
    lane = np.arange(32, dtype=np.uint32)
    body = """
    mov.b32 %vb, 0xdead;
    mov.u32 %am, 0;
    setp.lt.u32 %q, %z_tid, 12;
    @!%q bra SKIP;
    and.b32 %t, %z_tid, 1;
    setp.eq.u32 %p, %t, 0;
    vote.sync.ballot.b32 %vb, %p, 0xfff;
    vote.sync.all.pred %va, %q, 0xfff;
    activemask.b32 %am;
SKIP:
    """
    out = run_lanes(body, outs={"vb": "b32", "am": "b32", "va": "pred"},
                    regs={"q": "pred", "p": "pred", "t": "u32"})
    inside = lane < 12
    assert (out["vb"][inside] == 0x555).all() and (out["vb"][~inside] == 0xDEAD).all()
    assert (out["am"][inside] == 0xFFF).all() and (out["am"][~inside] == 0).all()
    assert (out["va"][inside] == 1).all()


def test_vote_and_redux_combine_only_the_lanes_their_membermask_names():
    """Converged warp, membermask 0x0000FFFF: lanes 16-31 are active but not named."""
    body = """
    setp.ne.u32 %p, %z_tid, 3;
    vote.sync.ballot.b32 %vb, %p, 0x0000ffff;
    vote.sync.all.pred %va, %p, 0x0000fff0;
    vote.sync.any.pred %vy, %q, 0x0000ffff;
    redux.sync.add.u32 %rs, %z_tid, 0x0000ffff;
    """
    out = run_lanes("setp.ge.u32 %q, %z_tid, 16;" + body, outs={"vb": "b32", "va": "pred", "vy": "pred", "rs": "u32"},
                    regs={"p": "pred", "q": "pred"})
    assert (out["vb"] == 0xFFFF ^ (1 << 3)).all()      # lanes 16-31 do not contribute
    assert (out["va"] == 1).all()                      # lane 3 (the only false one) is not named
    assert (out["vy"] == 0).all()                      # q holds only on lanes 16-31
    assert (out["rs"] == sum(range(16))).all()


def test_activemask_is_full_after_reconvergence_and_partial_inside_branches():
    body = """
    activemask.b32 %before;
    mov.u32 %inner, 0;
    and.b32 %t, %z_tid, 3;
    setp.eq.u32 %p, %t, 0;
    @%p bra THEN;
    activemask.b32 %inner;
    bra.uni JOIN;
THEN:
    activemask.b32 %inner;
JOIN:
    activemask.b32 %after;
    """
    out = run_lanes(body, outs={"before": "b32", "inner": "b32", "after": "b32"}, regs={"t": "u32", "p": "pred"})
    every4 = sum(1 << i for i in range(0, 32, 4))
    assert (out["before"] == 0xFFFFFFFF).all() and (out["after"] == 0xFFFFFFFF).all()
    lane = np.arange(32)
    assert (out["inner"][lane % 4 == 0] == every4).all()
    assert (out["inner"][lane % 4 != 0] == (0xFFFFFFFF ^ every4)).all()


def test_activemask_excludes_exited_lanes():
    body = """
    setp.ge.u32 %p, %z_tid, 20;
    @%p exit;
    activemask.b32 %m;
    """
    out = run_lanes(body, outs={"m": "b32"}, regs={"p": "pred"})
    assert (out["m"][:20] == (1 << 20) - 1).all() and (out["m"][20:] == 0).all()


@pytest.mark.parametrize("op, ref", [("add", sum), ("min", min), ("max", max)])
def test_redux_sync_reduces_the_warp(op, ref, rng):
    x = rng.integers(-(2**20), 2**20, 32).astype(np.int32)
    out = run_lanes(f"redux.sync.{op}.s32 %d, %a, -1;", ins={"a": ("s32", x)}, outs={"d": "s32"})
    assert (out["d"] == ref(int(v) for v in x)).all()


def test_redux_sync_bitwise_and_unsigned_min():
    x = np.array([0xF0F0F0F0 | (1 << i) for i in range(32)], np.uint32)
    out = run_lanes("redux.sync.and.b32 %a1, %a, -1; redux.sync.or.b32 %o, %a, -1; redux.sync.xor.b32 %x, %a, -1;"
                    " redux.sync.min.u32 %m, %a, -1;", ins={"a": ("u32", x)},
                    outs={"a1": "u32", "o": "u32", "x": "u32", "m": "u32"})
    acc_x = 0
    for v in x:
        acc_x ^= int(v)
    assert (out["a1"] == 0xF0F0F0F0).all()
    assert (out["o"] == np.bitwise_or.reduce(x)).all() and (out["x"] == acc_x).all()
    assert (out["m"] == x.min()).all()


# ------------------------------------------------------------------ bar.sync across warps
BLOCK_EXCHANGE = HEADER + """
.visible .entry k(.param .u64 out, .param .u32 rounds)
{
    .reg .u32 %r<12>;
    .reg .u64 %rd<4>;
    .reg .pred %p;
    .shared .align 4 .u32 buf[128];
    ld.param.u32 %r9, [rounds];
    mov.u32 %r0, %tid.x;
    mul.lo.u32 %r1, %r0, 4;
    mov.u32 %r2, buf;
    add.u32 %r3, %r2, %r1;              // &buf[tid]
    add.u32 %r4, %r0, 32;
    and.b32 %r4, %r4, 127;              // partner: same lane of the next warp
    mul.lo.u32 %r4, %r4, 4;
    add.u32 %r4, %r2, %r4;              // &buf[(tid + 32) % 128]
    mov.u32 %r5, %r0;                   // value = tid
    mov.u32 %r8, 0;
LOOP:
    st.shared.u32 [%r3], %r5;
    bar.sync 0;
    ld.shared.u32 %r5, [%r4];
    add.u32 %r5, %r5, 1000;
    bar.sync 0;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p, %r8, %r9;
    @%p bra LOOP;
    ld.param.u64 %rd0, [out];
    mul.wide.u32 %rd1, %r0, 4;
    add.s64 %rd0, %rd0, %rd1;
    st.global.u32 [%rd0], %r5;
    ret;
}
"""


@pytest.mark.parametrize("rounds", [1, 3, 4, 7])
def test_bar_sync_lets_four_warps_exchange_values_through_shared_memory(rounds):
    out = np.zeros(128, np.uint32)
    res = run_ptx(BLOCK_EXCHANGE, "k", 1, 128, out, np.uint32(rounds))
    tid = np.arange(128)
    assert out.tolist() == ((tid + 32 * rounds) % 128 + 1000 * rounds).tolist()
    assert res.metrics["gpusim__barriers.sum"] == 2 * rounds * 4


def test_bar_sync_with_thread_count_syncs_a_subset_of_warps():
    # warps 0 and 1 exchange through named barrier 1 (64 threads); warps 2 and 3 through barrier 2
    text = HEADER + """
.visible .entry k(.param .u64 out)
{
    .reg .u32 %r<10>;
    .reg .u64 %rd<4>;
    .reg .pred %p;
    .shared .align 4 .u32 buf[128];
    mov.u32 %r0, %tid.x;
    mov.u32 %r2, buf;
    mul.lo.u32 %r1, %r0, 4;
    add.u32 %r3, %r2, %r1;
    mul.lo.u32 %r5, %r0, 3;
    st.shared.u32 [%r3], %r5;
    xor.b32 %r4, %r0, 32;               // partner warp within the pair
    mul.lo.u32 %r4, %r4, 4;
    add.u32 %r4, %r2, %r4;
    setp.lt.u32 %p, %r0, 64;
    @%p bar.sync 1, 64;
    @!%p bar.sync 2, 64;
    ld.shared.u32 %r6, [%r4];
    ld.param.u64 %rd0, [out];
    mul.wide.u32 %rd1, %r0, 4;
    add.s64 %rd0, %rd0, %rd1;
    st.global.u32 [%rd0], %r6;
    ret;
}
"""
    out = np.zeros(128, np.uint32)
    run_ptx(text, "k", 1, 128, out)
    tid = np.arange(128)
    assert out.tolist() == ((tid ^ 32) * 3).tolist()


def test_bar_red_popc_counts_predicates_across_the_block():
    text = HEADER + """
.visible .entry k(.param .u64 out)
{
    .reg .u32 %r<6>;
    .reg .u64 %rd<4>;
    .reg .pred %p, %q, %s;
    mov.u32 %r0, %tid.x;
    and.b32 %r1, %r0, 3;
    setp.eq.u32 %p, %r1, 0;
    bar.red.popc.u32 %r2, 0, %p;
    bar.red.and.pred %q, 0, %p;
    bar.red.or.pred %s, 0, %p;
    selp.u32 %r3, 1, 0, %q;
    selp.u32 %r4, 2, 0, %s;
    add.u32 %r3, %r3, %r4;
    mul.lo.u32 %r2, %r2, 10;
    add.u32 %r2, %r2, %r3;
    ld.param.u64 %rd0, [out];
    mul.wide.u32 %rd1, %r0, 4;
    add.s64 %rd0, %rd0, %rd1;
    st.global.u32 [%rd0], %r2;
    ret;
}
"""
    out = np.zeros(96, np.uint32)
    run_ptx(text, "k", 1, 96, out)
    assert (out == 24 * 10 + 0 + 2).all()


WARP_SYNC_IN_BRANCH = HEADER + """
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra SKIP;
    bar.warp.sync 65535;                 // lanes 0-15 of warp 0 only: a warp barrier, not the CTA's
SKIP:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
"""


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_bar_warp_sync_by_some_lanes_does_not_wait_for_the_block(mode):
    out = np.zeros(64, np.uint32)
    run_ptx(WARP_SYNC_IN_BRANCH, "k", 1, 64, out, gpu="tiny", mode=mode)
    assert (out == np.arange(64)).all()
