"""Shifts, bit counting, bit fields, logic, select and compare instructions, one warp at a time,
against Python-int references."""
import numpy as np
import pytest
from conftest import run_lanes
from int_lanes import BITS, arr, check, ints, signed, values

# ------------------------------------------------------------------ shifts
SHIFTS = [0, 1, 5, 15, 16, 31, 32, 33, 40, 63, 64, 65, 100, 255, 256, 1000, 0xFFFFFFFF, 2**31]


def _shift_cases(t, rng):
    a = values(t, rng)
    s = np.array((SHIFTS * 2)[:32], np.uint32)
    return a, s


@pytest.mark.parametrize("t", ["b32", "b64", "b16"])
def test_shl_past_the_width_gives_zero(t, rng):
    a, s = _shift_cases(t, rng)
    n = BITS[t]
    got = run_lanes(f"shl.{t} %d, %a, %s;", ins={"a": (t, a), "s": ("u32", s)}, outs={"d": t})["d"]
    check(got, [(x << y) if y < n else 0 for x, y in zip(ints(a), ints(s))], t, f"shl.{t}")


@pytest.mark.parametrize("t", ["u32", "u64", "b32", "u16"])
def test_shr_unsigned_past_the_width_gives_zero(t, rng):
    a, s = _shift_cases(t, rng)
    n = BITS[t]
    got = run_lanes(f"shr.{t} %d, %a, %s;", ins={"a": (t, a), "s": ("u32", s)}, outs={"d": t})["d"]
    check(got, [(x >> y) if y < n else 0 for x, y in zip(ints(a), ints(s))], t, f"shr.{t}")


@pytest.mark.parametrize("t", ["s32", "s64", "s16"])
def test_shr_signed_past_the_width_fills_with_the_sign(t, rng):
    a, s = _shift_cases(t, rng)
    got = run_lanes(f"shr.{t} %d, %a, %s;", ins={"a": (t, a), "s": ("u32", s)}, outs={"d": t})["d"]
    check(got, [x >> min(y, 1000) for x, y in zip(ints(a), ints(s))], t, f"shr.{t}")
    neg = np.asarray(a) < 0
    big = np.asarray(s) >= BITS[t]
    assert (got[neg & big] == -1).all() and (got[~neg & big] == 0).all()


def test_shift_by_immediate_count():
    a = np.arange(32, dtype=np.uint32) * 0x01010101
    got = run_lanes("shl.b32 %d, %a, 4; shr.u32 %e, %a, 28;", ins={"a": ("u32", a)},
                    outs={"d": "u32", "e": "u32"})
    check(got["d"], [(x << 4) for x in ints(a)], "u32")
    check(got["e"], [(x >> 28) for x in ints(a)], "u32")


# ------------------------------------------------------------------ bit counting
@pytest.mark.parametrize("t", ["b32", "b64"])
def test_popc_counts_set_bits(t, rng):
    a = values(t.replace("b", "u"), rng)
    got = run_lanes(f"popc.{t} %d, %a;", ins={"a": (t, a)}, outs={"d": "u32"})["d"]
    check(got, [bin(x).count("1") for x in ints(a)], "u32", f"popc.{t}")


@pytest.mark.parametrize("t", ["b32", "b64"])
def test_clz_counts_leading_zeros_and_gives_width_for_zero(t, rng):
    a = values(t.replace("b", "u"), rng)
    n = BITS[t]
    got = run_lanes(f"clz.{t} %d, %a;", ins={"a": (t, a)}, outs={"d": "u32"})["d"]
    check(got, [n - x.bit_length() for x in ints(a)], "u32", f"clz.{t}")
    assert got[0] == n


@pytest.mark.parametrize("t", ["b32", "b64"])
def test_brev_reverses_bit_order(t, rng):
    a = values(t.replace("b", "u"), rng)
    n = BITS[t]
    got = run_lanes(f"brev.{t} %d, %a;", ins={"a": (t, a)}, outs={"d": t})["d"]
    check(got, [int(format(x, f"0{n}b")[::-1], 2) for x in ints(a)], t, f"brev.{t}")


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfind_finds_most_significant_non_sign_bit(t, rng):
    a = values(t, rng)
    n = BITS[t]

    def ref(x):
        if signed(t) and x < 0:
            x = ~x
        x &= (1 << n) - 1
        return x.bit_length() - 1 if x else 0xFFFFFFFF

    got = run_lanes(f"bfind.{t} %d, %a;", ins={"a": (t, a)}, outs={"d": "u32"})["d"]
    check(got, [ref(x) for x in ints(a)], "u32", f"bfind.{t}")


# ------------------------------------------------------------------ bfe / bfi / prmt
def bfe_ref(a: int, pos: int, ln: int, t: str) -> int:
    """PTX ISA semantics of bfe, bit by bit."""
    msb = BITS[t] - 1
    pos, ln = pos & 0xFF, ln & 0xFF
    ua = a & ((1 << (msb + 1)) - 1)
    sbit = 0 if (not signed(t) or ln == 0) else (ua >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(msb + 1):
        bit = (ua >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


BFE_POS_LEN = [(0, 8), (4, 8), (8, 16), (28, 4), (30, 8), (31, 1), (31, 5), (0, 32), (0, 0), (5, 0), (32, 4),
               (40, 8), (60, 10), (63, 1), (0, 64), (56, 8), (1, 63), (255, 3), (3, 255), (16, 200), (0x108, 4),
               (8, 0x104), (12, 12), (20, 30), (36, 20), (48, 16), (7, 1), (0, 1), (13, 19), (2, 30), (33, 31),
               (62, 2)]


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfe_extracts_and_sign_or_zero_extends_per_ptx_semantics(t, rng):
    a = values(t, rng)
    a[::3] = arr([-(1 << (BITS[t] - 1)) | 0x5A5A] * 11, t)[: len(a[::3])]   # top bit set in a third
    pos = np.array([p for p, _ in BFE_POS_LEN], np.uint32)
    ln = np.array([n for _, n in BFE_POS_LEN], np.uint32)
    got = run_lanes(f"bfe.{t} %d, %a, %b, %c;", ins={"a": (t, a), "b": ("u32", pos), "c": ("u32", ln)},
                    outs={"d": t})["d"]
    check(got, [bfe_ref(x, p, n, t) for x, p, n in zip(ints(a), ints(pos), ints(ln))], t, f"bfe.{t}")


def bfi_ref(a: int, b: int, pos: int, ln: int, t: str) -> int:
    msb = BITS[t] - 1
    pos, ln = pos & 0xFF, ln & 0xFF
    f = b & ((1 << (msb + 1)) - 1)
    i = 0
    while i < ln and pos + i <= msb:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


@pytest.mark.parametrize("t", ["b32", "b64"])
def test_bfi_inserts_field_per_ptx_semantics(t, rng):
    ut = t.replace("b", "u")
    a, b = values(ut, rng), values(ut, rng)[::-1].copy()
    pos = np.array([p for p, _ in BFE_POS_LEN], np.uint32)
    ln = np.array([n for _, n in BFE_POS_LEN], np.uint32)
    got = run_lanes(f"bfi.{t} %f, %a, %b, %c, %d;",
                    ins={"a": (t, a), "b": (t, b), "c": ("u32", pos), "d": ("u32", ln)}, outs={"f": t})["f"]
    want = [bfi_ref(x, y, p, n, t) for x, y, p, n in zip(ints(a), ints(b), ints(pos), ints(ln))]
    check(got, want, t, f"bfi.{t}")


def test_bfi_b64_full_width_field_replaces_every_bit():
    a = np.full(32, 0x8123456789ABCDEF, np.uint64)
    b = np.zeros(32, np.uint64)
    got = run_lanes("bfi.b64 %f, %a, %b, 0, 64;", ins={"a": ("b64", a), "b": ("b64", b)}, outs={"f": "b64"})["f"]
    assert (got == 0x8123456789ABCDEF).all(), hex(int(got[0]))


def prmt_ref(a: int, b: int, c: int) -> int:
    src = ((b & 0xFFFFFFFF) << 32) | (a & 0xFFFFFFFF)
    byts = [(src >> (8 * k)) & 0xFF for k in range(8)]
    d = 0
    for k in range(4):
        sel = (c >> (4 * k)) & 0xF
        v = byts[sel & 7]
        if sel & 8:
            v = 0xFF if v & 0x80 else 0
        d |= v << (8 * k)
    return d


def test_prmt_default_mode_selects_and_sign_replicates_bytes(rng):
    a = np.full(32, 0x80F17F03, np.uint32)
    a[16:] = values("u32", rng)[16:]
    b = np.full(32, 0x44A5B6C7, np.uint32)
    c = values("u32", rng)
    c[:4] = [0x3210, 0x7654, 0x0123, 0xBA98]
    got = run_lanes("prmt.b32 %d, %a, %b, %c;", ins={"a": ("b32", a), "b": ("b32", b), "c": ("b32", c)},
                    outs={"d": "b32"})["d"]
    check(got, [prmt_ref(x, y, z) for x, y, z in zip(ints(a), ints(b), ints(c))], "b32", "prmt")
    assert got[0] == 0x80F17F03 and got[1] == 0x44A5B6C7 and got[2] == 0x037FF180


# ------------------------------------------------------------------ logic
@pytest.mark.parametrize("t", ["b32", "b64", "b16"])
def test_and_or_xor_not_cnot_bitwise(t, rng):
    ut = {"b16": "u16", "b32": "u32", "b64": "u64"}[t]
    a, b = values(ut, rng), values(ut, rng)[::-1].copy()
    mask = (1 << BITS[t]) - 1
    body = (f"and.{t} %d1, %a, %b; or.{t} %d2, %a, %b; xor.{t} %d3, %a, %b; not.{t} %d4, %a;"
            f" cnot.{t} %d5, %a;")
    got = run_lanes(body, ins={"a": (t, a), "b": (t, b)}, outs={f"d{k}": t for k in range(1, 6)})
    A, B = ints(a), ints(b)
    check(got["d1"], [x & y for x, y in zip(A, B)], t, "and")
    check(got["d2"], [x | y for x, y in zip(A, B)], t, "or")
    check(got["d3"], [x ^ y for x, y in zip(A, B)], t, "xor")
    check(got["d4"], [~x & mask for x in A], t, "not")
    check(got["d5"], [int(x == 0) for x in A], t, "cnot")


def test_predicate_logic_and_or_xor_not():
    lane = np.arange(32)
    p, q = (lane & 1).astype(np.uint32), ((lane >> 1) & 1).astype(np.uint32)
    body = "and.pred %r1, %p, %q; or.pred %r2, %p, %q; xor.pred %r3, %p, %q; not.pred %r4, %p;"
    got = run_lanes(body, ins={"p": ("pred", p), "q": ("pred", q)}, outs={f"r{k}": "pred" for k in range(1, 5)})
    assert (got["r1"] == (p & q)).all()
    assert (got["r2"] == (p | q)).all()
    assert (got["r3"] == (p ^ q)).all()
    assert (got["r4"] == 1 - p).all()


# ------------------------------------------------------------------ selp
@pytest.mark.parametrize("t", ["s32", "u64", "f32", "b16"])
def test_selp_picks_first_operand_when_predicate_true(t, rng):
    lane = np.arange(32)
    p = ((lane * 7) % 3 == 0).astype(np.uint32)
    if t == "f32":
        a, b = rng.standard_normal(32).astype(np.float32), rng.standard_normal(32).astype(np.float32)
    else:
        a, b = values(t.replace("b", "u"), rng), values(t.replace("b", "u"), rng)[::-1].copy()
    got = run_lanes(f"selp.{t} %d, %a, %b, %p;", ins={"a": (t, a), "b": (t, b), "p": ("pred", p)},
                    outs={"d": t})["d"]
    want = np.where(p == 1, a, b)
    assert np.array_equal(got.view(np.uint8), want.astype(got.dtype).view(np.uint8))


def test_selp_with_immediates():
    p = (np.arange(32) % 2).astype(np.uint32)
    got = run_lanes("selp.s32 %d, -5, 9, %p;", ins={"p": ("pred", p)}, outs={"d": "s32"})["d"]
    assert np.array_equal(got, np.where(p == 1, -5, 9))


# ------------------------------------------------------------------ setp
CMPS = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
}
UCMPS = {"lo": CMPS["lt"], "ls": CMPS["le"], "hi": CMPS["gt"], "hs": CMPS["ge"]}


def _cmp_inputs(t, rng):
    a = values(t, rng)
    b = values(t, rng)[::-1].copy()
    b[::3] = a[::3]                       # equal pairs
    b[1::7] = a[1::7] + 1                 # neighbours
    return a, b


@pytest.mark.parametrize("t", ["s32", "s64", "s16"])
@pytest.mark.parametrize("cmp", sorted(CMPS))
def test_setp_signed_comparison(cmp, t, rng):
    a, b = _cmp_inputs(t, rng)
    got = run_lanes(f"setp.{cmp}.{t} %p, %a, %b;", ins={"a": (t, a), "b": (t, b)}, outs={"p": "pred"})["p"]
    want = [int(CMPS[cmp](x, y)) for x, y in zip(ints(a), ints(b))]
    assert got.tolist() == want


@pytest.mark.parametrize("t", ["u32", "u64", "u16"])
@pytest.mark.parametrize("cmp", sorted(CMPS) + sorted(UCMPS))
def test_setp_unsigned_comparison(cmp, t, rng):
    a, b = _cmp_inputs(t, rng)
    f = CMPS.get(cmp) or UCMPS[cmp]
    got = run_lanes(f"setp.{cmp}.{t} %p, %a, %b;", ins={"a": (t, a), "b": (t, b)}, outs={"p": "pred"})["p"]
    want = [int(f(x, y)) for x, y in zip(ints(a), ints(b))]
    assert got.tolist() == want


def test_setp_unsigned_vs_signed_on_the_same_bits():
    a = np.full(32, 0xFFFFFFFF, np.uint32)              # -1 as s32, max as u32
    b = np.ones(32, np.uint32)
    got = run_lanes("setp.lt.s32 %p, %a, %b; setp.lo.u32 %q, %a, %b;",
                    ins={"a": ("u32", a), "b": ("u32", b)}, outs={"p": "pred", "q": "pred"})
    assert (got["p"] == 1).all() and (got["q"] == 0).all()


def test_setp_eq_ne_on_bit_types():
    a = np.arange(32, dtype=np.uint64) << np.uint64(40)
    b = np.where(np.arange(32) % 2 == 0, a, a + np.uint64(1)).astype(np.uint64)
    got = run_lanes("setp.eq.b64 %p, %a, %b; setp.ne.b64 %q, %a, %b;", ins={"a": ("b64", a), "b": ("b64", b)},
                    outs={"p": "pred", "q": "pred"})
    assert (got["p"] == (np.arange(32) % 2 == 0)).all() and (got["q"] == (np.arange(32) % 2 == 1)).all()


@pytest.mark.parametrize("comb", ["and", "or", "xor"])
def test_setp_combines_with_a_negated_predicate(comb):
    lane = np.arange(32)
    a = (lane % 8).astype(np.int32)
    b = np.full(32, 4, np.int32)
    c = ((lane // 8) % 2).astype(np.uint32)
    got = run_lanes(f"setp.lt.{comb}.s32 %p, %a, %b, !%c; setp.lt.{comb}.s32 %q, %a, %b, %c;",
                    ins={"a": ("s32", a), "b": ("s32", b), "c": ("pred", c)}, outs={"p": "pred", "q": "pred"})
    f = {"and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y}[comb]
    lt = (a < b).astype(int)
    assert got["p"].tolist() == [f(int(x), 1 - int(y)) for x, y in zip(lt, c)]
    assert got["q"].tolist() == [f(int(x), int(y)) for x, y in zip(lt, c)]


def test_setp_two_destinations_are_complements():
    lane = np.arange(32)
    a = (lane - 16).astype(np.int32)
    got = run_lanes("setp.gt.s32 %p|%q, %a, 3;", ins={"a": ("s32", a)}, outs={"p": "pred", "q": "pred"})
    assert got["p"].tolist() == [int(x > 3) for x in a]
    assert got["q"].tolist() == [int(x <= 3) for x in a]


def test_setp_two_destinations_with_and_combine_both_see_the_predicate():
    lane = np.arange(32)
    a = (lane % 4).astype(np.int32)
    c = (lane >= 16).astype(np.uint32)
    got = run_lanes("setp.eq.and.s32 %p|%q, %a, 1, %c;", ins={"a": ("s32", a), "c": ("pred", c)},
                    outs={"p": "pred", "q": "pred"})
    # p = (a == 1) and c; q = !(a == 1) and c
    assert got["p"].tolist() == [int(x == 1 and y) for x, y in zip(a, c)]
    assert got["q"].tolist() == [int(x != 1 and y) for x, y in zip(a, c)]


def test_guarded_instruction_writes_only_where_predicate_holds():
    lane = np.arange(32).astype(np.int32)
    got = run_lanes("mov.s32 %d, 100; setp.lt.s32 %p, %a, 10; @%p mov.s32 %d, %a; @!%p add.s32 %d, %d, %a;",
                    ins={"a": ("s32", lane)}, outs={"d": "s32"}, regs={"p": "pred"})["d"]
    assert got.tolist() == [x if x < 10 else 100 + x for x in range(32)]
