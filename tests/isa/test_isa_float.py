"""Floating-point instructions (f32 and f64): IEEE results bit for bit against numpy and exact
Fraction arithmetic, approximate functions within stated error bounds, NaN / signed-zero / subnormal
handling, .ftz, .sat, testp, copysign."""
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import as_bits32, as_bits64, bits_f32, f32_bits, f32_exact, fr, round_exact, run_lanes

F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = float(np.finfo(np.float32).tiny)       # smallest normal
SUB = 1e-40                                        # an f32 subnormal
F64_TINY = float(np.finfo(np.float64).tiny)


def f32s(values):
    return np.array(values, dtype=np.float32)


def random_f32(rng, n=32, spread=20):
    """Random normal f32 values over a range of magnitudes, both signs."""
    m = rng.uniform(1, 2, n) * np.exp2(rng.integers(-spread, spread, n)) * rng.choice([-1, 1], n)
    return m.astype(np.float32)


def random_f64(rng, n=32, spread=60):
    m = rng.uniform(1, 2, n) * np.exp2(rng.integers(-spread, spread, n).astype(np.float64))
    return m * rng.choice([-1, 1], n)


def f32_op(body, **ins):
    return run_lanes(body, ins={k: ("f32", f32s(v)) for k, v in ins.items()}, outs={"d": "f32"})["d"]


def f64_op(body, **ins):
    return run_lanes(body, ins={k: ("f64", np.asarray(v, np.float64)) for k, v in ins.items()},
                     outs={"d": "f64"})["d"]


def assert_bits32(got, want, what=""):
    g, w = as_bits32(got), as_bits32(want)
    bad = np.nonzero(g != w)[0]
    assert bad.size == 0, (f"{what}: lanes {bad.tolist()[:5]} got {[hex(int(x)) for x in g[bad][:5]]} "
                           f"want {[hex(int(x)) for x in w[bad][:5]]}")


def assert_bits64(got, want, what=""):
    g, w = as_bits64(got), as_bits64(want)
    bad = np.nonzero(g != w)[0]
    assert bad.size == 0, (f"{what}: lanes {bad.tolist()[:5]} got {[hex(int(x)) for x in g[bad][:5]]} "
                           f"want {[hex(int(x)) for x in w[bad][:5]]}")


# ------------------------------------------------------------------ add / sub / mul: round to nearest even
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_f32_arith_rn_is_bit_exact_with_numpy(op, rng):
    a, b = random_f32(rng), random_f32(rng)
    a[:4] = [1.0, 1e30, 3.0, F32_MAX]
    b[:4] = [2**-24, 1e30, 1 / 3, F32_MAX]               # a tie, overflow to inf, inexact, overflow
    got = f32_op(f"{op}.rn.f32 %d, %a, %b;", a=a, b=b)
    with np.errstate(over="ignore"):
        want = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](a, b)
    assert_bits32(got, want, op)


def test_f32_add_without_rounding_modifier_rounds_to_nearest(rng):
    a, b = random_f32(rng), random_f32(rng)
    assert_bits32(f32_op("add.f32 %d, %a, %b;", a=a, b=b), a + b)
    assert_bits32(f32_op("mul.f32 %d, %a, %b;", a=a, b=b), a * b)


def test_f32_mul_gives_exact_subnormal_results(rng):
    a = random_f32(rng, spread=3) * np.float32(2**-70)
    b = random_f32(rng, spread=3) * np.float32(2**-60)
    got = f32_op("mul.rn.f32 %d, %a, %b;", a=a, b=b)
    assert_bits32(got, a * b)
    assert (np.abs(got[got != 0]) < F32_TINY).any()


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
@pytest.mark.parametrize("op", ["add", "mul"])
def test_f32_directed_rounding_matches_exact_reference(op, mode, rng):
    a, b = random_f32(rng, spread=8), random_f32(rng, spread=8)
    a[:4] = [1.0, -1.0, 1.0, 3.0]
    b[:4] = [-(2.0**-100), 2.0**-100, 2.0**-30, -(2.0**-40)]   # sums far below an ulp
    got = f32_op(f"{op}.{mode}.f32 %d, %a, %b;", a=a, b=b)
    want = [f32_exact(fr(x) + fr(y) if op == "add" else fr(x) * fr(y), mode) for x, y in zip(a, b)]
    assert_bits32(got, f32s(want), f"{op}.{mode}")


# ------------------------------------------------------------------ fma: one rounding
def test_fma_f32_rounds_once():
    # a*b = 1 + 2^-11 + 2^-24 exactly; rounding the product first loses the 2^-24 (tie to even)
    a = np.float32(1 + 2**-12)
    c = np.float32(-1.0)
    got = f32_op("fma.rn.f32 %d, %a, %b, %c;", a=np.full(32, a), b=np.full(32, a), c=np.full(32, c))
    fused = f32_exact(fr(a) * fr(a) + fr(c))
    double_rounded = np.float32(a * a) + c
    assert fused != double_rounded                      # the case tells the two apart
    assert_bits32(got, np.full(32, fused), "fma.rn.f32")


def test_fma_f32_random_is_exactly_rounded(rng):
    a, b = random_f32(rng, spread=10), random_f32(rng, spread=10)
    c = -(a * b) * rng.uniform(0.9, 1.1, 32).astype(np.float32)     # heavy cancellation
    got = f32_op("fma.rn.f32 %d, %a, %b, %c;", a=a, b=b, c=c)
    want = f32s([f32_exact(fr(x) * fr(y) + fr(z)) for x, y, z in zip(a, b, c)])
    assert_bits32(got, want, "fma.rn.f32")


def test_mad_rn_f32_is_fused(rng):
    a = np.full(32, np.float32(1 + 2**-12))
    got = f32_op("mad.rn.f32 %d, %a, %a, %c;", a=a, c=np.full(32, -1.0))
    assert_bits32(got, np.full(32, f32_exact(fr(a[0]) ** 2 - 1)), "mad.rn.f32")


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_fma_f32_directed_rounding_matches_exact_reference(mode, rng):
    a, b, c = random_f32(rng, spread=6), random_f32(rng, spread=6), random_f32(rng, spread=6)
    got = f32_op(f"fma.{mode}.f32 %d, %a, %b, %c;", a=a, b=b, c=c)
    want = f32s([f32_exact(fr(x) * fr(y) + fr(z), mode) for x, y, z in zip(a, b, c)])
    assert_bits32(got, want, f"fma.{mode}.f32")


def test_fma_f64_rounds_once(rng):
    a, b = random_f64(rng, spread=20), random_f64(rng, spread=20)
    c = -(a * b) * rng.uniform(0.99, 1.01, 32)
    a[0] = b[0] = 1 + 2.0**-30
    c[0] = -1.0
    got = f64_op("fma.rn.f64 %d, %a, %b, %c;", a=a, b=b, c=c)
    want = np.array([round_exact(fr(x) * fr(y) + fr(z), "f64") for x, y, z in zip(a, b, c)])
    assert want[0] != a[0] * b[0] + c[0]
    assert_bits64(got, want, "fma.rn.f64")


# ------------------------------------------------------------------ div / sqrt / rcp: correctly rounded
def test_div_rn_f32_is_bit_exact(rng):
    a, b = random_f32(rng), random_f32(rng)
    a[:5] = [1.0, 0.0, 1.0, -1.0, 0.0]
    b[:5] = [3.0, 0.0, 0.0, 0.0, -5.0]
    got = f32_op("div.rn.f32 %d, %a, %b;", a=a, b=b)
    with np.errstate(all="ignore"):
        want = a / b
    assert np.isnan(got[1]) and np.isnan(want[1])
    got[1] = want[1] = 0
    assert_bits32(got, want, "div.rn.f32")


def test_sqrt_rn_f32_is_bit_exact(rng):
    a = np.abs(random_f32(rng, spread=60))
    a[:4] = [2.0, 0.0, np.float32(SUB), np.inf]
    assert_bits32(f32_op("sqrt.rn.f32 %d, %a;", a=a), np.sqrt(a), "sqrt.rn.f32")


def test_sqrt_of_negative_is_nan_and_of_minus_zero_is_minus_zero():
    a = f32s([-1.0, -0.0, -np.inf, 4.0] * 8)
    got = f32_op("sqrt.rn.f32 %d, %a;", a=a)
    assert np.isnan(got[0]) and np.isnan(got[2])
    assert as_bits32(got)[1] == 0x80000000 and got[3] == 2.0


def test_rcp_rn_f32_is_bit_exact(rng):
    a = random_f32(rng, spread=40)
    assert_bits32(f32_op("rcp.rn.f32 %d, %a;", a=a), np.float32(1) / a, "rcp.rn.f32")


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_f64_arith_rn_is_bit_exact_with_numpy(op, rng):
    a, b = random_f64(rng), random_f64(rng)
    got = f64_op(f"{op}.rn.f64 %d, %a, %b;", a=a, b=b)
    want = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op](a, b)
    assert_bits64(got, want, f"{op}.f64")


def test_sqrt_and_rcp_rn_f64_are_bit_exact(rng):
    a = np.abs(random_f64(rng, spread=300))
    assert_bits64(f64_op("sqrt.rn.f64 %d, %a;", a=a), np.sqrt(a), "sqrt.rn.f64")
    assert_bits64(f64_op("rcp.rn.f64 %d, %a;", a=a), 1.0 / a, "rcp.rn.f64")


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_f64_add_directed_rounding_matches_exact_reference(mode, rng):
    a, b = random_f64(rng, spread=10), random_f64(rng, spread=80)
    got = f64_op(f"add.{mode}.f64 %d, %a, %b;", a=a, b=b)
    want = np.array([round_exact(fr(x) + fr(y), "f64", mode) for x, y in zip(a, b)])
    assert_bits64(got, want, f"add.{mode}.f64")


def test_f64_min_max_neg_abs(rng):
    a, b = random_f64(rng), random_f64(rng)
    out = run_lanes("min.f64 %d1, %a, %b; max.f64 %d2, %a, %b; neg.f64 %d3, %a; abs.f64 %d4, %a;",
                    ins={"a": ("f64", a), "b": ("f64", b)}, outs={f"d{k}": "f64" for k in range(1, 5)})
    assert_bits64(out["d1"], np.minimum(a, b))
    assert_bits64(out["d2"], np.maximum(a, b))
    assert_bits64(out["d3"], -a)
    assert_bits64(out["d4"], np.abs(a))


# ------------------------------------------------------------------ approximate functions
def _rel_err(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.maximum(np.abs(want), 1e-30)


APPROX = [
    # op, input generator, reference, error kind, bound (PTX ISA: rcp/sqrt/rsqrt ~1 ulp, ex2 2^-22.5 rel,
    # lg2 2^-22.6 abs near 1, sin/cos 2^-20.9 abs on [-pi, pi]; bounds here are slightly looser)
    ("rcp.approx.f32", lambda r: r.uniform(0.01, 100, 32) * r.choice([-1, 1], 32), lambda x: 1 / x, "rel",
     2**-22),
    ("rcp.approx.ftz.f32", lambda r: r.uniform(0.01, 100, 32), lambda x: 1 / x, "rel", 2**-22),
    ("sqrt.approx.f32", lambda r: r.uniform(0.001, 1000, 32), np.sqrt, "rel", 2**-22),
    ("rsqrt.approx.f32", lambda r: r.uniform(0.001, 1000, 32), lambda x: 1 / np.sqrt(x), "rel", 2**-22),
    ("rsqrt.approx.ftz.f64", lambda r: r.uniform(0.001, 1000, 32), lambda x: 1 / np.sqrt(x), "rel", 2**-22),
    ("ex2.approx.f32", lambda r: r.uniform(-60, 60, 32), np.exp2, "rel", 2**-21),
    ("ex2.approx.ftz.f32", lambda r: r.uniform(-10, 10, 32), np.exp2, "rel", 2**-21),
    ("lg2.approx.f32", lambda r: r.uniform(0.5, 2, 32), np.log2, "abs", 2**-21),
    ("lg2.approx.ftz.f32", lambda r: np.exp2(r.uniform(-100, 100, 32)), np.log2, "abs1", 2**-21),
    ("sin.approx.f32", lambda r: r.uniform(-np.pi, np.pi, 32), np.sin, "abs", 2**-20),
    ("cos.approx.f32", lambda r: r.uniform(-np.pi, np.pi, 32), np.cos, "abs", 2**-20),
    ("sin.approx.ftz.f32", lambda r: r.uniform(-np.pi, np.pi, 32), np.sin, "abs", 2**-20),
    ("tanh.approx.f32", lambda r: r.uniform(-5, 5, 32), np.tanh, "rel", 2**-10),
]


@pytest.mark.parametrize("op, gen, ref, kind, bound", APPROX, ids=[a[0] for a in APPROX])
def test_approx_function_within_stated_error(op, gen, ref, kind, bound, rng):
    t = op.rsplit(".", 1)[1]
    x = gen(rng).astype(np.float32 if t == "f32" else np.float64)
    got = run_lanes(f"{op} %d, %a;", ins={"a": (t, x)}, outs={"d": t})["d"]
    want = ref(x.astype(np.float64))
    err = np.abs(got.astype(np.float64) - want)
    if kind == "rel":
        err = _rel_err(got, want)
    elif kind == "abs1":                       # absolute near 1, relative for large results
        err = err / np.maximum(np.abs(want), 1.0)
    worst = int(np.argmax(err))
    assert err.max() <= bound, f"{op}({x[worst]!r}) = {got[worst]!r}, want {want[worst]!r}: err {err.max():.3g}"


SPECIAL_IN = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 4.0]
SPECIAL_OUT = {   # expected results for SPECIAL_IN; "nan" means any NaN; zeros are compared with their sign
    "ex2.approx.f32": [1.0, 1.0, np.inf, 0.0, "nan", 0.5, 2.0, 16.0],
    "lg2.approx.f32": [-np.inf, -np.inf, np.inf, "nan", "nan", "nan", 0.0, 2.0],
    "rsqrt.approx.f32": [np.inf, -np.inf, 0.0, "nan", "nan", "nan", 1.0, 0.5],
    "rcp.approx.f32": [np.inf, -np.inf, 0.0, -0.0, "nan", -1.0, 1.0, 0.25],
    "sqrt.approx.f32": [0.0, -0.0, np.inf, "nan", "nan", "nan", 1.0, 2.0],
    "sin.approx.f32": [0.0, -0.0, "nan", "nan", "nan", None, None, None],
    "cos.approx.f32": [1.0, 1.0, "nan", "nan", "nan", None, None, None],
}


@pytest.mark.parametrize("op", sorted(SPECIAL_OUT))
def test_approx_function_special_values(op):
    x = f32s(SPECIAL_IN * 4)
    got = run_lanes(f"{op} %d, %a;", ins={"a": ("f32", x)}, outs={"d": "f32"})["d"]
    for k, want in enumerate(SPECIAL_OUT[op]):
        if want is None:
            continue
        if want == "nan":
            assert np.isnan(got[k]), f"{op}({x[k]}) = {got[k]}, want NaN"
        else:
            assert f32_bits(got[k]) == f32_bits(want), f"{op}({x[k]}) = {got[k]!r}, want {want!r}"


@pytest.mark.parametrize("op", ["div.approx.f32", "div.full.f32"])
def test_approx_division_within_two_ulp(op, rng):
    a, b = random_f32(rng, spread=30), random_f32(rng, spread=30)
    got = f32_op(f"{op} %d, %a, %b;", a=a, b=b)
    want = a.astype(np.float64) / b.astype(np.float64)
    assert (_rel_err(got, want) <= 2**-22).all()


# ------------------------------------------------------------------ min / max, NaN, signs
def test_min_max_f32_return_the_number_when_one_input_is_nan(rng):
    a, b = random_f32(rng), random_f32(rng)
    a[:8] = [np.nan, 1.0, np.nan, -np.inf, np.inf, -3.0, np.nan, 2.0]
    b[:8] = [1.0, np.nan, np.nan, np.nan, 5.0, np.nan, -np.inf, 7.0]
    out = run_lanes("min.f32 %lo, %a, %b; max.f32 %hi, %a, %b;", ins={"a": ("f32", a), "b": ("f32", b)},
                    outs={"lo": "f32", "hi": "f32"})
    both_nan = np.isnan(a) & np.isnan(b)
    assert np.isnan(out["lo"][both_nan]).all() and np.isnan(out["hi"][both_nan]).all()
    assert_bits32(out["lo"][~both_nan], np.fmin(a, b)[~both_nan], "min.f32")
    assert_bits32(out["hi"][~both_nan], np.fmax(a, b)[~both_nan], "max.f32")


def test_min_max_nan_modifier_propagates_nan():
    a = f32s([np.nan, 1.0, 2.0, -1.0] * 8)
    b = f32s([1.0, np.nan, 3.0, -2.0] * 8)
    out = run_lanes("min.NaN.f32 %lo, %a, %b; max.NaN.f32 %hi, %a, %b;", ins={"a": ("f32", a), "b": ("f32", b)},
                    outs={"lo": "f32", "hi": "f32"})
    assert np.isnan(out["lo"][:2]).all() and np.isnan(out["hi"][:2]).all()
    assert out["lo"][2] == 2 and out["hi"][2] == 3 and out["lo"][3] == -2 and out["hi"][3] == -1


def test_neg_and_abs_f32_flip_and_clear_only_the_sign_bit():
    a = f32s([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, SUB, -SUB] * 4)
    out = run_lanes("neg.f32 %n, %a; abs.f32 %b, %a;", ins={"a": ("f32", a)}, outs={"n": "f32", "b": "f32"})
    assert (as_bits32(out["n"]) == (as_bits32(a) ^ 0x80000000)).all()
    assert (as_bits32(out["b"]) == (as_bits32(a) & 0x7FFFFFFF)).all()


def test_neg_and_abs_f32_of_nan_stay_nan():
    a = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF] * 8, np.uint32).view(np.float32)
    out = run_lanes("neg.f32 %n, %a; abs.f32 %b, %a;", ins={"a": ("f32", a)}, outs={"n": "f32", "b": "f32"})
    assert np.isnan(out["n"]).all() and np.isnan(out["b"]).all()


def test_neg_f64_of_zero_gives_minus_zero():
    out = f64_op("neg.f64 %d, %a;", a=np.zeros(32))
    assert (as_bits64(out) == 0x8000000000000000).all()


def test_add_of_opposite_zeros_is_plus_zero_in_rn_and_minus_zero_in_rm():
    a, b = np.full(32, 0.0), np.full(32, -0.0)
    assert (as_bits32(f32_op("add.rn.f32 %d, %a, %b;", a=a, b=b)) == 0).all()
    assert (as_bits32(f32_op("add.rm.f32 %d, %a, %b;", a=a, b=b)) == 0x80000000).all()


def test_copysign_takes_magnitude_of_second_and_sign_of_first(rng):
    a = random_f32(rng)
    b = random_f32(rng)
    a[:4] = [-0.0, 0.0, -1.0, 1.0]
    b[:4] = [5.0, -5.0, np.inf, -np.inf]
    got = f32_op("copysign.f32 %d, %a, %b;", a=a, b=b)
    assert_bits32(got, np.copysign(b, a), "copysign.f32")
    got64 = f64_op("copysign.f64 %d, %a, %b;", a=a.astype(np.float64), b=b.astype(np.float64))
    assert_bits64(got64, np.copysign(b.astype(np.float64), a.astype(np.float64)), "copysign.f64")


# ------------------------------------------------------------------ .ftz / .sat
def test_ftz_flushes_subnormal_inputs_keeping_sign():
    a = f32s([SUB, -SUB, 1.0, F32_TINY] * 8)
    b = np.ones(32, np.float32)
    got = f32_op("mul.ftz.f32 %d, %a, %b;", a=a, b=b)
    assert as_bits32(got)[:4].tolist() == [0, 0x80000000, f32_bits(1.0), f32_bits(F32_TINY)]
    plain = f32_op("mul.rn.f32 %d, %a, %b;", a=a, b=b)
    assert_bits32(plain, a, "mul without ftz keeps subnormals")


def test_ftz_flushes_subnormal_results():
    a = f32s([1e-20, -1e-20, 2e-19, 2.0**-63] * 8)
    b = f32s([1e-20, 1e-20, 2e-19, 2.0**-63] * 8)        # products 1e-40, -1e-40, 4e-38, 2^-126
    got = f32_op("mul.ftz.f32 %d, %a, %b;", a=a, b=b)
    assert as_bits32(got)[:4].tolist() == [0, 0x80000000, f32_bits(np.float32(2e-19) * np.float32(2e-19)),
                                           f32_bits(2.0**-126)]
    plain = f32_op("mul.rn.f32 %d, %a, %b;", a=a, b=b)
    assert_bits32(plain, a * b)
    assert 0 < plain[0] < F32_TINY


def test_ftz_on_add_sqrt_and_fma(rng):
    a = f32s([SUB, -SUB, 2 * SUB, 4.0] * 8)
    z = np.zeros(32, np.float32)
    add = f32_op("add.ftz.f32 %d, %a, %b;", a=a, b=z)
    assert add[:3].tolist() == [0, 0, 0] and add[3] == 4
    sq = f32_op("sqrt.rn.ftz.f32 %d, %a;", a=np.abs(a))
    assert sq[0] == 0 and sq[3] == 2
    fm = f32_op("fma.rn.ftz.f32 %d, %a, %b, %c;", a=a, b=np.ones(32), c=z)
    assert fm[:3].tolist() == [0, 0, 0]


@pytest.mark.parametrize("op", ["add", "mul", "fma"])
def test_sat_clamps_to_unit_interval_and_nan_to_zero(op):
    a = f32s([0.75, -3.0, np.nan, 0.25, 2.0, 0.5, np.inf, -np.inf] * 4)
    b = f32s([0.5, 1.0, 1.0, 0.25, 0.25, 1.0, 1.0, 1.0] * 4)
    c = np.zeros(32, np.float32)
    if op == "fma":
        got = f32_op("fma.rn.sat.f32 %d, %a, %b, %c;", a=a, b=b, c=c)
        want = a * b
    else:
        got = f32_op(f"{op}.rn.sat.f32 %d, %a, %b;", a=a, b=b)
        want = a + b if op == "add" else a * b
    want = np.where(np.isnan(want), 0, np.clip(want, 0, 1)).astype(np.float32)
    assert_bits32(got, want, f"{op}.sat")


# ------------------------------------------------------------------ testp
TESTP_VALUES = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, SUB, -SUB, F32_TINY, F32_MAX, -F32_MAX]


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("prop", ["finite", "infinite", "number", "notanumber", "normal", "subnormal"])
def test_testp_classifies_values(prop, t):
    vals = TESTP_VALUES + ([1e-310, -1e-310] if t == "f64" else [SUB / 2, 3e-39])
    x = np.resize(np.array(vals, np.float32 if t == "f32" else np.float64), 32)
    tiny = F32_TINY if t == "f32" else F64_TINY

    def ref(v):
        v = float(v)
        return {
            "finite": math.isfinite(v), "infinite": math.isinf(v), "number": not math.isnan(v),
            "notanumber": math.isnan(v),
            "normal": math.isfinite(v) and (abs(v) >= tiny or v == 0),     # zeros count as normal
            "subnormal": v != 0 and abs(v) < tiny,
        }[prop]

    got = run_lanes(f"testp.{prop}.{t} %p, %a;", ins={"a": (t, x)}, outs={"p": "pred"})["p"]
    assert got.tolist() == [int(ref(v)) for v in x]


# ------------------------------------------------------------------ immediates and f32 <-> f64 mixing
def test_f32_hex_immediate_operands():
    a = f32s(np.arange(32))
    got = f32_op("add.f32 %d, %a, 0f3FC00000;", a=a)     # + 1.5
    assert_bits32(got, a + np.float32(1.5))
    got = f32_op("mul.f32 %d, %a, 0fBF800000;", a=a)     # * -1
    assert_bits32(got, -a)


def test_f64_hex_immediate_operand():
    a = np.arange(32, dtype=np.float64)
    got = f64_op("add.f64 %d, %a, 0d400921FB54442D18;", a=a)
    assert_bits64(got, a + math.pi)


def test_f32_result_bits_round_trip_through_a_b32_move():
    a = f32s(np.arange(32) - 16.5)
    got = run_lanes("neg.f32 %f, %a; mov.b32 %d, %f;", ins={"a": ("f32", a)}, outs={"d": "u32"},
                    regs={"f": "f32"})["d"]
    assert (got == as_bits32(-a)).all()
    assert bits_f32(int(got[0])) == 16.5


def test_fraction_reference_sanity():
    # the exact-rounding helper itself: a tie rounds to even, and f32 overflow rounds to inf
    assert round_exact(Fraction(1) + Fraction(2) ** -24, "f32") == 1.0
    assert round_exact(Fraction(1) + Fraction(3, 2**25), "f32") == 1 + 2.0**-23
    assert round_exact(Fraction(2) ** 128, "f32") == math.inf
    assert round_exact(Fraction(2) ** 128, "f32", "rz") == F32_MAX
