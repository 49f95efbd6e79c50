"""128-bit values: .b128 registers with mov.b128 (copy, pack and unpack {lo, hi}, immediates) and
ld/st.b128 in global, shared and local memory; CUDA C's __int128 as nvcc compiles it (pairs of 64-bit
registers, carry chains and funnel shifts) against Python ints; 128-bit atomics refused by name."""
from pathlib import Path

import numpy as np
import pytest
from conftest import HEADER, run_lanes, run_ptx

import gpusim
from gpusim.errors import KernelFault, UnsupportedInstruction

M64 = (1 << 64) - 1
B128 = ".reg .b128 %q1, %q2, %q3;"


def test_mov_b128_packs_copies_and_unpacks_halves(rng):
    lo = rng.integers(0, 2**63, 32, dtype=np.uint64) * 2 + 1
    hi = rng.integers(0, 2**63, 32, dtype=np.uint64)
    body = "mov.b128 %q1, {%a, %b}; mov.b128 %q2, %q1; mov.b128 {%c, %d}, %q2;"
    out = run_lanes(body, ins={"a": ("b64", lo), "b": ("b64", hi)}, outs={"c": "b64", "d": "b64"}, decls=B128)
    assert out["c"].tolist() == lo.tolist() and out["d"].tolist() == hi.tolist()


def test_mov_b128_of_an_immediate_splits_it_into_halves():
    v = 0x0123456789ABCDEF_FEDCBA9876543210
    out = run_lanes(f"mov.b128 %q1, {v:#x}; mov.b128 {{%c, %d}}, %q1;", outs={"c": "b64", "d": "b64"}, decls=B128)
    assert out["c"].tolist() == [v & M64] * 32 and out["d"].tolist() == [v >> 64] * 32


B128_MEM = HEADER + """
.visible .entry k(.param .u64 out, .param .u64 inp)
{
    .reg .b128 %q<3>;
    .reg .b64 %lo, %hi;
    .reg .u64 %I, %O, %o, %S;
    .reg .u32 %t;
    .shared .align 16 .b8 sbuf[512];
    .local .align 16 .b8 lbuf[16];
    ld.param.u64 %I, [inp];
    ld.param.u64 %O, [out];
    mov.u32 %t, %tid.x;
    mul.wide.u32 %o, %t, 16;
    add.s64 %I, %I, %o;
    add.s64 %O, %O, %o;
    ld.global.b128 %q0, [%I];
    mov.u64 %S, sbuf;
    add.s64 %S, %S, %o;
    st.shared.b128 [%S], %q0;
    bar.sync 0;
    ld.shared.b128 %q1, [%S];
    st.local.b128 [lbuf], %q1;
    ld.local.b128 %q2, [lbuf];
    mov.b128 {%lo, %hi}, %q2;
    add.s64 %lo, %lo, 1;
    mov.b128 %q2, {%lo, %hi};
    st.global.b128 [%O], %q2;
    ret;
}
"""


def test_ld_st_b128_move_16_bytes_through_global_shared_and_local_memory(rng):
    inp = rng.integers(0, 2**63, 64, dtype=np.uint64)
    want = inp.copy()
    want[0::2] += 1
    for mode in ("functional", "timing"):
        out = np.zeros(64, np.uint64)
        run_ptx(B128_MEM, "k", 1, 32, out, inp, mode=mode, gpu="tiny")
        assert out.tolist() == want.tolist()


def test_ld_b128_at_an_address_not_16_byte_aligned_is_a_misaligned_fault():
    text = B128_MEM.replace("add.s64 %I, %I, %o;", "add.s64 %I, %I, %o;\n    add.s64 %I, %I, 8;")
    with pytest.raises(KernelFault, match="misaligned global load of 16 bytes"):
        run_ptx(text, "k", 1, 32, np.zeros(80, np.uint64), np.zeros(80, np.uint64), mode="functional", gpu="tiny")


@pytest.mark.parametrize("line, why", [
    ("atom.global.cas.b128 %q1, [%A], %q2, %q3;", "128-bit atomics (atom.cas/exch.b128) are not implemented"),
    ("ld.global.v2.b128 {%q1, %q2}, [%A];", ".v2 vectors of .b128 are not implemented"),
])
def test_what_128_bit_forms_are_not_modelled_is_refused_by_name(line, why):
    from gpusim.isa.coverage import example_kernel
    with pytest.raises(UnsupportedInstruction) as e:
        _ = gpusim.load_ptx(example_kernel(B128 + line, "b32"))["k"].decoded
    assert why in str(e.value)


def test_b128_operand_must_be_a_b128_register_or_a_pair():
    from gpusim.errors import PTXSyntaxError
    with pytest.raises(PTXSyntaxError, match="must be a .b128 register or a \\{lo, hi\\} pair"):
        run_lanes("mov.b128 %q1, %a;", ins={"a": ("b64", 1)}, outs={}, decls=B128)


# ------------------------------------------------------------------ __int128 as nvcc compiles it
INT128_PTX = (Path(__file__).parent / "ptx" / "int128.ptx").read_text()


def _s128(v):
    v &= (1 << 128) - 1
    return v - (1 << 128) if v >> 127 else v


def _to_words(vals):
    return np.array([w for v in vals for w in (v & M64, (v >> 64) & M64)], np.uint64)


def test_nvcc_int128_arithmetic_matches_python_ints(rng):
    n = 64
    edge = [0, 1, -1, (1 << 127) - 1, -(1 << 127), 1 << 64, M64, -(1 << 64), 12345678901234567890123]
    a = edge + [_s128(int.from_bytes(rng.bytes(16), "little")) for _ in range(n - len(edge))]
    b = [-1, 1, 1, -1, 3, M64, M64, 7, -5] + [_s128(int.from_bytes(rng.bytes(16), "little")) for _ in range(n - 9)]
    b[20] = a[20]                                   # one equal pair for the comparison
    s = np.array([0, 1, 63, 64, 65, 127, 32, 96, 100] + list(rng.integers(0, 256, n - 9)), np.uint32)
    want = []
    for x, y, k in zip(a, b, s):
        k = int(k) & 127
        ux = x & ((1 << 128) - 1)
        uy = y & ((1 << 128) - 1)
        want += [x + y, x - y, x * y, ux << k, x >> k, ux >> k, ux // 1000003,
                 int(x < y) + 2 * int(x == y) + 4 * int(ux < uy)]
    want = _to_words(want)
    k = gpusim.load_ptx(INT128_PTX)["int128_ops"]
    for mode in ("functional", "timing"):
        out = np.zeros(16 * n, np.uint64)
        gpusim.launch(k, 2, 32, _to_words(a), _to_words(b), s, out, np.int32(n), mode=mode, gpu="tiny")
        bad = np.nonzero(out != want)[0]
        assert bad.size == 0, f"{mode}: words {bad[:8].tolist()} (lane {bad[0] // 16}, op {(bad[0] % 16) // 2})"


B128_PARAM = HEADER + """
.visible .entry k(.param .b128 v, .param .u64 out)
{
    .reg .b128 %q;
    .reg .u64 %O;
    ld.param.u64 %O, [out];
    ld.param.b128 %q, [v];
    st.global.b128 [%O], %q;
    ret;
}
"""


def test_b128_kernel_parameter_takes_a_python_int():
    v = (0xDEADBEEF << 96) | (1 << 64) | 0x0123456789ABCDEF
    out = np.zeros(2, np.uint64)
    run_ptx(B128_PARAM, "k", 1, 1, v, out, mode="functional")
    assert out.tolist() == [v & M64, v >> 64]
