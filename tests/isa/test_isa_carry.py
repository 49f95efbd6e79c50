"""Carry chains: add.cc / addc / sub.cc / subc / mad.cc / madc keep a per-thread carry flag (CC.CF) and
compute multiword arithmetic exactly (checked against Python ints), in both modes; the flag orders
the chain for the timing scoreboard and for the load scheduler; what PTX does not define is refused."""
import numpy as np
import pytest
from conftest import HEADER, run_lanes, run_ptx

import gpusim
from gpusim.errors import UnsupportedInstruction
from gpusim.isa import opcodes as oc
from gpusim.sm.scoreboard import register_lists

M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def words(values, n, bits=32):
    """n little-endian words of `bits` bits per lane value, as n lane arrays."""
    dt = np.uint32 if bits == 32 else np.uint64
    mask = (1 << bits) - 1
    return [np.array([(v >> (bits * k)) & mask for v in values], dtype=dt) for k in range(n)]


def join(arrs, bits=32):
    return [sum(int(a[lane]) << (bits * k) for k, a in enumerate(arrs)) for lane in range(32)]


def big(rng, nbits, edge=()):
    vals = list(edge) + [int.from_bytes(rng.bytes(nbits // 8), "little") for _ in range(32 - len(edge))]
    return vals


EDGE128 = [0, 1, (1 << 128) - 1, (1 << 32) - 1, (1 << 64) - 1, 1 << 96, ((1 << 32) - 1) << 32]


def test_add_cc_addc_chain_adds_128_bits_from_four_words_with_carry_out(rng):
    a = big(rng, 128, EDGE128)
    b = big(rng, 128, [(1 << 128) - 1, (1 << 128) - 1, 1, 1, 1, 1 << 96, 1 << 32])
    ins = {f"a{k}": ("u32", x) for k, x in enumerate(words(a, 4))}
    ins |= {f"b{k}": ("u32", x) for k, x in enumerate(words(b, 4))}
    body = """
        add.cc.u32 %d0, %a0, %b0;
        addc.cc.u32 %d1, %a1, %b1;
        addc.cc.u32 %d2, %a2, %b2;
        addc.cc.u32 %d3, %a3, %b3;
        addc.u32 %co, 0, 0;"""
    out = run_lanes(body, ins=ins, outs={f"d{k}": "u32" for k in range(4)} | {"co": "u32"})
    got = join([out[f"d{k}"] for k in range(4)])
    assert got == [(x + y) & ((1 << 128) - 1) for x, y in zip(a, b)]
    assert out["co"].tolist() == [(x + y) >> 128 for x, y in zip(a, b)]


def test_sub_cc_subc_chain_subtracts_128_bits_with_borrow_out(rng):
    a = big(rng, 128, EDGE128)
    b = big(rng, 128, [1, 0, (1 << 128) - 1, 1 << 32, 1, 1 << 97, 1])
    ins = {f"a{k}": ("u32", x) for k, x in enumerate(words(a, 4))}
    ins |= {f"b{k}": ("u32", x) for k, x in enumerate(words(b, 4))}
    body = """
        sub.cc.u32 %d0, %a0, %b0;
        subc.cc.u32 %d1, %a1, %b1;
        subc.cc.u32 %d2, %a2, %b2;
        subc.cc.u32 %d3, %a3, %b3;
        subc.u32 %bo, 0, 0;"""
    out = run_lanes(body, ins=ins, outs={f"d{k}": "u32" for k in range(4)} | {"bo": "u32"})
    got = join([out[f"d{k}"] for k in range(4)])
    assert got == [(x - y) & ((1 << 128) - 1) for x, y in zip(a, b)]
    # subc 0, 0 = 0 + ~0 + CF: all ones exactly when the 128-bit subtraction borrowed (CF = 0)
    assert out["bo"].tolist() == [M32 if x < y else 0 for x, y in zip(a, b)]


@pytest.mark.parametrize("t", ["u64", "s64"])
def test_64_bit_add_cc_addc_chain_adds_192_bits(t, rng):
    a = big(rng, 192, [0, (1 << 192) - 1, (1 << 64) - 1])
    b = big(rng, 192, [(1 << 192) - 1, 1, 1])
    ins = {f"a{k}": ("u64", x) for k, x in enumerate(words(a, 3, 64))}
    ins |= {f"b{k}": ("u64", x) for k, x in enumerate(words(b, 3, 64))}
    body = f"""
        add.cc.{t} %d0, %a0, %b0;
        addc.cc.{t} %d1, %a1, %b1;
        addc.cc.{t} %d2, %a2, %b2;
        addc.{t} %co, 0, 0;"""
    out = run_lanes(body, ins=ins, outs={f"d{k}": "u64" for k in range(3)} | {"co": "u64"})
    assert join([out[f"d{k}"] for k in range(3)], 64) == [(x + y) & ((1 << 192) - 1) for x, y in zip(a, b)]
    assert out["co"].tolist() == [(x + y) >> 192 for x, y in zip(a, b)]


def test_sub_cc_carry_is_not_borrow_as_addc_reads_it(rng):
    """sub.cc leaves the carry of a + ~b + 1 (1 when a >= b unsigned, no borrow), which a following addc
    adds, and subc subtracts its complement: the hardware's carry form, which nvcc's __int128
    division relies on (it tests a subtraction's sign with `addc.u32 r, 0, 0`)."""
    a = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    b[:3] = a[:3]
    a[3], b[3] = 0, 1
    body = "sub.cc.u32 %d, %a, %b; addc.u32 %c, 0, 0; sub.cc.u32 %d, %a, %b; subc.u32 %e, 10, 3;"
    out = run_lanes(body, ins={"a": ("u32", a), "b": ("u32", b)}, outs={"c": "u32", "e": "u32"}, regs={"d": "u32"})
    no_borrow = [int(x >= y) for x, y in zip(a.tolist(), b.tolist())]
    assert out["c"].tolist() == no_borrow
    assert out["e"].tolist() == [7 - (1 - nb) for nb in no_borrow]


def test_64_bit_sub_cc_subc_chain_subtracts_128_bits(rng):
    a = big(rng, 128, [0, 1, (1 << 64)])
    b = big(rng, 128, [1, 1, 1])
    ins = {f"a{k}": ("u64", x) for k, x in enumerate(words(a, 2, 64))}
    ins |= {f"b{k}": ("u64", x) for k, x in enumerate(words(b, 2, 64))}
    body = "sub.cc.u64 %d0, %a0, %b0; subc.cc.u64 %d1, %a1, %b1; subc.u64 %bo, 0, 0;"
    out = run_lanes(body, ins=ins, outs={"d0": "u64", "d1": "u64", "bo": "u64"})
    assert join([out["d0"], out["d1"]], 64) == [(x - y) & ((1 << 128) - 1) for x, y in zip(a, b)]
    assert out["bo"].tolist() == [M64 if x < y else 0 for x, y in zip(a, b)]


def test_mad_lo_cc_madc_hi_multiplies_64x64_to_128_in_32_bit_words(rng):
    """libdevice's own sequence (the f64 sin/cos slow path): a 64x64 -> 128-bit product plus a 64-bit
    addend, from 32-bit halves."""
    a = big(rng, 64, [0, M64, M64, 1 << 63, M32])
    b = big(rng, 64, [M64, M64, 1, 1 << 63, M32])
    c = big(rng, 64, [M64, M64, 0, M64, M64])
    ins = {"alo": ("u32", words(a, 1)[0]), "ahi": ("u32", words(a, 2)[1]),
           "blo": ("u32", words(b, 1)[0]), "bhi": ("u32", words(b, 2)[1]),
           "clo": ("u32", words(c, 1)[0]), "chi": ("u32", words(c, 2)[1])}
    body = """
        mad.lo.cc.u32   %r0, %alo, %blo, %clo;
        madc.hi.cc.u32  %r1, %alo, %blo, %chi;
        madc.hi.u32     %r2, %alo, %bhi,   0;
        mad.lo.cc.u32   %r1, %alo, %bhi,  %r1;
        madc.hi.cc.u32  %r2, %ahi, %blo,  %r2;
        madc.hi.u32     %r3, %ahi, %bhi,   0;
        mad.lo.cc.u32   %r1, %ahi, %blo,  %r1;
        madc.lo.cc.u32  %r2, %ahi, %bhi,  %r2;
        addc.u32        %r3,  %r3,   0;"""
    out = run_lanes(body, ins=ins, outs={f"r{k}": "u32" for k in range(4)})
    assert join([out[f"r{k}"] for k in range(4)]) == [x * y + z for x, y, z in zip(a, b, c)]


def test_mad_lo_cc_u64_and_madc_hi_u64_give_the_full_128_bit_product_plus_addend(rng):
    a, b, c = big(rng, 64, [M64, 0, 1]), big(rng, 64, [M64, 5, M64]), big(rng, 64, [M64, M64, M64])
    body = "mad.lo.cc.u64 %lo, %a, %b, %c; madc.hi.u64 %hi, %a, %b, 0;"
    u = {"a": a, "b": b, "c": c}
    out = run_lanes(body, ins={k: ("u64", np.array(v, np.uint64)) for k, v in u.items()},
                    outs={"lo": "u64", "hi": "u64"})
    assert join([out["lo"], out["hi"]], 64) == [x * y + z for x, y, z in zip(a, b, c)]


def test_signed_carry_ops_carry_out_of_the_unsigned_bits(rng):
    a = rng.integers(-2**31, 2**31, 32).astype(np.int32)
    b = rng.integers(-2**31, 2**31, 32).astype(np.int32)
    a[:4] = [-1, -1, 2**31 - 1, -2**31]
    b[:4] = [1, -1, 1, -1]
    body = "add.cc.s32 %d, %a, %b; addc.s32 %c, 0, 0; mad.hi.cc.s32 %e, %a, %b, %a; addc.s32 %f, 0, 0;"
    out = run_lanes(body, ins={"a": ("s32", a), "b": ("s32", b)},
                    outs={"d": "s32", "c": "s32", "e": "s32", "f": "s32"})
    ua, ub = [int(x) & M32 for x in a], [int(x) & M32 for x in b]
    assert [int(x) & M32 for x in out["d"]] == [(x + y) & M32 for x, y in zip(ua, ub)]
    assert out["c"].tolist() == [(x + y) >> 32 for x, y in zip(ua, ub)]
    hi = [((int(x) * int(y)) >> 32) & M32 for x, y in zip(a, b)]
    assert [int(x) & M32 for x in out["e"]] == [(h + x) & M32 for h, x in zip(hi, ua)]
    assert out["f"].tolist() == [(h + x) >> 32 for h, x in zip(hi, ua)]


def test_carry_flag_is_per_thread_and_starts_clear():
    """Lanes set different carries; a thread's addc sees only its own; a fresh thread's CF is 0."""
    a = np.array([M32 if lane % 3 == 0 else lane for lane in range(32)], np.uint32)
    body = "addc.u32 %z, 0, 0; add.cc.u32 %d, %a, 1; addc.u32 %c, 0, 0;"
    out = run_lanes(body, ins={"a": ("u32", a)}, outs={"z": "u32", "c": "u32"}, regs={"d": "u32"})
    assert out["z"].tolist() == [0] * 32
    assert out["c"].tolist() == [1 if lane % 3 == 0 else 0 for lane in range(32)]


def test_carry_chain_with_a_divergent_branch_between_set_and_use():
    """Lanes that skip a branch keep their own carry; lanes that take it set it again there."""
    body = """
        add.cc.u32 %d, %a, 0xFFFFFFFF;      // CF = (a != 0)
        setp.lt.u32 %p, %a, 16;
        @%p bra SKIP;
        add.cc.u32 %d, 0, 0;                // these lanes clear CF
    SKIP:
        addc.u32 %c, 0, 0;"""
    a = np.arange(32, dtype=np.uint32)
    out = run_lanes(body, ins={"a": ("u32", a)}, outs={"c": "u32"}, regs={"d": "u32", "p": "pred"})
    assert out["c"].tolist() == [1 if 0 < x < 16 else 0 for x in range(32)]


CHAIN = HEADER + """
.visible .entry k(.param .u64 out, .param .u64 inp)
{
    .reg .u32 %x, %a, %b, %e, %f, %d0, %d1, %t;
    .reg .u64 %A, %I, %o;
    ld.param.u64 %A, [out];
    ld.param.u64 %I, [inp];
    mov.u32 %t, %tid.x;
    mul.wide.u32 %o, %t, 8;
    add.s64 %I, %I, %o;
    add.s64 %A, %A, %o;
    mov.u32 %a, 0xFFFFFFFF;
    mov.u32 %b, 1;
    ld.global.u32 %x, [%I];
    add.cc.u32 %e, %x, %x;
    addc.u32 %f, 0, 0;
    add.cc.u32 %d0, %a, %b;
    addc.u32 %d1, 0, 0;
    st.global.v2.u32 [%A], {%f, %d1};
    ret;
}
"""


def test_load_scheduler_keeps_carry_instructions_in_order():
    """An add.cc that depends on a load must not sink past another carry instruction (it would
    hand its carry to the wrong addc)."""
    inp = np.zeros(64, np.uint32)
    inp[0::2] = [0x80000000 if lane % 2 else 1 for lane in range(32)]      # lane t reads word 2t
    out = np.zeros(64, np.uint32)
    for mode in ("functional", "timing"):
        run_ptx(CHAIN, "k", 1, 32, out, inp, mode=mode, gpu="tiny")
        assert out[0::2].tolist() == [lane % 2 for lane in range(32)]     # carry of x + x
        assert out[1::2].tolist() == [1] * 32                             # carry of 0xFFFFFFFF + 1


def test_carry_flag_is_a_register_dependency_for_the_scoreboard():
    d = gpusim.load_ptx(CHAIN)["k"].decoded
    reads, writes = register_lists(d)
    ops = [oc.OPS[o] for o in d.ins[:, oc.F_OP]]
    setter = [pc for pc, o in enumerate(ops) if o == "add" and d.ins[pc, oc.F_FLAGS] & oc.FL_CC]
    user = [pc for pc, o in enumerate(ops) if o == "addc"]
    assert len(setter) == 2 and len(user) == 2
    cc = d.opv[setter[0], oc.D_CC]
    for pc in setter:
        assert cc in writes[pc].tolist()
    for pc in user:
        assert cc in reads[pc].tolist() and cc not in writes[pc].tolist()
    assert d.reg_words[cc] == 0          # a flag, not a 32-bit register


@pytest.mark.parametrize("line, why", [
    ("add.cc.u16 %h, %h, %h;", "carry chains (.cc, addc, subc, madc) take .u32, .s32, .u64 or .s64"),
    ("addc.u16 %h, %h, %h;", "type .u16 is not accepted by addc"),
    ("mad.cc.u32 %u, %u, %u, %u;", "mad with a carry takes .hi or .lo"),
    ("madc.u32 %u, %u, %u, %u;", "madc with a carry takes .hi or .lo"),
    ("mad.wide.cc.u32 %A, %u, %u, %A;", "with a carry takes .hi or .lo"),
    ("add.sat.cc.s32 %i, %i, %i;", ".sat cannot be combined with a carry"),
    ("add.cc.f32 %f, %f, %f;", "modifier .cc is not supported on add.f32"),
])
def test_undefined_carry_forms_are_refused_by_name(line, why):
    from gpusim.isa.coverage import example_kernel
    with pytest.raises(UnsupportedInstruction) as e:
        _ = gpusim.load_ptx(example_kernel(line, "b32"))["k"].decoded
    assert why in str(e.value)


def test_carry_instructions_issue_to_the_integer_pipe_64_bit_ones_as_int64():
    from gpusim.isa.coverage import example_kernel
    body = ("add.cc.u32 %u, %u, 1; addc.cc.u32 %u, %u, 1; madc.hi.u32 %u, %u, %u, %u; "
            "add.cc.u64 %A, %A, 1; subc.u64 %A, %A, 1; mad.lo.cc.u64 %A, %A, %A, %A;")
    d = gpusim.load_ptx(example_kernel(body, "b32"))["k"].decoded
    classes = {}
    for pc in range(d.n):
        op, cls = oc.OPS[d.ins[pc, oc.F_OP]], int(d.ins[pc, oc.F_CLASS])
        if d.ins[pc, oc.F_FLAGS] & oc.FL_CC or op in ("addc", "subc", "madc"):
            classes[op + ("64" if cls == oc.C_INT64 else "")] = cls
    assert classes == {"add": oc.C_INT, "addc": oc.C_INT, "madc": oc.C_INT, "add64": oc.C_INT64,
                       "subc64": oc.C_INT64, "mad64": oc.C_INT64}
