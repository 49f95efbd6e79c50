"""Integer arithmetic (add/sub, mul/mad, div/rem, min/max/abs/neg), one warp at a time, against
Python-int references."""
import numpy as np
import pytest
from conftest import run_lanes
from int_lanes import BITS, arr, binop, check, ints, signed, values


# ------------------------------------------------------------------ add / sub
@pytest.mark.parametrize("t", ["s32", "u32", "s64", "u64", "s16", "u16"])
@pytest.mark.parametrize("op", ["add", "sub"])
def test_add_sub_wrap_around_at_type_width(op, t, rng):
    a, b = values(t, rng), values(t, rng)[::-1].copy()
    got = binop(f"{op}.{t}", t, a, b)
    want = [x + y if op == "add" else x - y for x, y in zip(ints(a), ints(b))]
    check(got, want, t, f"{op}.{t}")


def test_add_s32_max_plus_one_wraps_to_min():
    got = binop("add.s32", "s32", np.full(32, 2**31 - 1), np.arange(32))
    check(got, [2**31 - 1 + i for i in range(32)], "s32")
    assert got[1] == -(2**31)


def test_sub_u64_zero_minus_one_wraps_to_all_ones():
    got = binop("sub.u64", "u64", np.zeros(32, np.uint64), np.arange(32, dtype=np.uint64))
    assert got[1] == 2**64 - 1 and got[31] == 2**64 - 31


# ------------------------------------------------------------------ mul / mad
@pytest.mark.parametrize("t", ["s32", "u32", "s64", "u64", "s16", "u16"])
def test_mul_lo_keeps_low_half_of_product(t, rng):
    a, b = values(t, rng), values(t, rng)[::-1].copy()
    check(binop(f"mul.lo.{t}", t, a, b), [x * y for x, y in zip(ints(a), ints(b))], t, f"mul.lo.{t}")


@pytest.mark.parametrize("t", ["s32", "u32", "s64", "u64", "s16", "u16"])
def test_mul_hi_gives_high_half_of_full_product(t, rng):
    a, b = values(t, rng), values(t, rng)[::-1].copy()
    n = BITS[t]
    check(binop(f"mul.hi.{t}", t, a, b), [(x * y) >> n for x, y in zip(ints(a), ints(b))], t, f"mul.hi.{t}")


@pytest.mark.parametrize("t, wt", [("s32", "s64"), ("u32", "u64"), ("s16", "s32"), ("u16", "u32")])
def test_mul_wide_gives_full_double_width_product(t, wt, rng):
    a, b = values(t, rng), values(t, rng)[::-1].copy()
    check(binop(f"mul.wide.{t}", t, a, b, dt=wt), [x * y for x, y in zip(ints(a), ints(b))], wt)


@pytest.mark.parametrize("t", ["s32", "u32", "s64", "u64"])
def test_mad_lo_adds_to_truncated_product_with_wrap(t, rng):
    a, b, c = values(t, rng), values(t, rng)[::-1].copy(), values(t, rng, edge=False)
    got = binop(f"mad.lo.{t}", t, a, b, c=c)
    check(got, [x * y + z for x, y, z in zip(ints(a), ints(b), ints(c))], t, f"mad.lo.{t}")


@pytest.mark.parametrize("t", ["s32", "u32"])
def test_mad_hi_adds_to_high_half_of_product(t, rng):
    a, b, c = values(t, rng), values(t, rng)[::-1].copy(), values(t, rng, edge=False)
    got = binop(f"mad.hi.{t}", t, a, b, c=c)
    check(got, [((x * y) >> 32) + z for x, y, z in zip(ints(a), ints(b), ints(c))], t, f"mad.hi.{t}")


@pytest.mark.parametrize("t, wt", [("s32", "s64"), ("u32", "u64")])
def test_mad_wide_adds_a_double_width_addend(t, wt, rng):
    a, b, c = values(t, rng), values(t, rng)[::-1].copy(), values(wt, rng)
    got = binop(f"mad.wide.{t}", t, a, b, c=c, ct=wt, dt=wt)
    check(got, [x * y + z for x, y, z in zip(ints(a), ints(b), ints(c))], wt, f"mad.wide.{t}")


@pytest.mark.parametrize("t", ["s32", "u32"])
def test_mul24_uses_low_24_bits_of_operands(t, rng):
    a, b = values(t, rng), values(t, rng)[::-1].copy()

    def low24(v):
        v &= 0xFFFFFF
        return v - (1 << 24) if signed(t) and v >> 23 else v

    lo = binop(f"mul24.lo.{t}", t, a, b)
    hi = binop(f"mul24.hi.{t}", t, a, b)
    prods = [low24(x) * low24(y) for x, y in zip(ints(a), ints(b))]
    check(lo, prods, t, "mul24.lo")
    check(hi, [p >> 16 for p in prods], t, "mul24.hi")


# ------------------------------------------------------------------ div / rem
def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


SIGNED_DIV_CASES = [(7, 2), (-7, 2), (7, -2), (-7, -2), (1, 3), (-1, 3), (-6, 3), (6, -3), (0, -5), (-9, 10),
                    (100, 7), (-100, 7), (100, -7), (-100, -7), (2**31 - 1, -1), (-(2**31) + 1, 2)]


@pytest.mark.parametrize("t", ["s32", "s64"])
def test_div_signed_truncates_toward_zero(t, rng):
    cases = SIGNED_DIV_CASES + [(int(x), int(y) or 1) for x, y in zip(values(t, rng, False)[:16],
                                                                      values(t, rng, False)[:16] >> 7)]
    a, b = arr([c[0] for c in cases], t), arr([c[1] for c in cases], t)
    got = binop(f"div.{t}", t, a, b)
    check(got, [_tdiv(x, y) for x, y in zip(ints(a), ints(b))], t, f"div.{t}")
    assert got[1] == -3 and got[2] == -3 and got[3] == 3


@pytest.mark.parametrize("t", ["s32", "s64"])
def test_rem_signed_takes_the_sign_of_the_dividend(t, rng):
    cases = SIGNED_DIV_CASES + [(int(x), int(y) or 1) for x, y in zip(values(t, rng, False)[:16],
                                                                      values(t, rng, False)[:16] >> 7)]
    a, b = arr([c[0] for c in cases], t), arr([c[1] for c in cases], t)
    got = binop(f"rem.{t}", t, a, b)
    check(got, [x - _tdiv(x, y) * y for x, y in zip(ints(a), ints(b))], t, f"rem.{t}")
    assert got[1] == -1 and got[2] == 1 and got[3] == -1


def test_div_s32_min_by_minus_one_wraps_to_min():
    got = binop("div.s32", "s32", np.full(32, -(2**31)), np.full(32, -1))
    assert (got == -(2**31)).all()


@pytest.mark.parametrize("t", ["u32", "u64"])
def test_div_rem_unsigned_treat_high_bit_as_magnitude(t, rng):
    a = values(t, rng)
    b = values(t, rng)[::-1].copy()
    b[b == 0] = 3
    b[::4] = (1 << (BITS[t] - 1)) + 5          # divisors with the top bit set
    q, r = binop(f"div.{t}", t, a, b), binop(f"rem.{t}", t, a, b)
    check(q, [x // y for x, y in zip(ints(a), ints(b))], t, f"div.{t}")
    check(r, [x % y for x, y in zip(ints(a), ints(b))], t, f"rem.{t}")


def test_div_u32_by_zero_gives_all_ones_and_rem_gives_the_dividend():
    a = np.arange(32, dtype=np.uint32) * 1000003
    q = binop("div.u32", "u32", a, np.zeros(32, np.uint32))
    r = binop("rem.u32", "u32", a, np.zeros(32, np.uint32))
    assert (q == 0xFFFFFFFF).all()
    check(r, a, "u32", "rem.u32 by 0")


def test_div_s32_by_zero_does_not_fault_and_leaves_other_lanes_exact():
    a = np.arange(32, dtype=np.int32) * 11 + 5            # non-negative dividends
    b = np.where(np.arange(32) % 2 == 0, 0, 3).astype(np.int32)
    q = binop("div.s32", "s32", a, b)
    r = binop("rem.s32", "s32", a, b)
    odd = np.arange(32) % 2 == 1
    check(q[odd], a[odd] // 3, "s32")
    check(r[odd], a[odd] % 3, "s32")
    assert (q[~odd] == -1).all()                          # |a| / 0 = all ones, positive sign
    check(r[~odd], a[~odd], "s32")


# ------------------------------------------------------------------ min / max / abs / neg
@pytest.mark.parametrize("t", ["s32", "u32", "s64", "u64", "s16", "u16"])
def test_min_max_compare_signed_or_unsigned_by_type(t, rng):
    a, b = values(t, rng), values(t, rng)[::-1].copy()
    check(binop(f"min.{t}", t, a, b), [min(x, y) for x, y in zip(ints(a), ints(b))], t, f"min.{t}")
    check(binop(f"max.{t}", t, a, b), [max(x, y) for x, y in zip(ints(a), ints(b))], t, f"max.{t}")


def test_min_u32_treats_all_ones_as_largest_and_s32_as_minus_one():
    a = np.full(32, 0xFFFFFFFF, np.uint32)
    assert (binop("min.u32", "u32", a, np.ones(32, np.uint32)) == 1).all()
    assert (binop("min.s32", "s32", a.view(np.int32), np.ones(32, np.int32)) == -1).all()
    assert (binop("max.u32", "u32", a, np.ones(32, np.uint32)) == 0xFFFFFFFF).all()


@pytest.mark.parametrize("t", ["s32", "s64", "s16"])
def test_abs_neg_wrap_at_the_most_negative_value(t, rng):
    a = values(t, rng)
    d_abs = run_lanes(f"abs.{t} %d, %a;", ins={"a": (t, a)}, outs={"d": t})["d"]
    d_neg = run_lanes(f"neg.{t} %d, %a;", ins={"a": (t, a)}, outs={"d": t})["d"]
    check(d_abs, [abs(x) for x in ints(a)], t, "abs")
    check(d_neg, [-x for x in ints(a)], t, "neg")
