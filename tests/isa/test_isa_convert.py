"""cvt: float -> int with integer rounding and saturation, int -> float with rounding, f64 <-> f32,
integer width changes with sign extension and .sat, f16 and bf16 conversions."""
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import as_bits32, as_bits64, f32_bits, fr, round_exact, run_lanes

INT_RANGE = {"s16": (-(2**15), 2**15 - 1), "u16": (0, 2**16 - 1), "s32": (-(2**31), 2**31 - 1),
             "u32": (0, 2**32 - 1), "s64": (-(2**63), 2**63 - 1), "u64": (0, 2**64 - 1)}


def cvt(instr, st, dt, values):
    return run_lanes(f"{instr} %d, %a;", ins={"a": (st, values)}, outs={"d": dt})["d"]


def round_int(x: float, mode: str) -> int:
    """Exact integer rounding of a finite float."""
    q = Fraction(x)
    fl = q.numerator // q.denominator
    if mode == "rzi":
        return int(math.trunc(q))
    if mode == "rmi":
        return fl
    if mode == "rpi":
        return -((-q.numerator) // q.denominator)
    rem = q - fl                                          # rni: nearest, ties to even
    return fl + (1 if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2) else 0)


def f2i_ref(x: float, dt: str, mode: str) -> int:
    if math.isnan(x):
        return 0
    lo, hi = INT_RANGE[dt]
    if math.isinf(x):
        return hi if x > 0 else lo
    return min(max(round_int(x, mode), lo), hi)


HALVES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, -2.4, -2.6, 0.0, -0.0, 1.0, -1.0, 7.5, -7.5,
          1e-30, -1e-30, 123456.7, -123456.7, 8388607.5, -8388607.5, 0.49999997, -0.49999997,
          3.0, 4.5, 5.5, -5.5, 1e9, -1e9, 0.75, -0.25]


@pytest.mark.parametrize("mode", ["rni", "rzi", "rmi", "rpi"])
@pytest.mark.parametrize("dt", ["s32", "s64"])
def test_cvt_f32_to_signed_int_rounds_per_mode(mode, dt):
    x = np.array(HALVES, np.float32)
    got = cvt(f"cvt.{mode}.{dt}.f32", "f32", dt, x)
    assert got.tolist() == [f2i_ref(float(v), dt, mode) for v in x]


@pytest.mark.parametrize("mode", ["rni", "rzi", "rmi", "rpi"])
def test_cvt_f64_to_u32_rounds_per_mode(mode):
    x = np.abs(np.array(HALVES, np.float64)) + np.arange(32) * 1000.25
    got = cvt(f"cvt.{mode}.u32.f64", "f64", "u32", x)
    assert got.tolist() == [f2i_ref(float(v), "u32", mode) for v in x]


@pytest.mark.parametrize("dt", ["s32", "u32", "s64", "u64", "s16", "u16"])
def test_cvt_float_to_int_saturates_on_overflow_and_nan_gives_zero(dt):
    vals = [3e9, -3e9, 5e9, -5e9, np.inf, -np.inf, np.nan, -np.nan, 1e19, 2e19, -1e19, 1e30, -1e30,
            40000.0, -40000.0, 70000.0, -1.0, -0.9, 65535.9, 2147483520.0, -2147483648.0, 4294967040.0,
            9.2e18, -9.3e18, 1.8e19, 32767.5, -32768.5, 1.0, 0.0, -0.0, 12.5, -12.5]
    x = np.array(vals, np.float32)
    got = cvt(f"cvt.rzi.{dt}.f32", "f32", dt, x)
    assert got.tolist() == [f2i_ref(float(v), dt, "rzi") for v in x]
    x64 = np.array(vals, np.float64)
    got = cvt(f"cvt.rni.{dt}.f64", "f64", dt, x64)
    assert got.tolist() == [f2i_ref(float(v), dt, "rni") for v in x64]


# ------------------------------------------------------------------ int -> float
def _i2f_values(st, rng):
    lo, hi = INT_RANGE[st]
    edge = [0, 1, -1, lo, hi, 16777216, 16777217, 16777219, -16777217, 2**24 + 3, 2**53 + 1, 2**53 + 3,
            2**60 + 2**37 - 1, -(2**60 + 2**37 - 1), 2**63 - 1, 2**64 - 1, 2**62 + 2**39 + 1, 123456789]
    edge = [v for v in edge if lo <= v <= hi]
    rnd = [int(rng.integers(lo, hi, dtype=np.int64 if st[0] == "s" else np.uint64, endpoint=True))
           for _ in range(32 - len(edge))]
    return edge + rnd


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
@pytest.mark.parametrize("st", ["s32", "u32", "s64", "u64"])
def test_cvt_int_to_f32_rounds_per_mode(st, mode, rng):
    v = _i2f_values(st, rng)
    got = cvt(f"cvt.{mode}.f32.{st}", st, "f32", np.array(v, dtype=np.int64 if st[0] == "s" else np.uint64))
    want = np.array([round_exact(x, "f32", mode) for x in v], np.float32)
    assert (as_bits32(got) == as_bits32(want)).all(), [
        (x, float(g), float(w)) for x, g, w in zip(v, got, want) if f32_bits(g) != f32_bits(w)][:4]


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
@pytest.mark.parametrize("st", ["s64", "u64"])
def test_cvt_int64_to_f64_rounds_per_mode(st, mode, rng):
    v = _i2f_values(st, rng)
    got = cvt(f"cvt.{mode}.f64.{st}", st, "f64", np.array(v, dtype=np.int64 if st[0] == "s" else np.uint64))
    want = np.array([round_exact(x, "f64", mode) for x in v])
    bad = [(x, float(g), float(w)) for x, g, w in zip(v, got, want) if g != w]
    assert not bad, bad[:4]


def test_cvt_s32_to_f64_is_exact(rng):
    v = rng.integers(-(2**31), 2**31, 32)
    got = cvt("cvt.rn.f64.s32", "s32", "f64", v.astype(np.int32))
    assert got.tolist() == [float(x) for x in v]


# ------------------------------------------------------------------ f64 <-> f32
def _f64_between_floats(rng):
    base = rng.uniform(1, 2, 32) * np.exp2(rng.integers(-30, 30, 32)) * rng.choice([-1, 1], 32)
    vals = list(base)
    vals[:10] = [1 + 2.0**-24, 1 + 3 * 2.0**-25, -(1 + 2.0**-24), 1e39, -1e39, 1e-46, -1e-46, 3.4e38 * 1.0000001,
                 1.5e-45 * 0.75, 1 / 3]
    return np.array(vals, np.float64)


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_cvt_f64_to_f32_rounds_per_mode(mode, rng):
    x = _f64_between_floats(rng)
    got = cvt(f"cvt.{mode}.f32.f64", "f64", "f32", x)
    want = np.array([round_exact(v, "f32", mode) for v in x], np.float32)
    assert (as_bits32(got) == as_bits32(want)).all(), [
        (float(v), float(g), float(w)) for v, g, w in zip(x, got, want) if f32_bits(g) != f32_bits(w)][:4]


def test_cvt_f32_to_f64_is_exact_including_specials():
    x = np.array([1.5, -0.0, np.inf, -np.inf, 1e-40, 3.4e38, 1 / 3, -7.25] * 4, np.float32)
    got = cvt("cvt.f64.f32", "f32", "f64", x)
    assert (as_bits64(got) == as_bits64(x.astype(np.float64))).all()
    got = cvt("cvt.f64.f32", "f32", "f64", np.full(32, np.nan, np.float32))
    assert np.isnan(got).all()


def test_cvt_ftz_f32_to_f64_flushes_subnormal_input():
    x = np.array([1e-40, -1e-40, 1.0, 2e-38] * 8, np.float32)
    got = cvt("cvt.ftz.f64.f32", "f32", "f64", x)
    assert as_bits64(got)[:4].tolist() == [0, 0x8000000000000000, as_bits64([1.0])[0],
                                           as_bits64([np.float64(np.float32(2e-38))])[0]]


@pytest.mark.parametrize("mode", ["rni", "rzi", "rmi", "rpi"])
def test_cvt_f32_to_f32_rounds_to_integral(mode):
    x = np.array(HALVES, np.float32)
    got = cvt(f"cvt.{mode}.f32.f32", "f32", "f32", x)
    want = [float(round_int(float(v), mode)) for v in x]
    assert [abs(g) for g in got.tolist()] == [abs(w) for w in want]
    assert all(np.signbit(g) == np.signbit(v) for g, v in zip(got, x))     # sign is preserved (-0.25 -> -0)


def test_cvt_sat_f32_clamps_to_unit_interval():
    x = np.array([-1.0, 0.5, 2.0, np.nan, 1.0, 0.0, np.inf, -np.inf] * 4, np.float32)
    got = cvt("cvt.sat.f32.f32", "f32", "f32", x)
    assert got[:8].tolist() == [0.0, 0.5, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]


# ------------------------------------------------------------------ integer widths
def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def test_cvt_sign_extends_narrow_signed_sources():
    h = np.array([0x8000, 0x7FFF, 0xFFFF, 0x1234, 0x00FF, 0x0080, 0x007F, 0xFF80] * 4, np.uint16)
    out = run_lanes("cvt.s32.s16 %a, %h; cvt.u32.u16 %b, %h; cvt.s32.s8 %c, %h; cvt.u32.u8 %d, %h;"
                    " cvt.s64.s16 %e, %h;", ins={"h": ("b16", h)},
                    outs={"a": "s32", "b": "u32", "c": "s32", "d": "u32", "e": "s64"})
    hv = [int(x) for x in h]
    assert out["a"].tolist() == [wrap(x, 16, True) for x in hv]
    assert out["b"].tolist() == hv
    assert out["c"].tolist() == [wrap(x, 8, True) for x in hv]
    assert out["d"].tolist() == [x & 0xFF for x in hv]
    assert out["e"].tolist() == [wrap(x, 16, True) for x in hv]


def test_cvt_s64_s32_sign_extends_and_u64_u32_zero_extends(rng):
    r = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    out = run_lanes("cvt.s64.s32 %a, %r; cvt.u64.u32 %b, %r;", ins={"r": ("b32", r)}, outs={"a": "s64", "b": "u64"})
    assert out["a"].tolist() == [wrap(int(x), 32, True) for x in r]
    assert out["b"].tolist() == [int(x) for x in r]


def test_cvt_narrowing_truncates_without_sat(rng):
    r = rng.integers(-(2**63), 2**63, 32, dtype=np.int64)
    out = run_lanes("cvt.u32.u64 %a, %r; cvt.s32.s64 %b, %r; cvt.u16.u64 %c, %r; cvt.s16.s64 %d, %r;",
                    ins={"r": ("s64", r)}, outs={"a": "u32", "b": "s32", "c": "u16", "d": "s16"})
    rv = [int(x) for x in r]
    assert out["a"].tolist() == [x & 0xFFFFFFFF for x in rv]
    assert out["b"].tolist() == [wrap(x, 32, True) for x in rv]
    assert out["c"].tolist() == [x & 0xFFFF for x in rv]
    assert out["d"].tolist() == [wrap(x, 16, True) for x in rv]


@pytest.mark.parametrize("dt, st", [("s16", "s32"), ("u16", "s32"), ("u16", "u32"), ("s32", "u32"), ("u32", "s32"),
                                    ("s32", "s64"), ("u32", "s64"), ("u32", "u64"), ("s64", "u64"),
                                    ("u64", "s64"), ("s16", "u64"), ("u16", "s64")])
def test_cvt_sat_clamps_integers_to_destination_range(dt, st, rng):
    lo_s, hi_s = INT_RANGE[st]
    v = [0, 1, -1, 40000, -40000, 70000, 2**31, -(2**31) - 1, 2**32, 2**63 - 1, -(2**63), 2**64 - 1, 32767, -32768,
         65535, 65536, 2**31 - 1, -(2**31), 2**32 - 1, 123, -123, 2**40, -(2**40), 2**62]
    v = [x for x in v if lo_s <= x <= hi_s]
    v += [int(rng.integers(lo_s, hi_s, dtype=np.int64 if st[0] == "s" else np.uint64)) for _ in range(32 - len(v))]
    x = np.array(v, np.int64 if st[0] == "s" else np.uint64).astype({"s32": np.int32, "u32": np.uint32,
                                                                    "s64": np.int64, "u64": np.uint64}[st])
    got = cvt(f"cvt.sat.{dt}.{st}", st, dt, x)
    lo, hi = INT_RANGE[dt]
    assert got.tolist() == [min(max(int(a), lo), hi) for a in x]


# ------------------------------------------------------------------ f16 / bf16
F16_VALUES = [1.0, -2.5, 65504.0, 65520.0, 70000.0, -70000.0, 6.1e-5, 5.96e-8, 2.98e-8, 1e-8, 1 / 3, -1 / 3,
              1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-11 + 2**-20, 2049.0, 2051.0, 0.0, -0.0, np.inf, -np.inf,
              3.14159, 1e-5, -1e-6, 100.0625, 0.1, 4097.0, 6e-8, 1.5e-7, 65519.99, 1024.5, 2**-14 * 0.999]


def f16_bits_ref(x, mode="rn"):
    return int(np.float16(round_exact(x, "f16", mode)).view(np.uint16))


def bf16_bits_ref(x, mode="rn"):
    return f32_bits(round_exact(x, "bf16", mode)) >> 16


def test_cvt_rn_f16_f32_rounds_to_nearest_even():
    x = np.array(F16_VALUES, np.float32)
    got = cvt("cvt.rn.f16.f32", "f32", "f16", x)
    assert [hex(int(g)) for g in got] == [hex(f16_bits_ref(float(v))) for v in x]
    with np.errstate(over="ignore"):
        assert (got == x.astype(np.float16).view(np.uint16)).all()  # numpy agrees


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_cvt_f16_f32_directed_rounding(mode):
    x = np.array(F16_VALUES, np.float32)
    got = cvt(f"cvt.{mode}.f16.f32", "f32", "f16", x)
    assert [hex(int(g)) for g in got] == [hex(f16_bits_ref(float(v), mode)) for v in x]


def test_cvt_f32_f16_is_exact_for_every_kind_of_half():
    h = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3555, 0x7BFF, 0xFBFF,
                  0x7C00, 0xFC00, 0x4248, 0x0200, 0x1234] * 2, np.uint16)
    got = cvt("cvt.f32.f16", "f16", "f32", h)
    assert (as_bits32(got) == as_bits32(h.view(np.float16).astype(np.float32))).all()
    nan = cvt("cvt.f32.f16", "f16", "f32", np.full(32, 0x7E00, np.uint16))
    assert np.isnan(nan).all()


def test_f16_round_trip_through_f32_is_identity_for_finite_halves(rng):
    h = rng.integers(0, 0x7C00, 32).astype(np.uint16) | (rng.integers(0, 2, 32).astype(np.uint16) << 15)
    out = run_lanes("cvt.f32.f16 %f, %h; cvt.rn.f16.f32 %g, %f;", ins={"h": ("f16", h)}, outs={"g": "f16"},
                    regs={"f": "f32"})
    assert (out["g"] == h).all()


def test_cvt_rn_f16_f64_rounds_once():
    # just above a half-way point of f16: rounding through f32 first would land on the tie and round to even
    x = np.array([1 + 2**-11 + 2**-40, 1 + 2**-11 - 2**-40, 1 + 3 * 2**-11 - 2**-45, 2049 + 2**-30] * 8)
    got = cvt("cvt.rn.f16.f64", "f64", "f16", x)
    assert [hex(int(g)) for g in got[:4]] == [hex(f16_bits_ref(float(v))) for v in x[:4]]


def test_cvt_f64_f16_is_exact():
    h = np.array([0x0001, 0x3C00, 0xC248, 0x7BFF, 0x7C00, 0x8000, 0x03FF, 0x3555] * 4, np.uint16)
    got = cvt("cvt.f64.f16", "f16", "f64", h)
    assert (got == h.view(np.float16).astype(np.float64)).all()


BF16_VALUES = [1.0, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, -(1 + 2**-8), 3.14159, -1e-3, 1e38, 3.3e38,
               3.39e38, -3.39e38, 1e-39, -1e-39, 1e-45, 0.0, -0.0, np.inf, -np.inf, 255.5, 256.5, 257.0, 0.1,
               1 / 3, 65504.0, 1e10, -1e-10, 2**-126, 2**-133, 7.0, 1.00390625, 1.01171875, 1e20]


def test_cvt_rn_bf16_f32_rounds_to_nearest_even():
    x = np.array(BF16_VALUES, np.float32)
    got = cvt("cvt.rn.bf16.f32", "f32", "bf16", x)
    assert [hex(int(g)) for g in got] == [hex(bf16_bits_ref(float(v))) for v in x]


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_cvt_bf16_f32_directed_rounding(mode):
    x = np.array(BF16_VALUES, np.float32)
    got = cvt(f"cvt.{mode}.bf16.f32", "f32", "bf16", x)
    assert [hex(int(g)) for g in got] == [hex(bf16_bits_ref(float(v), mode)) for v in x]


def test_cvt_f32_bf16_shifts_bits_into_the_high_half(rng):
    h = rng.integers(0, 0x10000, 32).astype(np.uint16)
    h[:4] = [0x3F80, 0xFF80, 0x7F80, 0x0001]
    got = cvt("cvt.f32.bf16", "bf16", "f32", h)
    finite = (h & 0x7F80) != 0x7F80
    assert (as_bits32(got)[finite] == h[finite].astype(np.uint32) << 16).all()
    assert got[0] == 1.0 and got[1] == -np.inf and got[2] == np.inf


def test_cvt_rn_bf16_of_nan_is_nan():
    got = cvt("cvt.rn.bf16.f32", "f32", "bf16", np.full(32, np.nan, np.float32))
    assert ((got & 0x7F80) == 0x7F80).all() and ((got & 0x7F) != 0).all()


def test_cvt_rn_f16x2_f32_packs_first_operand_in_high_half():
    a = np.array([1.0, -2.0, 0.5, 65504.0] * 8, np.float32)
    b = np.array([3.0, 0.25, -1.0, 1e-5] * 8, np.float32)
    got = run_lanes("cvt.rn.f16x2.f32 %d, %a, %b;", ins={"a": ("f32", a), "b": ("f32", b)}, outs={"d": "b32"})["d"]
    want = (a.astype(np.float16).view(np.uint16).astype(np.uint32) << 16) | b.astype(np.float16).view(np.uint16)
    assert (got == want).all()


def test_fraction_exact_reference_matches_numpy_half():
    xs = [float(v) for v in np.random.default_rng(3).standard_normal(200).astype(np.float32) * 1000]
    assert all(f16_bits_ref(v) == int(np.float16(np.float32(v)).view(np.uint16)) for v in xs)
    assert f16_bits_ref(fr(np.float32(1 + 2**-11))) == 0x3C00                    # tie to even
