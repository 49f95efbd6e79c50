"""mma.sync.aligned: every implemented shape/type pair against a numpy reference, bit for bit, in
functional and timing mode (run_lanes requires the two modes to agree).

The fragments are packed here from the PTX ISA's layout formulas ("Matrix Fragments for mma.m16n8k8
/ k16 / k32 / m8n8k4"). The reference uses gpusim's documented accumulation (gpusim/sm/mma.py):
d = c, then for k = 0..K-1 in order d = round_f32(d + a*b) (products of these inputs are exact in
f32), an f16 D rounded once at the end; f64 with one rounding per fused step; integers exact, then
wrapped or clamped (.satfinite). A second test per float type uses small integer-valued inputs whose
exact sum fits in f32, so it holds for any summation order (what the hardware must also produce).
"""
from fractions import Fraction

import numpy as np
import pytest
from conftest import run_lanes

rng = np.random.default_rng(20261124)

# (shape, A/B type, C/D type, satfinite)
CASES = [("m16n8k8", "f16", "f32", False), ("m16n8k8", "f16", "f16", False),
         ("m16n8k16", "f16", "f32", False), ("m16n8k16", "f16", "f16", False),
         ("m16n8k8", "bf16", "f32", False), ("m16n8k16", "bf16", "f32", False),
         ("m16n8k8", "tf32", "f32", False),
         ("m16n8k32", "s8", "s32", False), ("m16n8k32", "u8", "s32", False), ("m16n8k32", "s8", "s32", True),
         ("m16n8k32", "e4m3", "f32", False), ("m16n8k32", "e5m2", "f32", False),
         ("m8n8k4", "f64", "f64", False)]
FLOAT_CASES = [c for c in CASES if c[1] not in ("s8", "u8")]


def mnk(shape):
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


# ------------------------------------------------------------------ element formats
def f8_value(b, fmt):
    eb, mb, bias = (4, 3, 7) if fmt == "e4m3" else (5, 2, 15)
    s = -1.0 if b & 0x80 else 1.0
    e, m = (b >> mb) & ((1 << eb) - 1), b & ((1 << mb) - 1)
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mb)
    return s * (1 + m / 2 ** mb) * 2.0 ** (e - bias)


def f8_finite_codes(fmt):
    if fmt == "e4m3":
        return [b for b in range(256) if (b & 0x7F) != 0x7F]
    return [b for b in range(256) if (b >> 2) & 0x1F != 0x1F]


def random_elements(ty, shape, small=False):
    """(codes as stored in registers, values as float64) for a random matrix of type ty."""
    n = int(np.prod(shape))
    if ty in ("s8", "u8"):
        lo, hi = (-128, 128) if ty == "s8" else (0, 256)
        v = rng.integers(lo, hi, n)
        return (v & 0xFF).reshape(shape), v.astype(np.float64).reshape(shape)
    if small:
        v = rng.integers(-3, 4, n).astype(np.float64)
        if ty in ("e4m3", "e5m2"):
            table = {f8_value(b, ty): b for b in f8_finite_codes(ty)}
            return np.array([table[x] for x in v]).reshape(shape), v.reshape(shape)
    elif ty in ("e4m3", "e5m2"):
        codes = rng.choice(f8_finite_codes(ty), n)
        return codes.reshape(shape), np.array([f8_value(int(b), ty) for b in codes]).reshape(shape)
    else:
        v = rng.standard_normal(n) * 4
    if ty == "f16":
        h = v.astype(np.float16)
        return h.view(np.uint16).astype(np.int64).reshape(shape), h.astype(np.float64).reshape(shape)
    if ty == "bf16":
        b = (v.astype(np.float32).view(np.uint32) >> 16).astype(np.int64)
        return b.reshape(shape), (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64).reshape(shape)
    if ty == "tf32":
        b = v.astype(np.float32).view(np.uint32) & 0xFFFFE000
        return b.astype(np.int64).reshape(shape), b.view(np.float32).astype(np.float64).reshape(shape)
    if ty == "f32":
        f = v.astype(np.float32)
        return f.view(np.uint32).astype(np.int64).reshape(shape), f.astype(np.float64).reshape(shape)
    if ty == "f64":
        return v.view(np.int64).reshape(shape), v.reshape(shape)
    if ty == "s32":
        v = rng.integers(-(1 << 31), 1 << 31, n) if not small else rng.integers(-1000, 1000, n)
        return (v & 0xFFFFFFFF).reshape(shape), v.astype(np.float64).reshape(shape)
    raise AssertionError(ty)


# ------------------------------------------------------------------ fragment layouts (PTX ISA)
def a_pos(shape, ty, e, g, t):
    if shape == "m8n8k4":
        return g, t
    if shape == "m16n8k32":
        return g + 8 * (e // 4 % 2), t * 4 + e % 4 + 16 * (e // 8)
    if shape == "m16n8k16":
        return g + 8 * (e // 2 % 2), t * 2 + e % 2 + 8 * (e // 4)
    if ty == "tf32":
        return g + 8 * (e % 2), t + 4 * (e // 2)
    return g + 8 * (e // 2), t * 2 + e % 2


def b_pos(shape, ty, e, g, t):
    if shape == "m8n8k4":
        return t, g
    if shape == "m16n8k32":
        return t * 4 + e % 4 + 16 * (e // 4), g
    if shape == "m16n8k16":
        return t * 2 + e % 2 + 8 * (e // 2), g
    if ty == "tf32":
        return t + 4 * e, g
    return t * 2 + e, g


def c_pos(shape, e, g, t):
    if shape == "m8n8k4":
        return g, t * 2 + e
    return g + 8 * (e // 2), t * 2 + e % 2


def per_reg(ty):
    return {"f16": 2, "bf16": 2, "s8": 4, "u8": 4, "e4m3": 4, "e5m2": 4}.get(ty, 1)


def bits_per_elem(ty):
    return {"f16": 16, "bf16": 16, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8}.get(ty, 32)


def n_regs(shape, ty, what, acc):
    if shape == "m8n8k4":
        return {"a": 1, "b": 1, "c": 2}[what]
    if what == "c":
        return 2 if acc == "f16" else 4
    if shape == "m16n8k8" and ty != "tf32":
        return {"a": 2, "b": 1}[what]
    return {"a": 4, "b": 2}[what]


def pack(codes, pos, nregs, ty):
    """Per register, the 32 lanes' register bits holding `codes` (a matrix) under the layout `pos`."""
    k, w = per_reg(ty), bits_per_elem(ty)
    regs = []
    for r in range(nregs):
        vals = []
        for lane in range(32):
            v = 0
            for j in range(k):
                row, col = pos(r * k + j, lane >> 2, lane & 3)
                v |= (int(codes[row, col]) & ((1 << 64) - 1)) << (w * j)
            vals.append(v)
        regs.append(vals)
    return regs


def unpack(regs, shape, acc, m, n):
    k = 2 if acc == "f16" else 1
    out = np.zeros((m, n), np.int64)
    for r, vals in enumerate(regs):
        for lane in range(32):
            for j in range(k):
                row, col = c_pos(shape, r * k + j, lane >> 2, lane & 3)
                v = (int(vals[lane]) >> (16 * j)) & (0xFFFF if k == 2 else (1 << 64) - 1)
                out[row, col] = v - (1 << 64) if v >= 1 << 63 else v
    return out


# ------------------------------------------------------------------ the reference
def reference(av, bv, cv, ty, acc, satfinite):
    m, k = av.shape
    n = bv.shape[1]
    out = np.zeros((m, n), np.int64)
    for i in range(m):
        for j in range(n):
            if ty in ("s8", "u8"):
                d = int(cv[i, j]) + sum(int(av[i, x]) * int(bv[x, j]) for x in range(k))
                d = min(max(d, -(1 << 31)), (1 << 31) - 1) if satfinite else ((d + (1 << 31)) % (1 << 32)) - (1 << 31)
                out[i, j] = d & 0xFFFFFFFF
            elif ty == "f64":
                d = cv[i, j]
                for x in range(k):
                    d = float(Fraction(av[i, x]) * Fraction(bv[x, j]) + Fraction(d))
                out[i, j] = np.float64(d).view(np.int64)
            else:
                d = np.float32(cv[i, j])
                for x in range(k):
                    d = np.float32(d + np.float32(av[i, x]) * np.float32(bv[x, j]))
                out[i, j] = (int(np.float16(d).view(np.uint16)) if acc == "f16"
                             else int(np.float32(d).view(np.uint32)))
    return out


def run_mma(shape, ty, acc, satfinite, small=False, cacc=None):
    """acc: the D type; cacc: the C type (default: acc)."""
    cacc = cacc or acc
    m, n, k = mnk(shape)
    a_codes, av = random_elements(ty, (m, k), small)
    b_codes, bv = random_elements(ty, (k, n), small)
    c_codes, cv = random_elements(cacc, (m, n), small)
    regs = {"a": pack(a_codes, lambda e, g, t: a_pos(shape, ty, e, g, t), n_regs(shape, ty, "a", acc), ty),
            "b": pack(b_codes, lambda e, g, t: b_pos(shape, ty, e, g, t), n_regs(shape, ty, "b", acc), ty),
            "c": pack(c_codes, lambda e, g, t: c_pos(shape, e, g, t), n_regs(shape, ty, "c", cacc), cacc)}
    rtype = "b64" if ty == "f64" else "b32"
    ins = {f"{x}{r}": (rtype, np.array(vals, dtype=np.uint64 if ty == "f64" else np.uint32))
           for x in "abc" for r, vals in enumerate(regs[x])}
    nd = n_regs(shape, ty, "c", acc)
    outs = {f"d{r}": rtype for r in range(nd)}
    vec = {x: "{" + ", ".join(f"%{x}{r}" for r in range(len(regs[x]))) + "}" for x in "abc"}
    dvec = "{" + ", ".join(f"%d{r}" for r in range(nd)) + "}"
    sat = ".satfinite" if satfinite else ""
    body = f"mma.sync.aligned.{shape}.row.col{sat}.{acc}.{ty}.{ty}.{cacc} {dvec}, {vec['a']}, {vec['b']}, {vec['c']};"
    out = run_lanes(body, ins=ins, outs=outs)
    got = unpack([out[f"d{r}"] for r in range(nd)], shape, acc, m, n)
    cref = cv if ty not in ("s8", "u8") else cv.astype(np.int64)
    return got, reference(av, bv, cref, ty, acc, satfinite), out, (av, bv, cv)


IDS = [f"{s}.{a}.{t}{'.sat' if x else ''}" for s, t, a, x in CASES]


@pytest.mark.parametrize("shape, ty, acc, sat", CASES, ids=IDS)
def test_mma_matches_numpy_bit_for_bit(shape, ty, acc, sat):
    got, want, _, _ = run_mma(shape, ty, acc, sat)
    assert np.array_equal(got, want), f"first difference at {np.argwhere(got != want)[:3].tolist()}"


@pytest.mark.parametrize("shape, ty, acc, sat", FLOAT_CASES, ids=[f"{s}.{a}.{t}" for s, t, a, _ in FLOAT_CASES])
def test_mma_exact_small_integer_sums_match_matmul_in_any_order(shape, ty, acc, sat):
    got, want, _, (av, bv, cv) = run_mma(shape, ty, acc, sat, small=True)
    assert np.array_equal(got, want)
    exact = av @ bv + cv            # float64: exact for these small integers, whatever the order
    if acc == "f16":
        vals = got.astype(np.uint16).view(np.float16).astype(np.float64)
    elif acc == "f64":
        vals = got.view(np.float64)
    else:
        vals = got.astype(np.uint32).view(np.float32).astype(np.float64)
    assert np.array_equal(vals, exact)


@pytest.mark.parametrize("shape", ["m16n8k8", "m16n8k16"])
@pytest.mark.parametrize("dtype, ctype", [("f32", "f16"), ("f16", "f32")])
def test_mma_f16_with_different_c_and_d_types_matches_numpy(shape, dtype, ctype):
    got, want, _, _ = run_mma(shape, "f16", dtype, False, cacc=ctype)
    assert np.array_equal(got, want)


def test_mma_s8_satfinite_clamps_and_plain_wraps():
    big = {"m": 16, "n": 8, "k": 32}
    a = np.full((big["m"], big["k"]), 127.0)
    b = np.full((big["k"], big["n"]), 127.0)
    c = np.full((big["m"], big["n"]), float((1 << 31) - 1000))
    wrap = reference(a, b, c, "s8", "s32", False)
    clamp = reference(a, b, c, "s8", "s32", True)
    assert wrap[0, 0] != clamp[0, 0] and clamp[0, 0] == (1 << 31) - 1    # the reference itself distinguishes
    regs = {"a": pack(np.full(a.shape, 127), lambda e, g, t: a_pos("m16n8k32", "s8", e, g, t), 4, "s8"),
            "b": pack(np.full(b.shape, 127), lambda e, g, t: b_pos("m16n8k32", "s8", e, g, t), 2, "s8"),
            "c": pack(np.full(c.shape, (1 << 31) - 1000), lambda e, g, t: c_pos("m16n8k32", e, g, t), 4, "s32")}
    ins = {f"{x}{r}": ("b32", np.array(v, dtype=np.uint32)) for x in "abc" for r, v in enumerate(regs[x])}
    for sat, want in (("", wrap), (".satfinite", clamp)):
        body = (f"mma.sync.aligned.m16n8k32.row.col{sat}.s32.s8.s8.s32 {{%d0, %d1, %d2, %d3}}, "
                "{%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};")
        out = run_lanes(body, ins=ins, outs={f"d{r}": "b32" for r in range(4)})
        got = unpack([out[f"d{r}"] for r in range(4)], "m16n8k32", "s32", 16, 8)
        assert np.array_equal(got, want)


def test_mma_counts_tensor_instructions_by_family():
    _, _, out, _ = run_mma("m16n8k16", "f16", "f32", False)
    m = out["_result"].metrics
    assert m["sm__inst_executed_pipe_tensor_op_hmma.sum"] == 1
    assert m["sm__inst_executed_pipe_tensor_op_imma.sum"] == 0


REFUSED = [
    ("mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, "
     "{%c0, %c1, %c2, %c3};", "mma.m16n8k16 with .tf32 inputs is not implemented"),
    ("mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, "
     "{%c0, %c1, %c2, %c3};", "mma layouts other than .row.col"),
    ("mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, "
     "{%b0, %b1}, {%c0, %c1, %c2, %c3};", "mma .satfinite with .f16 inputs"),
    ("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%d0, %d1}, {%a0}, {%b0}, {%c0, %c1};", "mma shape .m8n8k16"),
    ("mma.sync.aligned.m8n8k4.row.col.rz.f64.f64.f64.f64 {%d0, %d1}, {%a0}, {%b0}, {%c0, %c1};",
     "mma qualifier .rz is not implemented"),
    ("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%d0, %d1}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1};",
     "mma.m16n8k32.f16.e4m3.e4m3.f16 is not implemented"),
]


@pytest.mark.parametrize("line, why", REFUSED, ids=[w.split(" is")[0] for _, w in REFUSED])
def test_mma_variants_outside_the_table_are_refused_by_name(line, why):
    from gpusim.errors import UnsupportedInstruction
    regs = {f"{x}{i}": "b32" for x in "abcd" for i in range(4)}
    with pytest.raises(UnsupportedInstruction, match=why.replace(".", r"\.")):
        run_lanes(line, regs=regs, mode="functional")


def test_mma_with_the_wrong_fragment_length_is_a_syntax_error():
    from gpusim.errors import PTXSyntaxError
    regs = {f"{x}{i}": "b32" for x in "abcd" for i in range(4)}
    line = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1};"
    with pytest.raises(PTXSyntaxError, match="takes 4 registers for d, found 2"):
        run_lanes(line, regs=regs, mode="functional")
