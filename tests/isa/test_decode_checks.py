"""Load-time checks of the PTX front end: malformed operand lists are errors naming file:line:col and
the line; constructs gpusim does not model (predicated calls, %envreg, half atomics, ...) are
rejected by name instead of running wrong; integer .sat saturates at the type's bounds."""
import numpy as np
import pytest
from conftest import HEADER, run_lanes

import gpusim
from gpusim.errors import PTXSyntaxError, UnsupportedInstruction

KERNEL = HEADER + """.visible .entry k(.param .u64 out)
{{
    .reg .u32 %r<8>;
    .reg .u64 %rd<4>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [out];
{body}
    ret;
}}
"""
FIRST_BODY_LINE = 10


def decode(text: str):
    return gpusim.load_ptx(text)["k"].decoded


def load(body: str):
    """Load and decode a kernel with `body`; returns the decoded kernel."""
    return decode(KERNEL.format(body=body))


MALFORMED = [
    ("add.u32 %r1, %r2;", "found 2 operands"),
    ("mad.lo.u32 %r1, %r2, %r3;", "`d, a, b, c`"),
    ("add.u32 %r1, %r2, %r3, %r4;", "found 4 operands"),
    ("setp.eq.u32 %r1, %r2, %r3;", "writes a predicate"),
    ("st.global.u32 [%rd1];", "found 1 operand"),
    ("mov.u32 %r1;", "found 1 operand"),
    ("add.u32 5, %r1, %r2;", "must be a register, found an immediate"),
    ("add.u32 %r1, [%rd1], 1;", "address"),
    ("ld.global.u32 %r1, %rd1;", "must be an address"),
    ("st.global.u32 %rd1, %r1;", "must be an address"),
    ("ld.global.u32 [%rd1], [%rd1];", "address [..] is only allowed as the memory operand"),
    ("ld.global.v4.u32 {%r1, %r2}, [%rd1];", "vector of 2"),
    ("ld.global.u32 {%r1, %r2}, [%rd1];", "vector"),
    ("st.global.v2.u32 [%rd1], %r1;", "vector of 2"),
    ("atom.global.cas.b32 %r1, [%rd1], %r2;", "`d, [a], b, c`"),
    ("atom.global.add.u32 %r1, [%rd1], %r2, %r3;", "`d, [a], b`"),
    ("add.u32 %p1, %r1, %r2;", "is a .pred register"),
    ("mov.u32 %tid.x, %r1;", "special register %tid.x cannot be written"),
    ("setp.lt.u32 %p1|%r1, %r2, %r3;", "writes a predicate"),
    ("selp.u32 %r1, %r2, %r3, %p1|%p2;", "pair"),
    ("bra %r1;", "label"),
    ("exit %r1;", "no operands"),
    ("fma.rn.f32 %r1, %r2, %r3, %r4, %r5;", "found 5 operands"),
]


@pytest.mark.parametrize("body, why", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_operand_list_is_an_error_naming_the_line(body, why):
    text = KERNEL.format(body="    mov.u32 %r2, 1;\n    " + body)
    with pytest.raises(PTXSyntaxError) as e:
        decode(text)
    err = e.value
    assert err.line == FIRST_BODY_LINE + 1
    assert err.col == 5                                            # where the instruction starts
    assert f"<ptx>:{err.line}:{err.col}:" in str(err)
    assert body in str(err), "the offending line is shown"
    assert why in str(err)


VALID = [
    "setp.lt.u32 %p1|%p2, %r1, %r2;",                 # optional second predicate
    "setp.lt.and.u32 %p1, %r1, %r2, !%p2;",           # combining source, negated
    "setp.ge.or.u32 %p1|%p2, %r1, %r2, %p3;",
    "ld.global.v2.u32 {%r1, %r2}, [%rd1+8];",
    "st.global.v4.u32 [%rd1], {%r1, %r2, %r3, _};",
    "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;",
    "atom.global.add.u32 %r1, [%rd1], 1;",
    "red.global.add.u32 [%rd1], %r2;",
    "mov.b64 {%r1, %r2}, %rd1;",
    "mov.b64 %rd2, {%r1, %r2};",
    "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;",
    "shfl.sync.down.b32 %r1, %r2, 1, 31, -1;",
    "vote.sync.any.pred %p1, !%p2, -1;",
    "bar.red.popc.u32 %r1, 0, %p1;",
    "bar.red.and.pred %p1, 0, !%p2;",
    "prefetch.global.L2 [%rd1];",
    "membar.gl;",
    "add.sat.s32 %r1, %r2, %r3;",
    "mad.hi.sat.s32 %r1, %r2, %r3, %r4;",
]


@pytest.mark.parametrize("body", VALID)
def test_valid_operand_forms_decode(body):
    assert load("    " + body).n > 2


# ------------------------------------------------------------------ rejected by name
def test_predicated_call_is_rejected_at_load_time():
    text = HEADER + """.func f()
{
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .u32 %r<2>;
    mov.u32 %r0, %tid.x;
    setp.lt.u32 %p0, %r0, 16;
    @%p0 call f;
    ret;
}
"""
    with pytest.raises(UnsupportedInstruction) as e:
        decode(text)
    assert "predicated call" in str(e.value) and e.value.line == 14


def test_unpredicated_call_still_runs():
    text = HEADER + """.func (.param .b32 r) f(.param .b32 a)
{
    .reg .b32 %x;
    ld.param.b32 %x, [a];
    add.s32 %x, %x, 1;
    st.param.b32 [r], %x;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .u64 %rd<2>;
    .param .b32 pa;
    .param .b32 pr;
    ld.param.u64 %rd0, [out];
    mov.u32 %r0, 41;
    st.param.b32 [pa], %r0;
    call.uni (pr), f, (pa);
    ld.param.b32 %r1, [pr];
    st.global.u32 [%rd0], %r1;
    ret;
}
"""
    out = np.zeros(1, np.uint32)
    gpusim.launch(gpusim.load_ptx(text)["k"], 1, 1, out, mode="functional")
    assert out[0] == 42


@pytest.mark.parametrize("reg", ["%envreg0", "%envreg31", "%pm0", "%clusterid", "%reserved_smem_offset_begin"])
def test_unmodelled_special_register_is_named(reg):
    with pytest.raises(UnsupportedInstruction) as e:
        load(f"    mov.u32 %r1, {reg};")
    assert reg in str(e.value) and "special register" in str(e.value)
    assert e.value.line == FIRST_BODY_LINE


def test_undeclared_ordinary_register_is_still_reported_as_undeclared():
    with pytest.raises(PTXSyntaxError, match="'%q1' is not declared"):
        load("    mov.u32 %r1, %q1;")


@pytest.mark.parametrize("body, why", [
    ("add.cc.u16 %r1, %r2, %r3;", "carry chains (.cc, addc, subc, madc) take .u32, .s32, .u64 or .s64"),
    ("add.sat.u32 %r1, %r2, %r3;", "add.sat.s32"),
    ("mad.lo.sat.s32 %r1, %r2, %r3, %r4;", "mad.hi.sat.s32"),
    ("mul.wide.u64 %rd1, %rd2, %rd3;", "16- or 32-bit"),
    ("popc.f32 %r1, %r2;", "type .f32 is not accepted by popc"),
    ("add %r1, %r2, %r3;", "add takes 1 type, found none"),
    ("cvt.f32 %r1, %r2;", "cvt takes 2 types"),
    ("ld.global.v8.u32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];", ".v8"),
    ("atom.global.v2.f32.add {%r1, %r2}, [%rd1], {%r3, %r4};", "vector atomics"),
    ("max.xorsign.abs.f32 %r1, %r2, %r3;", "xorsign"),
])
def test_unimplemented_type_or_modifier_is_rejected_by_name(body, why):
    with pytest.raises(UnsupportedInstruction) as e:
        load("    " + body)
    assert why in str(e.value) and body.split()[0] in str(e.value)


# ------------------------------------------------------------------ integer .sat
S32_MIN, S32_MAX = -(2**31), 2**31 - 1


def sat(v):
    return min(max(v, S32_MIN), S32_MAX)


def s32(values):
    return np.array((list(values) * 32)[:32], np.int64).astype(np.int32)


def test_add_sat_s32_clamps_at_both_bounds():
    a = s32([S32_MAX, S32_MAX, S32_MIN, S32_MIN, S32_MAX - 1, 5, -7, S32_MAX, 0, S32_MIN + 1])
    b = s32([1, S32_MAX, -1, S32_MIN, 1, -5, 3, S32_MIN, 0, -1])
    got = run_lanes("add.sat.s32 %d, %a, %b;", ins={"a": ("s32", a), "b": ("s32", b)}, outs={"d": "s32"})["d"]
    assert got.tolist() == [sat(int(x) + int(y)) for x, y in zip(a, b)]
    assert got[0] == S32_MAX and got[2] == S32_MIN
    wrap = run_lanes("add.s32 %d, %a, %b;", ins={"a": ("s32", a), "b": ("s32", b)}, outs={"d": "s32"})["d"]
    assert wrap[0] == S32_MIN                               # without .sat it wraps


def test_sub_sat_s32_clamps_at_both_bounds():
    a = s32([S32_MIN, S32_MAX, 0, -1, S32_MIN, 100, S32_MAX, S32_MIN + 1])
    b = s32([1, -1, S32_MIN, S32_MAX, S32_MIN, 200, S32_MAX, 2])
    got = run_lanes("sub.sat.s32 %d, %a, %b;", ins={"a": ("s32", a), "b": ("s32", b)}, outs={"d": "s32"})["d"]
    assert got.tolist() == [sat(int(x) - int(y)) for x, y in zip(a, b)]
    assert got[0] == S32_MIN and got[1] == S32_MAX and got[2] == S32_MAX


def test_mad_hi_sat_s32_saturates_the_high_product_plus_addend():
    a = s32([S32_MIN, S32_MAX, S32_MIN, 65536, -65536, 3, S32_MAX, S32_MIN])
    b = s32([S32_MIN, S32_MAX, S32_MAX, 65536, 65536, 5, 2, 2])
    c = s32([S32_MAX, S32_MAX, S32_MIN, 7, S32_MIN, S32_MIN, S32_MAX, -1])
    got = run_lanes("mad.hi.sat.s32 %d, %a, %b, %c;", ins={"a": ("s32", a), "b": ("s32", b), "c": ("s32", c)},
                    outs={"d": "s32"})["d"]
    want = [sat(((int(x) * int(y)) >> 32) + int(z)) for x, y, z in zip(a, b, c)]
    assert got.tolist() == want
    assert got[0] == S32_MAX and got[2] == S32_MIN
