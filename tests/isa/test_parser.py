"""The PTX front end: everything numba-cuda and nvcc emit for the example programs parses and decodes,
and the syntax corners (hex floats, negative immediates, addresses, vectors, labels, .loc/.file)
mean what PTX says."""
import inspect
import math
import struct
from pathlib import Path

import numpy as np
import pytest
from conftest import HEADER, run_lanes, run_ptx
from numba import cuda

import gpusim
from gpusim.errors import KernelFault
from gpusim.isa import ast
from gpusim.isa.parser import parse_ptx
from gpusim.kernels import numba_kernel
from programs import all_programs
from programs.argspec import parse_args
from programs.ptx_programs import PTX_DIR, PTX_PROGRAMS

PROGRAMS = all_programs()
NUMBA_KERNELS = [
    pytest.param(mod, kernel, sig, id=f"{name}.{getattr(kernel, '__name__', kernel)}")
    for name, mod in PROGRAMS.items()
    for kernel, sig in mod.KERNELS
]


# ------------------------------------------------------------------ the example programs
@pytest.mark.parametrize("mod, kernel, sig", NUMBA_KERNELS)
def test_numba_ptx_of_every_program_parses_and_decodes(mod, kernel, sig):
    k = numba_kernel(kernel, sig)
    d = k.decoded
    assert d.n > 2 and len(d.ptx_lines) == d.n and len(d.texts) == d.n
    src = Path(inspect.getsourcefile(getattr(kernel, "py_func", kernel))).resolve()
    mapped = [s for s in d.src_lines if s]
    assert mapped, "no .loc mapping at all"
    assert {Path(f).resolve() for f, _ in mapped} == {src}
    lines, first = inspect.getsourcelines(getattr(kernel, "py_func", kernel))
    assert all(first <= line < first + len(lines) for _, line in mapped), "source lines outside the kernel"
    # every decoded instruction points at a PTX line that holds its text
    text_lines = k.ptx.splitlines()
    for pc in range(d.n):
        if d.texts[pc].startswith(("(return from", "exit (end of kernel)")):
            continue                                  # synthetic instructions
        assert d.texts[pc].split()[0] in text_lines[d.ptx_lines[pc] - 1], (pc, d.texts[pc])


@pytest.mark.parametrize("name", sorted(PTX_PROGRAMS))
def test_nvcc_ptx_files_parse_and_decode(name):
    prog = PTX_PROGRAMS[name]
    mod = gpusim.load_ptx(str(PTX_DIR / prog["file"]))
    d = mod[prog["kernel"]].decoded
    assert d.name == prog["kernel"] and d.n > 5
    cu = prog["file"].replace(".ptx", ".cu")
    mapped = {Path(f).name for f, _ in filter(None, d.src_lines)}
    assert Path(cu).name in mapped and all(m.endswith((".cu", ".h", ".hpp")) for m in mapped)
    assert len(d.params) == len(prog["args"])


@pytest.mark.parametrize("name", sorted(PTX_PROGRAMS))
def test_nvcc_ptx_programs_compute_their_reference(name):
    prog = PTX_PROGRAMS[name]
    args = parse_args(prog["args"], seed=1)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    gpusim.launch(gpusim.load_ptx(str(PTX_DIR / prog["file"]))[prog["kernel"]], prog["grid"], prog["block"], *args)
    for index, want in prog["reference"](before).items():
        np.testing.assert_allclose(args[index], want, rtol=prog["rtol"] or 1e-7, atol=prog["atol"])


# ------------------------------------------------------------------ immediates
def _instrs(body: str):
    mod = parse_ptx(HEADER + ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n"
                    ".reg .f64 %fd<4>;\n" + body + "\nret;\n}\n")
    return [i for i in mod.functions["k"].body if isinstance(i, ast.Instr)]


def test_hex_float_immediates_keep_their_exact_bits():
    ins = _instrs("mov.f32 %f1, 0f3F800000;\nmov.f32 %f2, 0fFF800000;\nmov.f64 %fd1, 0d400921FB54442D18;")
    assert ins[0].operands[1] == ast.Imm(0x3F800000, "0f3F800000", "f32")
    assert ins[1].operands[1].value == 0xFF800000 and ins[1].operands[1].fbits == "f32"
    assert ins[2].operands[1].fbits == "f64"
    assert struct.unpack("<d", struct.pack("<Q", ins[2].operands[1].value))[0] == math.pi


def test_hex_float_immediates_execute_as_those_values():
    out = run_lanes("mov.f32 %a, 0f3FC00000; mov.f32 %b, 0f7FC00000; mov.f64 %c, 0d3FB999999999999A;"
                    " mov.f32 %e, 0f80000000; add.f32 %g, %a, 0fC0200000;",
                    outs={"a": "f32", "b": "f32", "c": "f64", "e": "f32", "g": "f32"})
    assert (out["a"] == 1.5).all() and np.isnan(out["b"]).all() and (out["c"] == 0.1).all()
    assert (out["e"].view(np.uint32) == 0x80000000).all() and (out["g"] == -1.0).all()


def test_negative_and_hex_integer_immediates():
    ins = _instrs("add.s32 %r1, %r2, -5;\nmov.u32 %r3, 0xFFFFFFFF;\nmov.u64 %rd1, 0x8000000000000000;")
    assert ins[0].operands[2] == ast.Imm(-5, "-5")
    assert ins[1].operands[1].value == 0xFFFFFFFF and ins[2].operands[1].value == 2**63
    lane = np.arange(32, dtype=np.int32)
    out = run_lanes("add.s32 %d, %a, -5; and.b32 %m, %a, -16; mov.u64 %w, 0x8000000000000001; mov.s64 %n, -1;"
                    " mov.u32 %x, 0xFFFFFFFF; add.s32 %y, %a, 0x7FFFFFFF;",
                    ins={"a": ("s32", lane * 7)},
                    outs={"d": "s32", "m": "s32", "w": "u64", "n": "s64", "x": "u32", "y": "s32"})
    assert out["d"].tolist() == (lane * 7 - 5).tolist()
    assert out["m"].tolist() == ((lane * 7) & -16).tolist()
    assert (out["w"] == 2**63 + 1).all() and (out["n"] == -1).all() and (out["x"] == 2**32 - 1).all()
    assert out["y"].tolist() == [((v + 2**31 - 1 + 2**31) % 2**32) - 2**31 for v in (lane * 7).tolist()]


def test_decimal_float_immediate_in_a_float_instruction():
    out = run_lanes("add.f32 %d, %a, 1.5;", ins={"a": ("f32", np.arange(32, dtype=np.float32))}, outs={"d": "f32"})
    assert out["d"].tolist() == [v + 1.5 for v in range(32)]


def test_f32_hex_immediate_in_an_f64_instruction_is_widened():
    out = run_lanes("add.f64 %d, %a, 0f3E800000;", ins={"a": ("f64", np.zeros(32))}, outs={"d": "f64"})
    assert (out["d"] == 0.25).all()


# ------------------------------------------------------------------ addresses
def test_address_forms_parse_to_base_and_offset():
    ins = _instrs("ld.global.u32 %r1, [%rd1+8];\nld.global.u32 %r1, [%rd1+-4];\nld.global.u32 %r1, [%rd1];\n"
                  "ld.param.u64 %rd2, [k_param_0+16];\nld.global.u32 %r1, [12];\nld.global.u32 %r1, [%rd1-8];")
    assert [i.operands[1] for i in ins[:-1]] == [ast.Addr("%rd1", 8), ast.Addr("%rd1", -4), ast.Addr("%rd1", 0),
                                            ast.Addr("k_param_0", 16), ast.Addr(None, 12), ast.Addr("%rd1", -8)]


def test_register_and_symbol_plus_offset_addresses_execute():
    text = HEADER + """
.global .align 4 .s32 gtab[8] = {0, 11, 22, 33, 44, 55, 66, 77};
.visible .entry k(.param .u64 out, .param .u32 bias)
{
    .reg .s32 %r<8>;
    .reg .u64 %rd<8>;
    .shared .align 4 .s32 stab[4];
    mov.u32 %r0, %tid.x;
    ld.param.u32 %r6, [bias+0];
    st.shared.s32 [stab+12], %r6;
    mov.u64 %rd0, gtab;
    ld.global.s32 %r1, [%rd0+8];
    add.s64 %rd1, %rd0, 28;
    ld.global.s32 %r2, [%rd1+-4];
    ld.global.s32 %r3, [gtab+20];
    ld.shared.s32 %r4, [stab+12];
    add.s32 %r1, %r1, %r2;
    add.s32 %r1, %r1, %r3;
    add.s32 %r1, %r1, %r4;
    ld.param.u64 %rd2, [out];
    mul.wide.u32 %rd3, %r0, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.s32 [%rd2+0], %r1;
    ret;
}
"""
    out = np.zeros(32, np.int32)
    run_ptx(text, "k", 1, 32, out, np.uint32(1000))
    assert (out == 22 + 66 + 55 + 1000).all()


# ------------------------------------------------------------------ vectors, pairs, sinks, labels
def test_vector_operands_parse_as_vec_with_items():
    ins = _instrs("ld.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd1];\nmov.b64 %rd2, {%r0, %r1};\n"
                  "ld.global.v2.u32 {%r0, _}, [%rd1];")
    assert ins[0].operands[0] == ast.Vec((ast.Reg("%r0"), ast.Reg("%r1"), ast.Reg("%r2"), ast.Reg("%r3")))
    assert ins[1].operands[1] == ast.Vec((ast.Reg("%r0"), ast.Reg("%r1")))
    assert ins[2].operands[0] == ast.Vec((ast.Reg("%r0"), ast.Sink()))


def test_mov_packs_and_unpacks_vectors():
    lane = np.arange(32, dtype=np.uint32)
    out = run_lanes("mov.b64 %w, {%a, %b}; mov.b64 {%c, %d}, %w; mov.b32 %h, {%s, %t}; mov.b32 {%s2, %t2}, %a;",
                    ins={"a": ("b32", lane * 3 + 0x10000), "b": ("b32", lane + 0x80000000),
                         "s": ("b16", lane), "t": ("b16", lane + 0x100)},
                    outs={"w": "b64", "c": "b32", "d": "b32", "h": "b32", "s2": "b16", "t2": "b16"})
    a = (lane * 3 + 0x10000).astype(np.uint64)
    b = (lane + 0x80000000).astype(np.uint64)
    assert out["w"].tolist() == ((b << np.uint64(32)) | a).tolist()
    assert out["c"].tolist() == a.tolist() and out["d"].tolist() == b.tolist()
    assert out["h"].tolist() == (((lane + 0x100) << 16) | lane).tolist()
    assert out["s2"].tolist() == ((lane * 3) & 0xFFFF).tolist() and out["t2"].tolist() == [1] * 32


def test_predicate_pair_parses():
    ins = _instrs(".reg .pred %p, %q;\nsetp.lt.s32 %p|%q, %r1, %r2;")
    assert ins[0].operands[0] == ast.PredPair(ast.Reg("%p"), ast.Reg("%q"))


def test_labels_forward_backward_and_on_the_same_line():
    body = """
    mov.u32 %n, 0;
    mov.u32 %k, 0;
    bra.uni $L__start;
$L__dead:   add.u32 %n, %n, 1000;
$L__start:
    add.u32 %n, %n, %z_tid;
    add.u32 %k, %k, 1;
    setp.lt.u32 %p, %k, 3;
    @%p bra $L__start;
    """
    out = run_lanes(body, outs={"n": "u32"}, regs={"k": "u32", "p": "pred"})
    assert out["n"].tolist() == [3 * t for t in range(32)]


def test_label_names_are_recorded_in_the_body():
    mod = parse_ptx(HEADER + ".visible .entry k()\n{\n$L__BB0_1:\n    bra.uni $L__BB0_1;\nEND: ret;\n}\n")
    body = mod.functions["k"].body
    assert isinstance(body[0], ast.Label) and body[0].name == "$L__BB0_1" and body[0].line == 6
    assert isinstance(body[2], ast.Label) and body[2].name == "END"


def test_comments_and_directives_are_skipped():
    text = HEADER + """
// line comment
/* block
   comment */
.visible .entry k(.param .u64 out)
.maxntid 64, 1, 1
{
    .reg .u32 %r<2>;   // trailing comment
    .reg .u64 %rd<3>;
    .pragma "nounroll";
    mov.u32 %r0, %tid.x;  /* inline */ mov.u32 %r1, 7;
    ld.param.u64 %rd0, [out];
    mul.wide.u32 %rd1, %r0, 4;
    add.s64 %rd2, %rd0, %rd1;
    st.global.u32 [%rd2], %r1;
    ret;
}
"""
    k = gpusim.load_ptx(text)["k"]
    assert k.decoded.directives.get("maxntid") == [64, 1, 1]
    out = np.zeros(32, np.uint32)
    gpusim.launch(k, 1, 32, out)
    assert (out == 7).all()


def test_ptx_lines_of_decoded_instructions_match_the_text():
    text = (HEADER + ".visible .entry k()\n{\n    .reg .u32 %r<2>;\n\n    mov.u32 %r0, 1;\n\n\n"
            "    add.u32 %r1, %r0, 2;\n    ret;\n}\n")
    d = gpusim.load_ptx(text)["k"].decoded
    lines = text.splitlines()
    assert "mov.u32" in lines[d.ptx_lines[0] - 1] and "add.u32" in lines[d.ptx_lines[1] - 1]


# ------------------------------------------------------------------ .loc / .file
def loc_probe(x, out):
    i = cuda.grid(1)
    v = x[i] * 3
    out[i] = v + 1            # LOC-PROBE-STORE


def _line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    return first + next(n for n, line in enumerate(lines) if marker in line)


def test_loc_maps_instructions_back_to_the_python_source_line():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    res = gpusim.launch(loc_probe, 1, 32, x, out)
    assert out.tolist() == [v * 3 + 1 for v in range(32)]
    d = res.decoded
    store_line = _line_of(loc_probe, "LOC-PROBE-STORE")
    here = Path(__file__).resolve()
    stores = [pc for pc in range(d.n) if d.texts[pc].startswith("st.global")]
    assert stores and all(d.src_lines[pc] is not None for pc in stores)
    assert all(Path(d.src_lines[pc][0]).resolve() == here and d.src_lines[pc][1] == store_line for pc in stores)


def loc_fault(x, out):
    i = cuda.grid(1)
    out[i + 1000] = x[i]      # LOC-FAULT-STORE


def test_fault_message_names_the_python_source_line():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    with pytest.raises(KernelFault) as e:
        gpusim.launch(loc_fault, 1, 32, x, out)
    msg = str(e.value)
    assert "out-of-bounds" in msg and f"test_parser.py:{_line_of(loc_fault, 'LOC-FAULT-STORE')}" in msg


def test_file_directive_after_the_code_still_resolves():
    text = HEADER + """
.visible .entry k()
{
    .loc 3 42 7
    ret;
}
    .file 3 "/some/where/kernel.cu"
"""
    d = gpusim.load_ptx(text)["k"].decoded
    assert d.src_lines[0] == ("/some/where/kernel.cu", 42)
