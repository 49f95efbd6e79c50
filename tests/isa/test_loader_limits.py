"""The loader refuses what no GPU could hold, and malformed numbers and bytes, by name at file:line:col,
before anything is allocated (a 4 GiB .const took 49 s and 12.7 GB; 2^64 bytes crashed)."""
import time

import numpy as np
import pytest
from conftest import HEADER, kernel

import gpusim
from gpusim.errors import LaunchError, PTXSyntaxError, UnsupportedInstruction


def _load(text):
    mod = gpusim.load_ptx(text)
    for name in mod:
        mod.kernels[name].decoded  # noqa: B018
    return mod


def _where(text, needle):
    for n, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return n, line.index(needle) + 1
    raise AssertionError(needle)


@pytest.mark.parametrize("decl, name, words", [
    (".const .align 4 .b8 big[4294967296];", "big[", "constant bank holds 65536"),
    (".const .b8 huge[18446744073709551616];", "18446744073709551616", "too large"),
    (".const .u32 c[16385];", "c[", "constant bank"),
    (".global .b8 g[18446744073709551615];", "g[", "16 TiB"),
    (".global .f64 g2[4096][4096][4096][4096];", "g2[", "too large"),
    (".shared .b8 s[8589934592];", "s[", "4 GiB"),
])
def test_module_variable_too_large_is_refused_at_its_name(decl, name, words):
    text = HEADER + decl + "\n" + kernel("").split(HEADER, 1)[1]
    t0 = time.perf_counter()
    with pytest.raises(PTXSyntaxError) as e:
        _load(text)
    assert time.perf_counter() - t0 < 1.0
    line, col = _where(text, name)
    assert (e.value.line, e.value.col) == (line, col) and words in str(e.value)


def test_const_bank_total_over_64k_is_refused_naming_the_kernel():
    text = HEADER + ".const .b8 a[40000];\n.const .b8 b[40000];\n" + kernel("").split(HEADER, 1)[1]
    with pytest.raises(PTXSyntaxError, match="kernel 'k' declares 80000 bytes of .const"):
        _load(text)


def test_local_over_512k_per_thread_is_refused():
    with pytest.raises(PTXSyntaxError, match="524288 bytes of local memory") as e:
        _load(kernel("    .local .align 8 .b8 frame[1048576];\n"))
    assert e.value.col == kernel("    .local .align 8 .b8 frame[1048576];\n").splitlines()[e.value.line - 1].index(
        "frame") + 1
    # the largest local frame a thread may have is accepted
    _load(kernel("    .local .align 8 .b8 frame[524288];\n"))


@pytest.mark.parametrize("body, token, words", [
    ("    .reg .b32 %q<1e400>;\n", "1e400", "expected an integer"),
    ("    .reg .b32 %q<99999999999>;\n", "99999999999", "too large"),
    ("    mov.u32 %r1, 99999999999999999999999;\n", "99999999999999999999999", "too large"),
    ("    mov.u32 %r1, 0x10000000000000000;\n", "0x10000000000000000", "too large"),
    ("    mov.u32 %r1, " + "7" * 5000 + ";\n", "7777", "too large"),
    ("    ld.global.u32 %r1, [%rd1+99999999999999999999];\n", "99999999999999999999", "too large"),
    (".loc 1 99999999999 0\n", "99999999999", "too large"),
])
def test_malformed_or_huge_number_is_refused_at_its_token(body, token, words):
    text = kernel(body)
    with pytest.raises(PTXSyntaxError) as e:
        _load(text)
    assert (e.value.line, e.value.col) == _where(text, token) and words in str(e.value)


def test_infinite_float_immediate_for_an_integer_instruction_is_refused():
    with pytest.raises(PTXSyntaxError, match="not a finite number"):
        _load(kernel("    mov.u32 %r1, 1e400;\n"))


def test_float_immediate_beyond_float32_rounds_to_infinity_as_ptxas_does():
    out = np.zeros(1, np.float32)
    body = ("    .reg .f32 %f<2>;\n    mov.f32 %f1, 1e39;\n    ld.param.u64 %rd1, [out];\n"
            "    cvta.to.global.u64 %rd1, %rd1;\n    st.global.f32 [%rd1], %f1;\n")
    gpusim.launch(gpusim.load_ptx(kernel(body))["k"], 1, 1, out, mode="functional")
    assert np.isposinf(out[0])


@pytest.mark.parametrize("tail", [".version", ".file", ".loc", ".address_size", ".pragma \"x\"", ".section",
                                  ".visible", ".global .u32", ".entry k2(", "@%p1", "ld.global.u32 %r1, [%rd1+"])
def test_directive_or_statement_cut_at_end_of_file_is_a_syntax_error(tail):
    with pytest.raises(PTXSyntaxError):
        _load(HEADER + tail)


def test_non_utf8_byte_is_refused_at_its_line_and_column(tmp_path):
    f = tmp_path / "bad.ptx"
    text = kernel("    mov.u32 %r1, 1; // caf\xe9\n")
    f.write_bytes(text.encode("latin-1"))
    with pytest.raises(PTXSyntaxError, match="0xe9 is not UTF-8") as e:
        gpusim.load_ptx(str(f))
    assert (e.value.file, e.value.line, e.value.col) == ("bad.ptx", *_where(text, "\xe9"))


def test_directory_as_ptx_is_refused(tmp_path):
    d = tmp_path / "k.ptx"
    d.mkdir()
    with pytest.raises(LaunchError, match="is a directory"):
        gpusim.load_ptx(str(d))


CALL = HEADER + """
.global .align 4 .b32 G;
.func (.param .b32 ret) f(.param .b32 x)
{
    .reg .b32 %r<2>;
    ld.param.b32 %r1, [x];
    st.param.b32 [ret], %r1;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    {
    .param .b32 a;
    .param .b32 r;
    st.param.b32 [a], 7;
    call (TARGET), f, (ARG);
    }
    ret;
}
"""


@pytest.mark.parametrize("target, arg, name", [("G", "a", "G"), ("out", "a", "out"), ("r", "G", "G")])
def test_call_operand_outside_local_memory_is_refused_by_name(target, arg, name):
    """A .global return target segfaulted: its address was used as an offset into local memory. A
    return into the kernel's read-only .param space, and an argument from .global, are refused too
    (registers, immediates and the kernel's .param space are valid arguments: tests/sm/test_calls.py)."""
    with pytest.raises((UnsupportedInstruction, PTXSyntaxError)) as e:
        _load(CALL.replace("TARGET", target).replace("ARG", arg))
    assert f"'{name}'" in str(e.value) or name in str(e.value)


def test_call_with_wrong_parameter_count_is_refused():
    with pytest.raises(PTXSyntaxError, match="takes 1 arguments"):
        _load(CALL.replace("TARGET", "r").replace("ARG", "a, a"))


def test_largest_local_frame_runs_or_is_refused_for_host_memory():
    """512 KB per thread for every resident thread of an H100 is 138 GB of host memory: gpusim either
    holds it or says so; it does not die with MemoryError."""
    body = ("    .local .align 8 .b8 frame[524288];\n    mov.u64 %rd1, frame;\n    st.local.u32 [%rd1+524284], 7;\n"
            "    ld.local.u32 %r1, [%rd1+524284];\n    ld.param.u64 %rd2, [out];\n"
            "    cvta.to.global.u64 %rd2, %rd2;\n    st.global.u32 [%rd2], %r1;\n")
    out = np.zeros(1, np.uint32)
    try:
        gpusim.launch(gpusim.load_ptx(kernel(body))["k"], 2000, 1024, out, mode="timing", max_instructions=1000)
    except LaunchError as e:
        assert "memory" in str(e)
    except gpusim.KernelFault as e:     # the budget: it did start
        assert "watchdog" in str(e)
    out[0] = 0
    gpusim.launch(gpusim.load_ptx(kernel(body))["k"], 1, 32, out, mode="functional")
    assert out[0] == 7
