"""Atomics and reductions (atom, red) on global and shared memory: every operation and type, lanes
on one address, and the old values each lane sees."""
import numpy as np
import pytest
from conftest import HEADER, run_lanes, run_ptx
from test_isa_memory import R64, SHARED, addr


# ------------------------------------------------------------------ atomics
def _atom_one_address(op_text, t, init, vals, dtype):
    """All 32 lanes apply op_text to element 0 of `cell`; returns (final cell, per-lane old values)."""
    cell = np.array([init, 0], dtype)
    body = f"ld.param.u64 %rd0, [arr_cell]; {op_text.format(dst='%old', addr='[%rd0]', b='%b')}"
    out = run_lanes(body, ins={"b": (t, np.asarray(vals, dtype))}, outs={"old": t}, regs=R64,
                    arrays={"cell": cell})
    return out["cell"][0], out["old"]


def test_atom_add_u32_with_32_lanes_on_one_address_gives_exact_total():
    vals = np.arange(1, 33, dtype=np.uint32) * 1000
    final, old = _atom_one_address("atom.global.add.u32 {dst}, {addr}, {b};", "u32", 7, vals, np.uint32)
    assert final == 7 + vals.sum()
    # each lane saw the running total before its own add: the olds are distinct partial sums
    olds = sorted(int(o) for o in old)
    assert olds[0] == 7 and len(set(olds)) == 32
    assert sorted(int(o) + int(v) for o, v in zip(old, vals))[-1] == final


def test_atom_add_u32_wraps_around():
    vals = np.full(32, 0x10000000, np.uint32)
    final, _ = _atom_one_address("atom.global.add.u32 {dst}, {addr}, {b};", "u32", 5, vals, np.uint32)
    assert final == (5 + 32 * 0x10000000) % 2**32


def test_atom_add_u64_and_f32_totals():
    vals = np.full(32, 2**40 + 3, np.uint64)
    final, old = _atom_one_address("atom.global.add.u64 {dst}, {addr}, {b};", "u64", 2**62, vals, np.uint64)
    assert final == 2**62 + 32 * (2**40 + 3)
    fv = np.arange(32, dtype=np.float32) * 0.5                # exact sums in any order
    final, old = _atom_one_address("atom.global.add.f32 {dst}, {addr}, {b};", "f32", 1.0, fv, np.float32)
    assert final == 1.0 + fv.sum()
    assert sorted(old.tolist())[0] == 1.0


def test_atom_add_s32_with_negative_operands():
    sv = (np.arange(32, dtype=np.int32) - 20) * 3
    final, old = _atom_one_address("atom.global.add.s32 {dst}, {addr}, {b};", "s32", -5, sv, np.int32)
    assert final == -5 + sv.sum() and min(old.tolist()) <= -5


def test_atom_min_max_signed_and_unsigned():
    sv = (np.arange(32, dtype=np.int32) - 20) * 3              # -60 .. 33
    final, _ = _atom_one_address("atom.global.min.s32 {dst}, {addr}, {b};", "s32", 0, sv, np.int32)
    assert final == -60
    final, _ = _atom_one_address("atom.global.max.s32 {dst}, {addr}, {b};", "s32", 0, sv, np.int32)
    assert final == 33
    uv = sv.view(np.uint32)                                    # negatives are huge as u32
    final, _ = _atom_one_address("atom.global.max.u32 {dst}, {addr}, {b};", "u32", 0, uv, np.uint32)
    assert final == np.uint32(-3 & 0xFFFFFFFF)
    final, _ = _atom_one_address("atom.global.min.u32 {dst}, {addr}, {b};", "u32", 100, uv, np.uint32)
    assert final == 0
    v64 = np.arange(32, dtype=np.uint64) + np.uint64(2**63)
    final, _ = _atom_one_address("atom.global.max.u64 {dst}, {addr}, {b};", "u64", 5, v64, np.uint64)
    assert final == 2**63 + 31
    final, _ = _atom_one_address("atom.global.min.s64 {dst}, {addr}, {b};", "s64", 5, v64.view(np.int64),
                                 np.int64)
    assert final == -(2**63)


def test_atom_min_max_f32():
    v = np.linspace(-3, 5, 32).astype(np.float32)
    final, _ = _atom_one_address("atom.global.min.f32 {dst}, {addr}, {b};", "f32", 0.0, v, np.float32)
    assert final == np.float32(-3)
    final, _ = _atom_one_address("atom.global.max.f32 {dst}, {addr}, {b};", "f32", 0.0, v, np.float32)
    assert final == np.float32(5)


def test_atom_inc_wraps_to_zero_past_the_bound():
    final, old = _atom_one_address("atom.global.inc.u32 {dst}, {addr}, {b};", "u32", 0, np.full(32, 10), np.uint32)
    # ((old >= 10) ? 0 : old + 1) applied 32 times from 0 cycles through 0..10
    assert final == 32 % 11
    assert sorted(old.tolist()) == sorted([k % 11 for k in range(32)])


@pytest.mark.parametrize("init", [3, 50])
def test_atom_dec_wraps_to_the_bound_at_zero_or_above_it(init):
    final, old = _atom_one_address("atom.global.dec.u32 {dst}, {addr}, {b};", "u32", init, np.full(32, 10),
                                   np.uint32)
    seq, v = [], init
    for _ in range(32):
        seq.append(v)
        v = 10 if (v == 0 or v > 10) else v - 1       # ((old == 0) || (old > b)) ? b : old - 1
    assert final == v and sorted(old.tolist()) == sorted(seq)


def test_atom_exch_returns_every_previous_value_exactly_once():
    vals = np.arange(100, 132, dtype=np.uint32)
    final, old = _atom_one_address("atom.global.exch.b32 {dst}, {addr}, {b};", "u32", 7, vals, np.uint32)
    assert sorted(old.tolist() + [int(final)]) == sorted([7] + vals.tolist())


def test_atom_and_or_xor_accumulate_every_lane():
    bits = (np.uint32(1) << np.arange(32, dtype=np.uint32)).astype(np.uint32)
    final, _ = _atom_one_address("atom.global.or.b32 {dst}, {addr}, {b};", "u32", 0, bits, np.uint32)
    assert final == 0xFFFFFFFF
    final, _ = _atom_one_address("atom.global.and.b32 {dst}, {addr}, {b};", "u32", 0xFFFFFFFF, ~bits, np.uint32)
    assert final == 0
    final, _ = _atom_one_address("atom.global.xor.b32 {dst}, {addr}, {b};", "u32", 0xF0F0F0F0,
                                 bits[np.arange(32) % 8], np.uint32)
    assert final == 0xF0F0F0F0                                # each of bits 0..7 flipped 4 times
    final, _ = _atom_one_address("atom.global.xor.b32 {dst}, {addr}, {b};", "u32", 0, bits, np.uint32)
    assert final == 0xFFFFFFFF


def test_atom_cas_swaps_only_when_compare_matches():
    cells = np.arange(32, dtype=np.uint32) * 10
    body = addr("cells", 4) + """
    and.b32 %m, %z_tid, 1;
    mul.lo.u32 %cmp, %z_tid, 10;
    add.u32 %cmp, %cmp, %m;                    // odd lanes compare against a wrong value
    add.u32 %new, %z_tid, 1000;
    atom.global.cas.b32 %old, [%rd2], %cmp, %new;
    """
    out = run_lanes(body, outs={"old": "u32"}, regs={**R64, "m": "u32", "cmp": "u32", "new": "u32"},
                    arrays={"cells": cells})
    lanes = np.arange(32)
    assert out["old"].tolist() == (lanes * 10).tolist()
    assert out["cells"].tolist() == np.where(lanes % 2 == 0, lanes + 1000, lanes * 10).tolist()


def test_atom_cas_retry_loop_increments_exactly_once_per_lane():
    cell = np.zeros(2, np.uint32)
    body = """
    ld.param.u64 %rd0, [arr_cell];
    ld.global.u32 %seen, [%rd0];
RETRY:
    add.u32 %new, %seen, 1;
    atom.global.cas.b32 %old, [%rd0], %seen, %new;
    setp.ne.u32 %p, %old, %seen;
    mov.u32 %seen, %old;
    @%p bra RETRY;
    """
    out = run_lanes(body, outs={"old": "u32"}, regs={**R64, "seen": "u32", "new": "u32", "p": "pred"},
                    arrays={"cell": cell})
    assert out["cell"][0] == 32
    assert sorted(out["old"].tolist()) == list(range(32))      # each lane won with a distinct value


def test_atom_cas_b64_compares_all_64_bits():
    lanes = np.arange(32, dtype=np.uint64)
    cells = (lanes << np.uint64(40)) + np.uint64(7)
    body = addr("cells", 8) + """
    cvt.u64.u32 %rd1, %z_tid;
    shl.b64 %rd1, %rd1, 40;
    and.b32 %m, %z_tid, 1;
    cvt.u64.u32 %rd0, %m;
    shl.b64 %rd0, %rd0, 63;                     // odd lanes: compare value differs only in bit 63
    add.s64 %rd1, %rd1, %rd0;
    add.s64 %rd1, %rd1, 7;
    mov.u64 %rd0, -1;
    atom.global.cas.b64 %old, [%rd2], %rd1, %rd0;
    """
    out = run_lanes(body, outs={"old": "u64"}, regs={**R64, "m": "u32"}, arrays={"cells": cells})
    assert out["old"].tolist() == ((lanes << np.uint64(40)) + np.uint64(7)).tolist()
    want = np.where(lanes % 2 == 0, np.uint64(2**64 - 1), (lanes << np.uint64(40)) + np.uint64(7))
    assert out["cells"].tolist() == want.tolist()


SHARED_ATOMS = [
    # op, type, initial value, per-lane operand, final value
    ("add.u32", "u32", 0, list(range(32)), sum(range(32))),
    ("add.s32", "s32", 0, [-5] * 32, -160),
    ("add.u64", "u64", 2**40, [2**33] * 32, 2**40 + 32 * 2**33),
    ("add.f32", "f32", 0.5, [0.25] * 32, 8.5),
    ("min.s32", "s32", 0, [i - 7 for i in range(32)], -7),
    ("max.s32", "s32", -100, [-(i + 1) for i in range(32)], -1),
    ("max.u32", "u32", 0, [i * 3 for i in range(32)], 93),
    ("min.u64", "u64", 2**63, [2**63 + 1 + i for i in range(32)], 2**63),
    ("max.u64", "u64", 1, [2**63 + i for i in range(32)], 2**63 + 31),
    ("exch.b32", "u32", 9, [4] * 32, 4),
    ("inc.u32", "u32", 0, [1000] * 32, 32),
    ("dec.u32", "u32", 40, [1000] * 32, 8),
    ("and.b32", "u32", 0xFFFFFFFF, [~(1 << i) & 0xFFFFFFFF for i in range(32)], 0),
    ("or.b32", "u32", 0, [1 << i for i in range(32)], 0xFFFFFFFF),
    ("xor.b32", "u32", 0x0F, [1 << (i % 4) for i in range(32)], 0x0F),
    ("or.b64", "u64", 0, [1 << (2 * i) for i in range(32)], sum(1 << (2 * i) for i in range(32))),
]


@pytest.mark.parametrize("op, t, init, vals, want", SHARED_ATOMS, ids=[a[0] for a in SHARED_ATOMS])
def test_atom_on_shared_memory(op, t, init, vals, want):
    dtype = {"u32": np.uint32, "s32": np.int32, "f32": np.float32, "u64": np.uint64}[t]
    body = f"""
    setp.eq.u32 %p, %z_tid, 0;
    @%p st.shared.{t} [sh+8], %init;
    bar.sync 0;
    atom.shared.{op} %old, [sh+8], %b;
    bar.sync 0;
    ld.shared.{t} %d, [sh+8];
    """
    out = run_lanes(body, ins={"b": (t, np.array(vals, dtype)), "init": (t, np.full(32, init, dtype))},
                    outs={"d": t, "old": t}, regs={"p": "pred"}, decls=SHARED)
    assert (out["d"] == dtype(want)).all(), out["d"][0]
    assert dtype(init) in out["old"]                           # one lane saw the initial value


def test_atom_cas_on_shared_memory_lets_exactly_one_lane_win():
    body = """
    setp.eq.u32 %p, %z_tid, 0;
    mov.u32 %zero, 0;
    @%p st.shared.u32 [sh], %zero;
    bar.sync 0;
    add.u32 %mine, %z_tid, 100;
    atom.shared.cas.b32 %old, [sh], 0, %mine;
    bar.sync 0;
    ld.shared.u32 %d, [sh];
    """
    out = run_lanes(body, outs={"d": "u32", "old": "u32"}, regs={"p": "pred", "zero": "u32", "mine": "u32"},
                    decls=SHARED)
    winner = int(out["d"][0]) - 100
    assert 0 <= winner < 32 and (out["d"] == winner + 100).all()
    assert out["old"][winner] == 0 and (np.delete(out["old"], winner) == winner + 100).all()


def test_atom_generic_address_resolves_to_shared():
    body = """
    mov.u64 %rd0, sh;
    cvta.shared.u64 %rd1, %rd0;
    atom.add.u32 %old, [%rd1], 2;
    bar.sync 0;
    ld.shared.u32 %d, [sh];
    """
    out = run_lanes(body, outs={"d": "u32", "old": "u32"}, regs=R64, decls=SHARED)
    assert (out["d"] == 64).all()
    assert sorted(out["old"].tolist()) == list(range(0, 64, 2))


def test_red_global_add_has_no_destination_and_totals_exactly():
    cell = np.zeros(4, np.uint64)
    body = """
    ld.param.u64 %rd0, [arr_cell];
    cvt.u64.u32 %rd1, %z_tid;
    red.global.add.u64 [%rd0], %rd1;
    and.b32 %m, %z_tid, 3;
    mul.wide.u32 %rd1, %m, 8;
    add.s64 %rd1, %rd0, %rd1;
    red.global.add.u64 [%rd1+0], 1;
    red.global.max.u64 [%rd0+24], 5;
    """
    out = run_lanes(body, regs={**R64, "m": "u32"}, arrays={"cell": cell})
    assert out["cell"].tolist() == [sum(range(32)) + 8, 8, 8, max(8, 5)]


def test_red_shared_f32_add():
    body = """
    setp.eq.u32 %p, %z_tid, 0;
    mov.f32 %f, 0f00000000;
    @%p st.shared.f32 [sh+4], %f;
    bar.sync 0;
    cvt.rn.f32.u32 %f, %z_tid;
    red.shared.add.f32 [sh+4], %f;
    bar.sync 0;
    ld.shared.f32 %d, [sh+4];
    """
    out = run_lanes(body, outs={"d": "f32"}, regs={"p": "pred", "f": "f32"}, decls=SHARED)
    assert (out["d"] == sum(range(32))).all()


def test_atomics_across_four_warps_and_two_blocks_total_exactly():
    text = HEADER + """
.visible .entry k(.param .u64 cell)
{
    .reg .u64 %rd<2>;
    .reg .u32 %r<4>;
    ld.param.u64 %rd0, [cell];
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %ctaid.x;
    mad.lo.u32 %r2, %r1, 1000, %r0;
    atom.global.add.u32 %r3, [%rd0], %r2;
    atom.global.add.u32 %r3, [%rd0+4], 1;
    ret;
}
"""
    cell = np.zeros(2, np.uint32)
    run_ptx(text, "k", 2, 128, cell)
    assert cell.tolist() == [sum(range(128)) * 2 + 1000 * 128, 256]
