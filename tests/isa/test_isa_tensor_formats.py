"""cvt to/from tf32 and packed 8-bit floats, prmt's byte-permute modes, elect.sync and setmaxnreg, against
references written from the PTX ISA (correct rounding by exact search, the prmt mode table)."""
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import run_lanes

from gpusim.errors import PTXSyntaxError

rng = np.random.default_rng(3)


def f32(vals):
    return np.asarray(vals, dtype=np.float32)


# ------------------------------------------------------------------ tf32
def tf32_reference(x: np.float32, mode: str, satfinite: bool) -> int:
    b = int(np.float32(x).view(np.uint32))
    if math.isnan(x):
        return 0x7FFFFFFF
    sign = b & 0x80000000
    if math.isinf(x):
        return sign | 0x7F7FE000 if satfinite else b
    if x == 0:
        return b
    e = math.frexp(abs(float(x)))[1] - 1
    ulp = Fraction(2) ** (max(e, -126) - 10)
    q = Fraction(abs(float(x))) / ulp
    lo = math.floor(q)
    if mode == "rz" or q == lo:
        n = lo
    elif q - lo != Fraction(1, 2):
        n = lo + (q - lo > Fraction(1, 2))
    else:
        n = lo + 1 if mode == "rna" else lo + (lo % 2)
    v = float(n * ulp)
    if v > float(np.finfo(np.float32).max):
        return sign | (0x7F7FE000 if satfinite else 0x7F800000)
    out = int(np.float32(v).view(np.uint32))
    return sign | out


def tf32_inputs():
    base = rng.standard_normal(24).astype(np.float32) * np.float32(1000)
    ties = (base.view(np.uint32) & np.uint32(0xFFFFE000)) | np.uint32(0x1000)     # exactly half an ulp
    odd_ties = ties | np.uint32(0x2000)
    special = f32([np.inf, -np.inf, np.nan, 3.4e38, -0.0, 1e-40])
    return np.concatenate([base[:8], ties.view(np.float32)[:8], odd_ties.view(np.float32)[:10], special])


@pytest.mark.parametrize("mode, sat", [("rna", False), ("rna", True), ("rn", True), ("rz", True)])
def test_cvt_tf32_rounds_like_the_exact_reference(mode, sat):
    x = tf32_inputs()
    line = f"cvt.{mode}{'.satfinite' if sat else ''}.tf32.f32 %d, %a;"
    out = run_lanes(line, ins={"a": ("f32", x)}, outs={"d": "b32"})
    want = np.array([tf32_reference(v, mode, sat) for v in x], np.uint32)
    assert np.array_equal(out["d"], want), [hex(a) for a in out["d"][out["d"] != want]]


# ------------------------------------------------------------------ 8-bit floats
def f8_table(fmt):
    eb, mb, bias = (4, 3, 7) if fmt == "e4m3" else (5, 2, 15)
    table = {}
    for b in range(128):
        e, m = b >> mb, b & ((1 << mb) - 1)
        if fmt == "e4m3" and b == 0x7F or fmt == "e5m2" and e == 31:
            continue
        table[b] = Fraction(m, 1 << mb) * Fraction(2) ** (1 - bias) if e == 0 else \
            (1 + Fraction(m, 1 << mb)) * Fraction(2) ** (e - bias)
    return table


def f8_reference(x: float, fmt: str) -> int:
    """Round to nearest, ties to the even code, saturating at the largest finite value."""
    if math.isnan(x):
        return 0x7F
    table = f8_table(fmt)
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = Fraction(abs(x)) if math.isfinite(x) else max(table.values())
    best = min(table, key=lambda b: (abs(table[b] - a), b & 1))
    return sign | best


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_cvt_rn_satfinite_f8x2_packs_a_high_and_b_low(fmt):
    scale = 300 if fmt == "e4m3" else 40000
    a = (rng.standard_normal(32) * scale).astype(np.float32)
    b = (rng.standard_normal(32) * 0.01).astype(np.float32)
    a[:4] = f32([np.inf, 1e6, np.nan, -1e9])
    b[:2] = f32([-0.0, 2.0 ** -12])
    out = run_lanes(f"cvt.rn.satfinite.{fmt}x2.f32 %h, %a, %b;", ins={"a": ("f32", a), "b": ("f32", b)},
                    outs={"h": "b16"})
    want = np.array([(f8_reference(float(x), fmt) << 8) | f8_reference(float(y), fmt) for x, y in zip(a, b)],
                    np.uint16)
    assert np.array_equal(out["h"], want)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_cvt_f16x2_from_f8x2_is_exact(fmt):
    table = f8_table(fmt)
    codes = rng.choice(sorted(table), (32, 2))
    signs = rng.integers(0, 2, (32, 2)) << 7
    packed = ((codes[:, 0] | signs[:, 0]) << 8) | (codes[:, 1] | signs[:, 1])
    out = run_lanes(f"cvt.rn.f16x2.{fmt}x2 %d, %h;", ins={"h": ("b16", packed.astype(np.uint16))},
                    outs={"d": "b32"})

    def half(c, s):
        return int(np.float16(float(table[int(c)]) * (-1 if s else 1)).view(np.uint16))

    want = np.array([(half(c[0], s[0]) << 16) | half(c[1], s[1]) for c, s in zip(codes, signs)], np.uint32)
    assert np.array_equal(out["d"], want)


# ------------------------------------------------------------------ prmt modes (PTX ISA table: d.b3 d.b2 d.b1 d.b0)
PRMT = {"f4e": ["3210", "4321", "5432", "6543"], "b4e": ["5670", "6701", "7012", "0123"],
        "rc8": ["0000", "1111", "2222", "3333"], "ecl": ["3210", "3211", "3222", "3333"],
        "ecr": ["0000", "1110", "2210", "3210"], "rc16": ["1010", "3232", "1010", "3232"]}


@pytest.mark.parametrize("mode", list(PRMT))
def test_prmt_mode_selects_bytes_per_the_isa_table(mode):
    a = rng.integers(0, 1 << 32, 32).astype(np.uint32)
    b = rng.integers(0, 1 << 32, 32).astype(np.uint32)
    c = rng.integers(0, 1 << 32, 32).astype(np.uint32)
    out = run_lanes(f"prmt.b32.{mode} %d, %a, %b, %c;", ins={"a": ("b32", a), "b": ("b32", b), "c": ("b32", c)},
                    outs={"d": "b32"})
    want = []
    for x, y, s in zip(a, b, c):
        src = (int(y) << 32) | int(x)
        sel = PRMT[mode][int(s) & 3]
        want.append(sum(((src >> (8 * int(sel[3 - k]))) & 0xFF) << (8 * k) for k in range(4)))
    assert np.array_equal(out["d"], np.array(want, np.uint32))


# ------------------------------------------------------------------ elect.sync, setmaxnreg
@pytest.mark.parametrize("active, member",
                         [(0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFF00, 0xFFFFFFFF), (0xFFFFFFFF, 0xF0F00000)])
def test_elect_sync_elects_the_lowest_active_member(active, member):
    on = np.array([(active >> i) & 1 for i in range(32)], np.uint32)
    body = f"@!%on bra Z_EPILOGUE;\n    elect.sync %d|%p, {member};"
    out = run_lanes(body, ins={"on": ("pred", on)}, outs={"d": "u32", "p": "pred"})
    leader = min(i for i in range(32) if (active & member) >> i & 1)
    assert np.array_equal(out["d"][on == 1], np.full(int(on.sum()), leader))
    assert np.array_equal(out["p"], (np.arange(32) == leader).astype(np.uint32))


def test_elect_sync_may_discard_the_leader_id():
    out = run_lanes("elect.sync _|%p, -1;", outs={"p": "pred"})
    assert np.array_equal(out["p"], (np.arange(32) == 0).astype(np.uint32))


def test_setmaxnreg_is_accepted_and_changes_nothing():
    x = rng.integers(0, 1000, 32).astype(np.uint32)
    body = "setmaxnreg.inc.sync.aligned.u32 240;\n    add.u32 %d, %a, 1;\n    setmaxnreg.dec.sync.aligned.u32 40;"
    out = run_lanes(body, ins={"a": ("u32", x)}, outs={"d": "u32"})
    assert np.array_equal(out["d"], x + 1)


def test_griddepcontrol_is_accepted_and_leaves_results_unchanged():
    # stream order already completes every prerequisite grid before a dependent one starts
    got = run_lanes("griddepcontrol.wait;\n    add.u32 %d, %a, 1;\n    griddepcontrol.launch_dependents;",
                    ins={"a": ("u32", np.arange(32, dtype=np.uint32))}, outs={"d": "u32"})["d"]
    assert got.tolist() == list(range(1, 33))
    with pytest.raises(PTXSyntaxError, match="griddepcontrol takes"):
        run_lanes("griddepcontrol.wait.launch_dependents;", outs={"d": "u32"}, mode="functional")
