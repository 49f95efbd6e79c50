"""Half-precision arithmetic (f16, bf16 and the packed f16x2 / bf16x2 forms): results bit for bit
against numpy float16 and exact rational references (ties to even, subnormals, overflow, NaN,
signed zeros), each half of a packed register independently, .ftz / .sat / .relu, setp, and the
half-precision instructions gpusim does not implement rejected at load time."""
from fractions import Fraction

import numpy as np
import pytest
from conftest import HEADER, round_exact, run_lanes

import gpusim
from gpusim.errors import UnsupportedInstruction

CANON_NAN = 0x7FFF
F16_MAX = 65504.0
SUB16 = 2.0**-24                      # smallest f16 subnormal
MIN16 = 2.0**-14                      # smallest f16 normal


def h16(values) -> np.ndarray:
    """f16 bits of values (32 lanes)."""
    return np.asarray(values, np.float64).astype(np.float16).view(np.uint16)


def f16_of(bits) -> np.ndarray:
    return np.asarray(bits, np.uint16).view(np.float16)


def bf16_rne(x) -> np.ndarray:
    """Reference bf16 bits of float32 values, round to nearest even (NaN -> a quiet NaN)."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, np.float32))
    r[nan] = ((b[nan] >> 16) | 0x40).astype(np.uint16)
    return r


def bf16_value(bits) -> np.ndarray:
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def assert_half_bits(got, want, what=""):
    """Bit equality; where the reference is a NaN the result must be the canonical NaN 0x7FFF."""
    got, want = np.asarray(got, np.uint16), np.asarray(want, np.uint16)
    want_nan = ((want & 0x7FFF) > 0x7F80) if "bf16" in what else ((want & 0x7FFF) > 0x7C00)
    want = np.where(want_nan, CANON_NAN, want).astype(np.uint16)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, (f"{what}: lanes {bad.tolist()[:6]} got {[hex(int(x)) for x in got[bad][:6]]} "
                           f"want {[hex(int(x)) for x in want[bad][:6]]}")


def half_op(body, t="f16", **ins):
    """Run body with 16-bit inputs a, b, c (bits) and return the bits of %d."""
    return run_lanes(body, ins={k: (t, np.asarray(v, np.uint16)) for k, v in ins.items()},
                     outs={"d": t})["d"]


# ------------------------------------------------------------------ f16 edge cases (32 lanes each)
EDGE_A = [1.0, 1.0 + 2**-10, 2048.0, 2048.0, F16_MAX, F16_MAX, 60000.0, SUB16, MIN16, -MIN16,
          2**-12, 2**-13, 3 * 2**-13, 0.0, -0.0, 1.0, np.inf, np.inf, np.nan, 0.0,
          -1.5, 0.1, 1000.0, -3.0, 0.333, 7.0, 2**-20, -2**-20, 1.0, -1.0, 512.5, 65.0]
EDGE_B = [2**-11, 2**-11, 1.0, 3.0, 16.0, 15.0, 2.0, SUB16, -SUB16, SUB16,
          2**-12, 2**-12, 2**-13, -0.0, -0.0, -1.0, -np.inf, 1.0, 1.0, np.inf,
          2.5, 0.2, 0.001, -0.0, 3.0, 1 / 7, 2**-5, 2**-4, -1.0, 1.0, 0.5, -64.0]
EDGE_C = [0.0, 2**-24, -2**-24, 1.0, -F16_MAX, 0.5, -1.0, -SUB16, 0.0, 1.0,
          -2**-24, 2**-24, 0.0, -0.0, 0.0, 0.0, 1.0, np.inf, 0.0, 0.0,
          0.75, -0.02, -1.0, 0.0, -0.999, -1.0, 2**-24, 0.0, 1.0, -1.0, 2.0, 4096.0]


def edge_bits():
    return h16(EDGE_A), h16(EDGE_B), h16(EDGE_C)


def exact_f16_ref(values) -> np.ndarray:
    """Exact values (Fraction or float special) rounded once to f16 (round_exact), as bits."""
    out = []
    for v in values:
        if isinstance(v, float):
            out.append(np.float16(v))
        else:
            out.append(np.float16(round_exact(v, "f16")))
    return np.array(out, np.float16).view(np.uint16)


def _exact_fma(a, b, c):
    a, b, c = float(a), float(b), float(c)
    if not all(np.isfinite([a, b, c])):
        return a * b + c                        # inf / nan propagate as in IEEE
    v = Fraction(a) * Fraction(b) + Fraction(c)
    if v == 0:
        p_neg = (np.copysign(1, a) * np.copysign(1, b)) < 0
        return -0.0 if p_neg and np.copysign(1, c) < 0 else 0.0
    return v


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_f16_add_sub_mul_are_bit_exact_with_numpy_float16(op):
    a, b, _ = edge_bits()
    got = half_op(f"{op}.f16 %d, %a, %b;", a=a, b=b)
    with np.errstate(all="ignore"):
        want = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](f16_of(a), f16_of(b))
    assert_half_bits(got, want.view(np.uint16), f"{op}.f16")


def test_f16_add_of_one_and_one_is_two():
    assert half_op("add.f16 %d, %a, %b;", a=h16([1.0] * 32), b=h16([1.0] * 32))[0] == 0x4000
    assert half_op("add.rn.f16 %d, %a, %b;", a=h16([1.0] * 32), b=h16([1.0] * 32))[0] == 0x4000


def test_f16_rounding_ties_go_to_even_and_overflow_reaches_inf():
    got = half_op("add.f16 %d, %a, %b;", a=h16(EDGE_A), b=h16(EDGE_B))
    assert got[0] == 0x3C00                    # 1 + 2^-11: a tie, down to the even 1.0
    assert got[1] == 0x3C02                    # (1 + 2^-10) + 2^-11: a tie, up to the even neighbour
    assert got[2] == h16([2048.0])[0]          # 2049 -> 2048 (even)
    assert got[3] == h16([2052.0])[0]          # 2051 -> 2052 (even)
    assert got[4] == 0x7C00                    # 65504 + 16 = 65520, the tie above the largest: inf
    assert got[5] == h16([F16_MAX])[0]         # 65519 stays finite
    mul = half_op("mul.f16 %d, %a, %b;", a=h16(EDGE_A), b=h16(EDGE_B))
    assert mul[6] == 0x7C00                    # 120000 overflows
    assert mul[10] == 0x0001                   # 2^-12 * 2^-12 = 2^-24, the smallest subnormal
    assert mul[11] == 0x0000                   # 2^-25: a tie between 0 and 2^-24, to the even 0


def test_f16_subnormal_inputs_and_results_are_exact_without_ftz():
    got = half_op("add.f16 %d, %a, %b;", a=h16(EDGE_A), b=h16(EDGE_B))
    assert got[7] == 0x0002                    # 2^-24 + 2^-24
    assert got[8] == 0x03FF                    # 2^-14 - 2^-24: the largest subnormal
    assert got[9] == 0x83FF


def test_f16_nan_results_are_canonical_and_signed_zeros_follow_ieee():
    a, b, _ = edge_bits()
    add = half_op("add.f16 %d, %a, %b;", a=a, b=b)
    assert add[16] == CANON_NAN and add[18] == CANON_NAN        # inf - inf, NaN + 1
    assert add[17] == 0x7C00                                     # inf + 1
    assert add[13] == 0x0000 and add[14] == 0x8000               # 0 + -0 = +0, -0 + -0 = -0
    assert add[15] == 0x0000                                     # 1 + -1 = +0
    mul = half_op("mul.f16 %d, %a, %b;", a=a, b=b)
    assert mul[19] == CANON_NAN                                  # 0 * inf
    assert mul[13] == 0x8000                                     # 0 * -0 = -0


def _check_f16_fma(a, b, c):
    got = half_op("fma.rn.f16 %d, %a, %b, %c;", a=a, b=b, c=c)
    want = exact_f16_ref([_exact_fma(x, y, z) for x, y, z in zip(f16_of(a), f16_of(b), f16_of(c))])
    assert_half_bits(got, want, "fma.rn.f16")


def test_f16_fma_is_one_rounding_of_the_exact_result():
    _check_f16_fma(*edge_bits())


def test_f16_fma_random_operands_match_the_exact_reference(rng):
    a = h16(rng.uniform(-4, 4, 32) * np.exp2(rng.integers(-10, 8, 32)))
    b = h16(rng.uniform(-4, 4, 32) * np.exp2(rng.integers(-10, 8, 32)))
    c = h16(rng.uniform(-4, 4, 32) * np.exp2(rng.integers(-24, 8, 32)))
    _check_f16_fma(a, b, c)


def test_f16_add_mul_random_operands_match_numpy(rng):
    a = h16(rng.uniform(-2, 2, 32) * np.exp2(rng.integers(-24, 15, 32)))
    b = h16(rng.uniform(-2, 2, 32) * np.exp2(rng.integers(-24, 15, 32)))
    with np.errstate(all="ignore"):
        assert_half_bits(half_op("add.f16 %d, %a, %b;", a=a, b=b), (f16_of(a) + f16_of(b)).view(np.uint16),
                         "add.f16")
        assert_half_bits(half_op("mul.f16 %d, %a, %b;", a=a, b=b), (f16_of(a) * f16_of(b)).view(np.uint16),
                         "mul.f16")


# ------------------------------------------------------------------ packed f16x2: each half on its own
def pack(lo, hi) -> np.ndarray:
    return (np.asarray(hi, np.uint32) << 16) | np.asarray(lo, np.uint32)


def unpack(x):
    x = np.asarray(x, np.uint32)
    return (x & 0xFFFF).astype(np.uint16), (x >> 16).astype(np.uint16)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "fma"])
def test_f16x2_computes_each_half_independently(op):
    a, b, c = edge_bits()
    ra, rb, rc = a[::-1].copy(), b[::-1].copy(), np.roll(c, 5)
    args = "%d, %a, %b, %c" if op == "fma" else "%d, %a, %b"
    mod = ".rn" if op == "fma" else ""
    got = run_lanes(f"{op}{mod}.f16x2 {args};", ins={"a": ("b32", pack(a, ra)), "b": ("b32", pack(b, rb)),
                                                     "c": ("b32", pack(c, rc))}, outs={"d": "b32"})["d"]
    lo, hi = unpack(got)
    for half, (x, y, z) in (("low", (a, b, c)), ("high", (ra, rb, rc))):
        want = half_op(f"{op}{mod}.f16 {args};", a=x, b=y, c=z)
        assert_half_bits(lo if half == "low" else hi, want, f"{op}.f16x2 {half} half f16")


def test_fma_f16x2_with_different_halves_gives_both_results():
    a = pack(h16([1.5] * 32), h16([-2.0] * 32))
    b = pack(h16([2.0] * 32), h16([0.25] * 32))
    c = pack(h16([0.25] * 32), h16([100.0] * 32))
    got = run_lanes("fma.rn.f16x2 %d, %a, %b, %c;", ins={"a": ("b32", a), "b": ("b32", b), "c": ("b32", c)},
                    outs={"d": "b32"})["d"]
    lo, hi = unpack(got)
    assert (f16_of(lo) == 3.25).all() and (f16_of(hi) == 99.5).all()


# ------------------------------------------------------------------ bf16 against a float32 reference
BF_A = np.array([1.0, 1.0, 3.0e38, 1e-38, 1e-39, -0.0, np.inf, np.nan, 257.0, 259.0, 7.0, -1.5,
                 0.1, 2.0**-126, 2.0**-133, 1e30] + list(np.linspace(-100, 100, 16)), np.float32)
BF_B = np.array([2.0**-8, 2.0**-9 * 3, 3.0e38, -1e-38, 1e-39, -0.0, -np.inf, 1.0, 1.0, -2.0**-7, 37.0, 2.5,
                 0.2, -2.0**-127, 2.0**-133, 1e10] + list(np.linspace(3, -50, 16)), np.float32)


def bf_bits(x):
    return bf16_rne(x)


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_bf16_add_sub_mul_match_float32_rounded_to_nearest_even(op):
    a, b = bf_bits(BF_A), bf_bits(BF_B)
    got = half_op(f"{op}.rn.bf16 %d, %a, %b;", t="bf16", a=a, b=b)
    with np.errstate(all="ignore"):
        exact32 = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](bf16_value(a), bf16_value(b))
    assert_half_bits(got, bf16_rne(exact32), f"{op}.bf16")


def test_bf16_fma_rounds_once_even_when_the_addend_is_far_below():
    # 7 * 37 = 259 is a bf16 tie (between 258 and 260); a tiny addend decides the direction, which a
    # double rounding (to double, then to bf16) would lose
    a = bf_bits(np.full(32, 7.0, np.float32))
    b = bf_bits(np.full(32, 37.0, np.float32))
    c = bf_bits(np.array([2.0**-100, -(2.0**-100), 0.0, 1.0] * 8, np.float32))
    got = half_op("fma.rn.bf16 %d, %a, %b, %c;", t="bf16", a=a, b=b, c=c)
    assert bf16_value(got[:4]).tolist() == [260.0, 258.0, 260.0, 260.0]


def test_bf16_fma_matches_the_exact_reference(rng):
    vals = lambda lo, hi: (rng.uniform(-2, 2, 32) * np.exp2(rng.integers(lo, hi, 32))).astype(np.float32)  # noqa: E731
    a, b, c = bf_bits(vals(-60, 60)), bf_bits(vals(-60, 60)), bf_bits(vals(-130, 120))
    got = half_op("fma.rn.bf16 %d, %a, %b, %c;", t="bf16", a=a, b=b, c=c)
    want = []
    for x, y, z in zip(bf16_value(a), bf16_value(b), bf16_value(c)):
        v = _exact_fma(x, y, z)
        want.append(np.float32(v if isinstance(v, float) else round_exact(v, "bf16")))
    assert_half_bits(got, bf16_rne(np.array(want, np.float32)), "fma.bf16")


def test_bf16x2_computes_each_half_independently():
    a, b = bf_bits(BF_A), bf_bits(BF_B)
    ra, rb = a[::-1].copy(), b[::-1].copy()
    got = run_lanes("mul.rn.bf16x2 %d, %a, %b;", ins={"a": ("b32", pack(a, ra)), "b": ("b32", pack(b, rb))},
                    outs={"d": "b32"})["d"]
    lo, hi = unpack(got)
    with np.errstate(all="ignore"):
        assert_half_bits(lo, bf16_rne(bf16_value(a) * bf16_value(b)), "mul.bf16x2 low")
        assert_half_bits(hi, bf16_rne(bf16_value(ra) * bf16_value(rb)), "mul.bf16x2 high")


# ------------------------------------------------------------------ .ftz / .sat / .relu
def test_f16_ftz_flushes_subnormal_inputs_and_results():
    a = h16([SUB16, MIN16, 3 * SUB16, -SUB16] * 8)
    b = h16([0.0, -SUB16, 0.0, -0.0] * 8)
    got = half_op("add.ftz.f16 %d, %a, %b;", a=a, b=b)
    assert got[:4].tolist() == [0x0000, 0x0400, 0x0000, 0x8000]   # -2^-24 flushes to -0; -0 + -0 = -0
    sub = half_op("sub.ftz.f16 %d, %a, %b;", a=h16([MIN16 * 1.5] * 32), b=h16([MIN16] * 32))
    assert sub[0] == 0x0000                    # 2^-15 is subnormal: flushed
    keep = half_op("sub.f16 %d, %a, %b;", a=h16([MIN16 * 1.5] * 32), b=h16([MIN16] * 32))
    assert keep[0] == 0x0200


def test_f16_sat_clamps_to_zero_one_and_nan_to_zero():
    a = h16([0.75, -3.0, 0.25, np.inf, np.nan, -0.0] + [0.5] * 26)
    b = h16([0.5, 1.0, 0.25, -np.inf, 1.0, -0.0] + [0.25] * 26)
    got = half_op("add.sat.f16 %d, %a, %b;", a=a, b=b)
    assert got[:6].tolist() == [0x3C00, 0x0000, 0x3800, 0x0000, 0x0000, 0x0000]
    assert got[6] == h16([0.75])[0]


def test_fma_relu_clamps_negative_results_to_zero():
    a = h16([2.0, 2.0, 0.0, np.nan] * 8)
    b = h16([3.0, -3.0, 1.0, 1.0] * 8)
    c = h16([1.0, 1.0, -0.0, 0.0] * 8)
    got = half_op("fma.rn.relu.f16 %d, %a, %b, %c;", a=a, b=b, c=c)
    assert got[:4].tolist() == [h16([7.0])[0], 0x0000, 0x0000, CANON_NAN]
    bf = half_op("fma.rn.relu.bf16 %d, %a, %b, %c;", t="bf16", a=bf_bits(np.array([2.0, -2.0] * 16, np.float32)),
                 b=bf_bits(np.full(32, 3.0, np.float32)), c=bf_bits(np.full(32, 1.0, np.float32)))
    assert bf16_value(bf[:2]).tolist() == [7.0, 0.0]


# ------------------------------------------------------------------ neg / abs / min / max
def test_f16_neg_abs_flip_and_clear_the_sign():
    a, _, _ = edge_bits()                      # NaNs included: only the sign bit changes
    assert (half_op("neg.f16 %d, %a;", a=a) == (a ^ 0x8000)).all()
    assert (half_op("abs.f16 %d, %a;", a=a) == (a & 0x7FFF)).all()
    assert (f16_of(half_op("neg.f16 %d, %a;", a=a))[:12] == -f16_of(a)[:12]).all()
    got = run_lanes("neg.bf16x2 %d, %a;", ins={"a": ("b32", pack(bf_bits(BF_A), bf_bits(BF_B)))},
                    outs={"d": "b32"})["d"]
    lo, hi = unpack(got)
    assert (lo == (bf_bits(BF_A) ^ 0x8000)).all() and (hi == (bf_bits(BF_B) ^ 0x8000)).all()


def test_f16_min_max_ignore_a_single_nan_and_order_signed_zeros():
    a = h16([1.0, np.nan, np.nan, -0.0, 0.0, -2.0, 3.0, np.inf] * 4)
    b = h16([2.0, 5.0, np.nan, 0.0, -0.0, -3.0, 3.0, 1.0] * 4)
    mn = half_op("min.f16 %d, %a, %b;", a=a, b=b)
    mx = half_op("max.f16 %d, %a, %b;", a=a, b=b)
    assert mn[:8].tolist() == [0x3C00, h16([5.0])[0], CANON_NAN, 0x8000, 0x8000, h16([-3.0])[0], 0x4200, 0x3C00]
    assert mx[:8].tolist() == [0x4000, h16([5.0])[0], CANON_NAN, 0x0000, 0x0000, h16([-2.0])[0], 0x4200, 0x7C00]
    nan = half_op("min.NaN.f16 %d, %a, %b;", a=a, b=b)
    assert nan[1] == CANON_NAN and nan[0] == 0x3C00


def test_bf16_min_max_match_numpy_on_float32_values():
    a, b = bf_bits(BF_A), bf_bits(BF_B)
    ok = ~(np.isnan(bf16_value(a)) | np.isnan(bf16_value(b)) | ((bf16_value(a) == 0) & (bf16_value(b) == 0)))
    got = half_op("max.bf16 %d, %a, %b;", t="bf16", a=a, b=b)
    assert (bf16_value(got)[ok] == np.maximum(bf16_value(a), bf16_value(b))[ok]).all()


# ------------------------------------------------------------------ setp
CMPS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
        "ge": np.greater_equal}


@pytest.mark.parametrize("cmp", sorted(CMPS) + ["equ", "nan", "num"])
def test_setp_f16_compares_as_float_values(cmp):
    a, b, _ = edge_bits()
    got = run_lanes(f"setp.{cmp}.f16 %p, %a, %b;", ins={"a": ("f16", a), "b": ("f16", b)},
                    outs={"p": "pred"})["p"]
    x, y = f16_of(a).astype(np.float64), f16_of(b).astype(np.float64)
    unord = np.isnan(x) | np.isnan(y)
    if cmp == "nan":
        want = unord
    elif cmp == "num":
        want = ~unord
    elif cmp == "equ":
        want = unord | (x == y)
    else:
        want = CMPS[cmp](x, y) & ~unord if cmp != "ne" else (x != y) & ~unord
    assert got.astype(bool).tolist() == want.tolist()


def test_setp_f16x2_writes_low_and_high_comparisons_to_p_and_q():
    a = pack(h16([1.0, 2.0] * 16), h16([5.0, -1.0] * 16))
    b = pack(h16([2.0, 2.0] * 16), h16([4.0, 0.0] * 16))
    out = run_lanes("setp.lt.f16x2 %p|%q, %a, %b;", ins={"a": ("b32", a), "b": ("b32", b)},
                    outs={"p": "pred", "q": "pred"})
    assert out["p"][:2].tolist() == [1, 0] and out["q"][:2].tolist() == [0, 1]


def test_setp_bf16_and_ftz_flushes_subnormal_inputs():
    a = h16([SUB16] * 32)
    b = h16([0.0] * 32)
    eq = run_lanes("setp.eq.f16 %p, %a, %b; setp.eq.ftz.f16 %q, %a, %b;", ins={"a": ("f16", a), "b": ("f16", b)},
                   outs={"p": "pred", "q": "pred"})
    assert eq["p"][0] == 0 and eq["q"][0] == 1
    got = run_lanes("setp.gt.bf16 %p, %a, %b;", ins={"a": ("bf16", bf_bits(BF_A)), "b": ("bf16", bf_bits(BF_B))},
                    outs={"p": "pred"})["p"]
    x, y = bf16_value(bf_bits(BF_A)), bf16_value(bf_bits(BF_B))
    assert got.astype(bool).tolist() == (x > y).tolist()


def test_set_with_half_types_gives_one_point_zero_in_the_destination_format():
    a = h16([1.0, 2.0, -0.0, np.nan, 5.0] + [3.0] * 27)
    b = h16([1.0, 1.0, 0.0, np.nan, 6.0] + [4.0] * 27)
    eq = (f16_of(a) == f16_of(b))
    got = run_lanes("set.eq.f16.f16 %d, %a, %b;", ins={"a": ("b16", a), "b": ("b16", b)}, outs={"d": "b16"})["d"]
    assert got.tolist() == np.where(eq, 0x3C00, 0).tolist()          # f16 1.0 or +0
    got = run_lanes("set.lt.bf16.f16 %d, %a, %b;", ins={"a": ("b16", a), "b": ("b16", b)}, outs={"d": "b16"})["d"]
    assert got.tolist() == np.where(f16_of(a) < f16_of(b), 0x3F80, 0).tolist()      # bf16 1.0
    got = run_lanes("set.gt.u32.f16 %d, %a, %b;", ins={"a": ("b16", a), "b": ("b16", b)}, outs={"d": "u32"})["d"]
    assert got.tolist() == np.where(f16_of(a) > f16_of(b), 0xFFFFFFFF, 0).tolist()


def test_set_f16x2_compares_each_half_into_its_own_half():
    lo_a, lo_b = h16([1.0] * 16 + [2.0] * 16), h16([1.0] * 32)
    hi_a, hi_b = h16([0.5] * 32), h16([0.25] * 8 + [0.5] * 24)
    got = run_lanes("set.ge.f16x2.f16x2 %d, %a, %b;", ins={"a": ("b32", pack(lo_a, hi_a)),
                                                           "b": ("b32", pack(lo_b, hi_b))}, outs={"d": "b32"})["d"]
    lo, hi = unpack(got)
    assert lo.tolist() == [0x3C00] * 32                               # 1.0 >= 1.0, 2.0 >= 1.0
    assert hi.tolist() == [0x3C00] * 32                               # 0.5 >= 0.25, 0.5 >= 0.5
    got = run_lanes("set.gt.u32.f16x2 %d, %a, %b;", ins={"a": ("b32", pack(lo_a, hi_a)),
                                                         "b": ("b32", pack(lo_b, hi_b))}, outs={"d": "u32"})["d"]
    want = np.where(f16_of(lo_a) > f16_of(lo_b), 0xFFFF, 0) | (np.where(f16_of(hi_a) > f16_of(hi_b), 0xFFFF, 0) << 16)
    assert got.tolist() == want.tolist()


# ------------------------------------------------------------------ rejected at load time
REJECTED = [
    ("ex2.approx.f16 %h0, %h1;", "ex2"),
    ("ex2.approx.ftz.bf16x2 %r0, %r1;", "ex2"),
    ("tanh.approx.f16 %h0, %h1;", "tanh"),
    ("atom.global.add.noftz.f16 %h0, [%rd0], %h1;", "atomics"),
    ("red.global.add.noftz.f16x2 [%rd0], %r1;", "atomics"),
    ("atom.global.add.noftz.bf16 %h0, [%rd0], %h1;", "atomics"),
    ("add.rz.f16 %h0, %h1, %h2;", ".rn"),
    ("min.xorsign.abs.f16 %h0, %h1, %h2;", "xorsign"),
    ("cvt.rn.relu.f16.f32 %h0, %f0;", ".relu"),
    ("add.f16 %h0, %h1, 0f3F800000;", "immediate"),
]


@pytest.mark.parametrize("line, why", REJECTED, ids=[r[0].split()[0] for r in REJECTED])
def test_unimplemented_half_instruction_is_rejected_at_load_time(line, why):
    text = (HEADER + ".visible .entry k(.param .u64 out)\n{\n.reg .b16 %h<4>;\n.reg .b32 %r<4>;\n"
            ".reg .f32 %f<2>;\n.reg .u64 %rd<2>;\nld.param.u64 %rd0, [out];\n" + line + "\nret;\n}\n")
    with pytest.raises(UnsupportedInstruction) as e:
        gpusim.launch(gpusim.load_ptx(text)["k"], 1, 32, np.zeros(4, np.uint64), mode="functional")
    assert e.value.line == 11 and why in str(e.value) and line.split()[0] in str(e.value)
