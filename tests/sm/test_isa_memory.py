"""ld / st of every width and vector shape, and shared / local / generic addressing."""
import numpy as np
import pytest
from conftest import HEADER, run_lanes, run_ptx

ADDR = """
    ld.param.u64 %rd0, [arr_{name}];
    mul.wide.u32 %rd1, %z_tid, {size};
    add.s64 %rd2, %rd0, %rd1;
"""


def addr(name, size):
    """PTX that leaves in %rd2 the address of element tid.x of array parameter `name`."""
    return ADDR.format(name=name, size=size)


R64 = {"rd0": "u64", "rd1": "u64", "rd2": "u64", "rd3": "u64"}


# ------------------------------------------------------------------ ld / st widths
def test_ld_s8_sign_extends_and_ld_u8_zero_extends_into_32_bit_registers():
    src = np.array([0x80, 0x7F, 0xFF, 0x00, 0x01, 0xFE, 0x81, 0x40] * 4, np.uint8)
    body = addr("src", 1) + "ld.global.s8 %s, [%rd2]; ld.global.u8 %u, [%rd2];"
    out = run_lanes(body, outs={"s": "s32", "u": "u32"}, regs=R64, arrays={"src": src})
    assert out["s"].tolist() == [v - 256 if v >= 128 else v for v in src.tolist()]
    assert out["u"].tolist() == src.tolist()


def test_ld_s16_sign_extends_into_32_and_64_bit_registers():
    src = np.array([0x8000, 0x7FFF, 0xFFFF, 0x0001] * 8, np.uint16)
    body = addr("src", 2) + "ld.global.s16 %s, [%rd2]; ld.global.u16 %u, [%rd2]; ld.global.s16 %w, [%rd2];"
    out = run_lanes(body, outs={"s": "s32", "u": "u32", "w": "s64"}, regs=R64, arrays={"src": src})
    want = [v - 65536 if v >= 32768 else v for v in src.tolist()]
    assert out["s"].tolist() == want and out["w"].tolist() == want
    assert out["u"].tolist() == src.tolist()


@pytest.mark.parametrize("t, dtype", [("u8", np.uint8), ("u16", np.uint16), ("u32", np.uint32),
                                      ("u64", np.uint64), ("f32", np.float32), ("f64", np.float64),
                                      ("s32", np.int32), ("b16", np.uint16)])
def test_st_then_ld_round_trips_each_width_without_touching_neighbours(t, dtype, rng):
    size = np.dtype(dtype).itemsize
    src = rng.integers(0, 256, 32 * size, dtype=np.uint8).view(dtype).copy()
    dst = np.full(64 * size, 0xA5, np.uint8).view(dtype).copy()
    dst_before = dst.copy()
    reg = {"u8": "u16", "u16": "u16", "b16": "b16"}.get(t, t)
    body = (addr("src", size) + f"ld.global.{t} %v, [%rd2];" + addr("dst", 2 * size).replace("%rd2", "%rd3") +
            f"st.global.{t} [%rd3], %v;")
    out = run_lanes(body, regs={**R64, "v": reg}, arrays={"src": src, "dst": dst})
    got = out["dst"]
    assert np.array_equal(got[0::2].copy().view(np.uint8), src.view(np.uint8))       # every other element
    assert np.array_equal(got[1::2].copy().view(np.uint8), dst_before[1::2].copy().view(np.uint8))  # gaps


def test_ld_st_v2_f32_and_v4_u32_move_whole_vectors(rng):
    src = rng.standard_normal(64).astype(np.float32)
    ints = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    dst = np.zeros(64, np.float32)
    idst = np.zeros(128, np.uint32)
    body = (addr("src", 8) + "ld.global.v2.f32 {%f0, %f1}, [%rd2];" +
            addr("dst", 8) + "st.global.v2.f32 [%rd2], {%f1, %f0};" +
            addr("ints", 16) + "ld.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd2];" +
            addr("idst", 16) + "st.global.v4.u32 [%rd2], {%r3, %r2, %r1, %r0};")
    regs = {**R64, "f0": "f32", "f1": "f32", "r0": "u32", "r1": "u32", "r2": "u32", "r3": "u32"}
    out = run_lanes(body, regs=regs, arrays={"src": src, "dst": dst, "ints": ints, "idst": idst})
    assert np.array_equal(out["dst"].reshape(32, 2), src.reshape(32, 2)[:, ::-1])
    assert np.array_equal(out["idst"].reshape(32, 4), ints.reshape(32, 4)[:, ::-1])


def test_ld_v2_f64_and_v4_with_sink_elements(rng):
    src = rng.standard_normal(64)
    dst = np.zeros(32)
    ints = np.arange(128, dtype=np.uint32)
    body = (addr("src", 16) + "ld.global.v2.f64 {%d0, %d1}, [%rd2]; add.f64 %d0, %d0, %d1;" +
            addr("dst", 8) + "st.global.f64 [%rd2], %d0;" +
            addr("ints", 16) + "ld.global.v4.u32 {_, %r1, _, %r3}, [%rd2];")
    out = run_lanes(body, outs={"r1": "u32", "r3": "u32"}, regs={**R64, "d0": "f64", "d1": "f64"},
                    arrays={"src": src, "dst": dst, "ints": ints})
    assert np.array_equal(out["dst"], src[0::2] + src[1::2])
    assert out["r1"].tolist() == list(range(1, 128, 4)) and out["r3"].tolist() == list(range(3, 128, 4))


def test_ld_with_register_plus_negative_offset():
    src = np.arange(40, dtype=np.int32) * 3
    body = addr("src", 4) + "ld.global.s32 %a, [%rd2+32]; ld.global.s32 %b, [%rd2+-0]; add.s64 %rd3, %rd2, 8;" \
        "ld.global.s32 %c, [%rd3+-8];"
    out = run_lanes(body, outs={"a": "s32", "b": "s32", "c": "s32"}, regs=R64, arrays={"src": src})
    assert out["a"].tolist() == (src[8:40]).tolist()
    assert out["b"].tolist() == src[:32].tolist() and out["c"].tolist() == src[:32].tolist()


# ------------------------------------------------------------------ shared / local / generic
SHARED = "\t.shared .align 8 .b8 sh[512];"


def test_shared_memory_is_visible_across_lanes_of_a_warp():
    body = """
    mov.u32 %base, sh;
    mul.lo.u32 %o, %z_tid, 4;
    add.u32 %o, %o, %base;
    mul.lo.u32 %v, %z_tid, %z_tid;
    st.shared.u32 [%o], %v;
    bar.sync 0;
    sub.u32 %j, 31, %z_tid;
    mul.lo.u32 %o, %j, 4;
    add.u32 %o, %o, %base;
    ld.shared.u32 %d, [%o];
    """
    out = run_lanes(body, outs={"d": "u32"}, regs={"o": "u32", "v": "u32", "j": "u32", "base": "u32"},
                    decls=SHARED)
    assert out["d"].tolist() == [(31 - i) ** 2 for i in range(32)]


def test_shared_memory_sub_word_and_vector_accesses():
    body = """
    mov.u32 %base, sh;
    mul.lo.u32 %o, %z_tid, 2;
    add.u32 %o, %o, %base;
    cvt.u16.u32 %h, %z_tid;
    mul.lo.u16 %h, %h, 1001;
    st.shared.u16 [%o], %h;
    bar.sync 0;
    setp.eq.u32 %p, %z_tid, 0;
    @%p ld.shared.v4.u32 {%a, %b, %c, %d}, [sh];
    @%p st.shared.v4.u32 [sh+256], {%d, %c, %b, %a};
    bar.sync 0;
    mul.lo.u32 %o, %z_tid, 2;
    and.b32 %o, %o, 15;
    add.u32 %o, %o, %base;
    ld.shared.u16 %h, [%o+256];
    cvt.u32.u16 %r, %h;
    """
    regs = {"base": "u32", "o": "u32", "h": "u16", "p": "pred", "a": "b32", "b": "b32", "c": "b32", "d": "b32"}
    out = run_lanes(body, outs={"r": "u32"}, regs=regs, decls=SHARED)
    halves = [(i * 1001) & 0xFFFF for i in range(8)]
    words = [halves[2 * k] | (halves[2 * k + 1] << 16) for k in range(4)][::-1]
    reversed_halves = [w >> (16 * j) & 0xFFFF for w in words for j in range(2)]
    assert out["r"].tolist() == [reversed_halves[i % 8] for i in range(32)]


def test_local_array_is_private_to_each_thread():
    body = """
    mov.u32 %k, 0;
LOOP_W:
    mul.lo.u32 %v, %z_tid, 100;
    add.u32 %v, %v, %k;
    mul.wide.u32 %off, %k, 4;
    mov.u64 %lb, buf;
    add.s64 %la, %lb, %off;
    st.local.u32 [%la], %v;
    add.u32 %k, %k, 1;
    setp.lt.u32 %p, %k, 16;
    @%p bra LOOP_W;
    mov.u32 %s, 0;
    mov.u32 %k, 0;
LOOP_R:
    mul.wide.u32 %off, %k, 4;
    add.s64 %la, %lb, %off;
    ld.local.u32 %v, [%la];
    add.u32 %s, %s, %v;
    add.u32 %k, %k, 1;
    setp.lt.u32 %p, %k, 16;
    @%p bra LOOP_R;
    ld.local.u32 %first, [buf+4];
    """
    regs = {"k": "u32", "v": "u32", "off": "u64", "lb": "u64", "la": "u64", "p": "pred"}
    out = run_lanes(body, outs={"s": "u32", "first": "u32"}, regs=regs, decls="\t.local .align 4 .b8 buf[64];")
    assert out["s"].tolist() == [sum(t * 100 + k for k in range(16)) for t in range(32)]
    assert out["first"].tolist() == [t * 100 + 1 for t in range(32)]


def test_generic_addressing_via_cvta_reaches_shared_local_and_global():
    dst = np.zeros(32, np.uint32)
    body = addr("dst", 4) + """
    cvta.to.global.u64 %rd3, %rd0;
    cvta.global.u64 %rd1, %rd3;                 // back to generic
    mov.u64 %sa, sh;
    cvta.shared.u64 %gs, %sa;
    mul.wide.u32 %off, %z_tid, 4;
    add.s64 %gs, %gs, %off;
    mul.lo.u32 %v, %z_tid, 7;
    st.u32 [%gs], %v;                           // generic store lands in shared memory
    bar.sync 0;
    add.s64 %sa, %sa, %off;
    ld.shared.u32 %fromshared, [%sa];
    mov.u64 %la, buf;
    cvta.local.u64 %gl, %la;
    add.u32 %w, %v, 5;
    st.u32 [%gl], %w;                           // generic store lands in local memory
    ld.local.u32 %fromlocal, [buf];
    cvta.to.local.u64 %back, %gl;
    ld.local.u32 %fromback, [%back];
    add.s64 %rd1, %rd1, %off;
    add.u32 %w, %w, 1;
    st.u32 [%rd1], %w;                          // generic store to global
    """
    regs = {**R64, "sa": "u64", "gs": "u64", "off": "u64", "la": "u64", "gl": "u64", "back": "u64",
            "v": "u32", "w": "u32"}
    out = run_lanes(body, outs={"fromshared": "u32", "fromlocal": "u32", "fromback": "u32"}, regs=regs,
                    decls=SHARED + "\n\t.local .align 4 .b8 buf[16];", arrays={"dst": dst})
    lanes = np.arange(32)
    assert out["fromshared"].tolist() == (lanes * 7).tolist()
    assert out["fromlocal"].tolist() == (lanes * 7 + 5).tolist()
    assert out["fromback"].tolist() == (lanes * 7 + 5).tolist()
    assert out["dst"].tolist() == (lanes * 7 + 6).tolist()


def test_module_global_variable_with_initializer_and_symbol_offset():
    text = HEADER + """
.global .align 4 .u32 table[4] = {10, 20, 30, 40};
.visible .entry k(.param .u64 out)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    mov.u32 %r0, %tid.x;
    and.b32 %r1, %r0, 3;
    mul.wide.u32 %rd0, %r1, 4;
    mov.u64 %rd1, table;
    add.s64 %rd1, %rd1, %rd0;
    ld.global.u32 %r2, [%rd1];
    ld.global.u32 %r3, [table+8];
    add.u32 %r2, %r2, %r3;
    ld.param.u64 %rd2, [out];
    mul.wide.u32 %rd0, %r0, 4;
    add.s64 %rd2, %rd2, %rd0;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""
    out = np.zeros(32, np.uint32)
    run_ptx(text, "k", 1, 32, out)
    assert out.tolist() == [[10, 20, 30, 40][i % 4] + 30 for i in range(32)]


def test_const_bank_initializer_is_readable():
    text = HEADER + """
.const .align 8 .f64 cst[2] = {0d3FF8000000000000, 0dC004000000000000};
.visible .entry k(.param .u64 out)
{
    .reg .f64 %fd<3>;
    .reg .u64 %rd<3>;
    .reg .u32 %r<2>;
    ld.const.f64 %fd0, [cst];
    ld.const.f64 %fd1, [cst+8];
    mov.u32 %r0, %tid.x;
    cvt.rn.f64.u32 %fd2, %r0;
    fma.rn.f64 %fd2, %fd2, %fd0, %fd1;
    ld.param.u64 %rd0, [out];
    mul.wide.u32 %rd1, %r0, 8;
    add.s64 %rd0, %rd0, %rd1;
    st.global.f64 [%rd0], %fd2;
    ret;
}
"""
    out = np.zeros(32)
    run_ptx(text, "k", 1, 32, out)
    assert out.tolist() == [i * 1.5 - 2.5 for i in range(32)]
