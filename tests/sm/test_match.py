"""match.any.sync / match.all.sync (.b32, .b64; match.all with its predicate d|p), membermask semantics
per the PTX ISA: only the lanes membermask names (and that are active) take part."""
import numpy as np
import pytest
from conftest import run_lanes

FULL = 0xFFFFFFFF


def match_any_ref(vals, named):
    return [sum(1 << j for j in range(32) if (named >> j) & 1 and vals[j] == vals[lane]) for lane in range(32)]


def match_all_ref(vals, named):
    lanes = [j for j in range(32) if (named >> j) & 1]
    same = all(vals[j] == vals[lanes[0]] for j in lanes) if lanes else True
    return ([named] * 32 if same else [0] * 32), [int(same)] * 32


@pytest.mark.parametrize("t", ["b32", "b64"])
@pytest.mark.parametrize("mask", [FULL, 0x0000FFFF, 0xAAAAAAAA, 0x80000001])
def test_match_any_sync_gives_each_lane_the_named_lanes_holding_its_value(t, mask, rng):
    groups = rng.integers(0, 5, 32)
    big = 1 << 40 if t == "b64" else 1 << 20
    vals = [int(g) * big + 7 for g in groups]          # b64: groups differ only above bit 32
    out = run_lanes(f"match.any.sync.{t} %d, %a, {mask:#x};", ins={"a": (t, vals)}, outs={"d": "b32"})
    want = match_any_ref([v & ((1 << (64 if t == 'b64' else 32)) - 1) for v in vals], mask)
    assert out["d"].tolist() == want


@pytest.mark.parametrize("t", ["b32", "b64"])
def test_match_all_sync_sets_mask_and_predicate_only_when_all_named_lanes_agree(t):
    same = [0x1234] * 32
    hi_diff = [0x1234 + ((1 << 33) if lane == 20 and t == "b64" else (1 if lane == 20 else 0)) for lane in range(32)]
    for vals, mask in ((same, FULL), (hi_diff, FULL), (hi_diff, 0x000FFFFF), (hi_diff, 0x00100000)):
        out = run_lanes(f"match.all.sync.{t} %d|%p, %a, {mask:#x};", ins={"a": (t, vals)},
                        outs={"d": "b32", "p": "pred"})
        d, p = match_all_ref(vals, mask)
        inside = [lane for lane in range(32) if (mask >> lane) & 1]     # a lane outside its mask is UB
        assert [int(out["d"][x]) for x in inside] == [d[x] for x in inside]
        assert [int(out["p"][x]) for x in inside] == [p[x] for x in inside]


def test_match_all_sync_without_predicate_and_with_a_register_membermask():
    vals = np.array([lane // 8 for lane in range(32)], np.uint32)
    m = np.array([0xFF << (8 * (lane // 8)) for lane in range(32)], np.uint32)   # each lane names its octet
    out = run_lanes("match.all.sync.b32 %d, %a, %m;", ins={"a": ("b32", vals), "m": ("b32", m)}, outs={"d": "b32"})
    assert out["d"].tolist() == m.tolist()


def test_match_in_a_divergent_branch_sees_only_the_active_lanes():
    """Lanes 0-11 take the branch; membermask 0xFFF names exactly them."""
    body = """
    mov.b32 %d, 0xdead;
    mov.b32 %e, 0xdead;
    setp.lt.u32 %q, %z_tid, 12;
    @!%q bra SKIP;
    and.b32 %t, %z_tid, 3;
    match.any.sync.b32 %d, %t, 0xfff;
    match.all.sync.b32 %e|%p, %t, 0xfff;
SKIP:
    """
    out = run_lanes(body, outs={"d": "b32", "e": "b32"}, regs={"q": "pred", "p": "pred", "t": "u32"})
    want = [0x111 << (lane & 3) if lane < 12 else 0xDEAD for lane in range(32)]
    assert out["d"].tolist() == want
    assert out["e"].tolist() == [0 if lane < 12 else 0xDEAD for lane in range(32)]


def test_numba_match_any_and_match_all_run_unchanged():
    from numba import cuda

    import gpusim

    def k(x, out_any, out_all, out_pred):
        i = cuda.grid(1)
        out_any[i] = cuda.match_any_sync(0xFFFFFFFF, x[i])
        m, p = cuda.match_all_sync(0xFFFFFFFF, x[i] // 100)
        out_all[i] = m
        out_pred[i] = p

    x = (np.arange(64) % 5).astype(np.int64)
    oa, ob, op = np.zeros(64, np.uint32), np.zeros(64, np.uint32), np.zeros(64, np.int32)
    for mode in ("functional", "timing"):
        gpusim.launch(k, 2, 32, x, oa, ob, op, mode=mode, gpu="tiny")
        for w in range(2):
            vals = x[32 * w:32 * w + 32].tolist()
            assert oa[32 * w:32 * w + 32].tolist() == match_any_ref(vals, FULL)
        assert ob.tolist() == [FULL] * 64 and op.tolist() == [1] * 64


def test_match_any_has_no_predicate_destination():
    from gpusim.errors import PTXSyntaxError
    with pytest.raises(PTXSyntaxError, match="operand 'd' of match cannot be a pair"):
        run_lanes("match.any.sync.b32 %d|%p, %a, -1;", ins={"a": ("b32", 1)}, outs={"d": "b32", "p": "pred"})


def test_match_issues_to_the_misc_pipe_like_the_other_warp_wide_instructions():
    import gpusim
    from gpusim.isa import opcodes as oc
    from gpusim.isa.coverage import example_kernel
    d = gpusim.load_ptx(example_kernel("match.any.sync.b32 %u, %a, -1; shfl.sync.idx.b32 %u, %a, 0, 31, -1;",
                                       "b32"))["k"].decoded
    ops = [oc.OPS[o] for o in d.ins[:, oc.F_OP]]
    assert d.ins[ops.index("match"), oc.F_CLASS] == d.ins[ops.index("shfl"), oc.F_CLASS] == oc.C_MISC
