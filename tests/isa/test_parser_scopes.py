"""Scoped blocks `{ .reg ...; ... }` inside a function body (inline asm, libdevice): a register declared
in a block shadows an outer one of the same name in that block only, blocks nest, and sibling blocks
declaring the same name get distinct registers; registers may be declared without '%'. `WARP_SZ` is
the immediate 32 wherever an immediate may appear."""
import numpy as np
import pytest
from conftest import HEADER, run_lanes, run_ptx

import gpusim
from gpusim.errors import PTXSyntaxError
from gpusim.isa.parser import parse_ptx


def test_block_register_shadows_the_outer_one_inside_the_block_only():
    body = """
    mov.u32 %d, 5;
    {
        .reg .u32 %d;
        mov.u32 %d, 100;
        add.u32 %e, %d, 1;            // the inner %d
    }
    add.u32 %f, %d, 1;                // the outer %d again
    """
    out = run_lanes(body, outs={"d": "u32", "e": "u32", "f": "u32"})
    assert out["d"].tolist() == [5] * 32 and out["e"].tolist() == [101] * 32 and out["f"].tolist() == [6] * 32


def test_nested_blocks_and_sibling_blocks_with_the_same_name_are_distinct_registers():
    body = """
    {
        .reg .u32 t;
        mov.u32 t, 10;
        {
            .reg .u32 t;              // shadows the block's t
            mov.u32 t, 20;
            mov.u32 %e, t;
        }
        mov.u32 %d, t;                // 10: the nested t did not touch it
    }
    {
        .reg .u32 t;                  // a sibling block: a new register
        add.u32 t, %z_tid, 1000;
        mov.u32 %f, t;
    }
    """
    out = run_lanes(body, outs={"d": "u32", "e": "u32", "f": "u32"})
    assert out["d"].tolist() == [10] * 32 and out["e"].tolist() == [20] * 32
    assert out["f"].tolist() == [1000 + lane for lane in range(32)]


def test_block_registers_work_as_guards_address_bases_pairs_and_negated_predicates():
    body = """
    {
        .reg .pred p, q;
        .reg .u64 base;
        .reg .u32 lo, hi, v<2>;
        setp.lt.u32 p, %z_tid, 8;
        mov.u32 %d, 0;
        @p mov.u32 %d, 1;
        @!p mov.u32 %d, 2;
        setp.eq.or.u32 q, %z_tid, 31, !p;     // q = (tid == 31) or not p
        selp.u32 %e, 7, 9, q;
        mov.b64 {lo, hi}, %w;
        mov.u32 %f, hi;
        ld.param.u64 base, [arr_m];
        cvta.to.global.u64 base, base;
        ld.global.u32 v1, [base+4];
        mov.u32 %g, v1;
        setp.ne.u32 q|p, %z_tid, 3;
        selp.u32 %h, 1, 0, p;
    }
    """
    mem = np.array([11, 22, 33, 44], np.uint32)
    out = run_lanes(body, ins={"w": ("u64", 0x123456789)}, outs={"d": "u32", "e": "u32", "f": "u32", "g": "u32",
                                                                 "h": "u32"}, arrays={"m": mem})
    lane = np.arange(32)
    assert out["d"].tolist() == np.where(lane < 8, 1, 2).tolist()
    assert out["e"].tolist() == np.where((lane >= 8) | (lane == 31), 7, 9).tolist()
    assert out["f"].tolist() == [1] * 32 and out["g"].tolist() == [22] * 32
    assert out["h"].tolist() == (lane == 3).astype(int).tolist()


def test_block_register_is_not_visible_after_its_block():
    text = HEADER + """
.visible .entry k(.param .u64 out)
{
    .reg .u32 %r1;
    {
        .reg .u32 %inner;
        mov.u32 %inner, 1;
    }
    mov.u32 %r1, %inner;
    ret;
}
"""
    with pytest.raises(PTXSyntaxError, match="register '%inner' is not declared"):
        _ = gpusim.load_ptx(text)["k"].decoded


def test_block_register_ranges_are_scoped_too():
    body = """
    mov.u32 %d, 3;
    {
        .reg .u32 %d<3>;
        mov.u32 %d2, 40;
        add.u32 %e, %d2, %d;          // %d is not in the block's range %d0..%d2: the outer one
    }
    """
    out = run_lanes(body, outs={"d": "u32", "e": "u32"})
    assert out["e"].tolist() == [43] * 32 and out["d"].tolist() == [3] * 32


def test_parser_names_block_registers_apart():
    mod = parse_ptx(HEADER + """
.visible .entry k()
{
    .reg .b32 %a;
    { .reg .b32 %a; mov.b32 %a, 1; }
    { .reg .b32 %a; mov.b32 %a, 2; }
    mov.b32 %a, 3;
}
""")
    fn = mod.functions["k"]
    names = [ins.operands[0].name for ins in fn.body]
    assert len(set(names)) == 3 and names[2] == "%a"
    assert all(n in fn.regs for n in names)


# ------------------------------------------------------------------ WARP_SZ
def test_warp_sz_is_the_immediate_32_wherever_an_immediate_may_appear():
    body = """
    mov.u32 %d, WARP_SZ;
    rem.u32 %e, %z_tid, WARP_SZ;
    add.u32 %f, %z_tid, WARP_SZ;
    setp.lt.u32 %p, %z_tid, WARP_SZ;
    selp.u32 %g, 1, 0, %p;
    """
    out = run_lanes(body, outs={"d": "u32", "e": "u32", "f": "u32", "g": "u32"}, regs={"p": "pred"}, block=64)
    lane = np.arange(64)
    assert out["d"].tolist() == [32] * 64
    assert out["e"].tolist() == (lane % 32).tolist()
    assert out["f"].tolist() == (lane + 32).tolist()
    assert out["g"].tolist() == (lane < 32).astype(int).tolist()


WARPSZ_PTX = HEADER + """
.visible .entry warpsz(.param .u64 o)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [o];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, WARP_SZ;
    rem.u32 %r3, %r1, %r2;
    add.s32 %r4, %r3, %r2;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r4;
    ret;
}
"""


def test_nvcc_warpsize_kernel_runs():
    """What nvcc -arch=sm_90 emits for `o[threadIdx.x] = threadIdx.x % warpSize + warpSize`."""
    out = np.zeros(96, np.int32)
    for mode in ("functional", "timing"):
        run_ptx(WARPSZ_PTX, "warpsz", 1, 96, out, mode=mode, gpu="tiny")
        assert out.tolist() == [t % 32 + 32 for t in range(96)]


def test_huge_register_index_in_a_block_is_an_error_not_a_crash():
    text = HEADER + """
.visible .entry k()
{
    { .reg .b32 %t<4>; mov.b32 %t""" + "9" * 5000 + """, 1; }
}
"""
    with pytest.raises(PTXSyntaxError):
        _ = gpusim.load_ptx(text)["k"].decoded
