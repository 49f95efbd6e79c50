"""User-facing errors: each names what went wrong and where (PTX file:line:col, block, thread,
address), and each is the documented gpusim.errors class."""
import re

import numpy as np
import pytest
from conftest import HEADER, kernel, run_ptx

import gpusim
from gpusim.errors import GpusimError, KernelFault, LaunchError, PTXSyntaxError, UnsupportedInstruction


def line_of(text: str, needle: str) -> int:
    """1-based line number of the first line containing needle."""
    for n, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(needle)


def col_of(text: str, needle: str, token: str) -> int:
    line = text.splitlines()[line_of(text, needle) - 1]
    return line.index(token) + 1




# ------------------------------------------------------------------ syntax
def test_malformed_operand_list_reports_line_and_column():
    text = kernel("    mov.u32 %r1, 1;\n    add.u32 %r2, %r1 %r1;\n")
    with pytest.raises(PTXSyntaxError) as e:
        gpusim.load_ptx(text)
    err = e.value
    assert err.line == line_of(text, "add.u32")
    assert err.col == col_of(text, "add.u32", "%r1 %r1") + len("%r1 ")
    assert f"<ptx>:{err.line}:{err.col}" in str(err)
    assert "add.u32 %r2, %r1 %r1;" in str(err)                # the offending source line is shown


def test_unexpected_character_reports_line_and_column():
    text = kernel("    mov.u32 %r1, 1;\n    mov.u32 %r2, #5;\n")
    with pytest.raises(PTXSyntaxError) as e:
        gpusim.load_ptx(text)
    assert e.value.line == line_of(text, "#5")
    assert e.value.col == col_of(text, "#5", "#")
    assert f":{e.value.line}:{e.value.col}:" in str(e.value) and "'#'" in str(e.value)


def test_syntax_error_after_block_comment_keeps_line_numbers():
    text = kernel("    /* a comment\n       over three\n       lines */\n    mov.u32 %r1, 1\n    mov.u32 %r2, 2;\n")
    with pytest.raises(PTXSyntaxError) as e:
        gpusim.load_ptx(text)
    # the missing ';' is noticed at the next line's first token
    assert e.value.line == line_of(text, "mov.u32 %r2, 2;")
    assert e.value.col == 5


def test_syntax_error_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "broken.ptx"
    text = kernel("    mov.u32 %r1, [;\n")
    path.write_text(text)
    with pytest.raises(PTXSyntaxError) as e:
        gpusim.load_ptx(str(path))
    assert e.value.file == "broken.ptx"
    assert re.search(rf"broken\.ptx:{line_of(text, 'mov.u32 %r1, [;')}:\d+", str(e.value))


def test_undeclared_register_is_reported_at_its_instruction():
    text = kernel("    mov.u32 %r1, 1;\n    add.u32 %r2, %r1, %q9;\n")
    with pytest.raises(PTXSyntaxError) as e:
        gpusim.launch(gpusim.load_ptx(text)["k"], 1, 32, np.zeros(32, np.uint32))
    assert "%q9" in str(e.value) and e.value.line == line_of(text, "%q9")


def test_branch_to_unknown_label_is_reported():
    text = kernel("    bra NOWHERE;\n")
    with pytest.raises(PTXSyntaxError) as e:
        gpusim.launch(gpusim.load_ptx(text)["k"], 1, 32, np.zeros(32, np.uint32))
    assert "NOWHERE" in str(e.value) and e.value.line == line_of(text, "bra NOWHERE")


def test_unclosed_function_is_reported():
    text = HEADER + ".visible .entry k()\n{\n    ret;\n"
    with pytest.raises(PTXSyntaxError, match="not closed"):
        gpusim.load_ptx(text)


# ------------------------------------------------------------------ unsupported instructions
def test_unsupported_mma_names_itself_and_its_line():
    # m16n8k8 f16 is implemented (tests/isa/test_isa_mma.py); m16n8k4 tf32 is not
    body = ("    .reg .f32 %f<8>;\n    .reg .b32 %h<4>;\n"
            "    mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f0, %f1, %f2, %f3}, {%h0, %h1}, {%h2}, "
            "{%f4, %f5, %f6, %f7};\n")
    text = kernel(body)
    with pytest.raises(UnsupportedInstruction) as e:
        gpusim.launch(gpusim.load_ptx(text)["k"], 1, 32, np.zeros(32, np.uint32))
    err = e.value
    assert err.opcode.startswith("mma.sync")
    assert err.line == line_of(text, "mma.sync")
    assert f"<ptx>:{err.line}:" in str(err) and "mma.sync.aligned.m16n8k4" in str(err)
    assert isinstance(err, GpusimError)


def test_unsupported_texture_fetch_names_itself_and_its_line():
    text = HEADER + """
.visible .entry k(.param .u64 out)
{
    .reg .f32 %f<8>;
    .reg .s32 %r<4>;
    .reg .u64 %rd<2>;
    ld.param.u64 %rd0, [out];
    mov.s32 %r0, 0;
    tex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd0, {%r0}];
    ret;
}
"""
    with pytest.raises(UnsupportedInstruction) as e:
        gpusim.launch(gpusim.load_ptx(text)["k"], 1, 32, np.zeros(32, np.uint32))
    assert "tex" in e.value.opcode and e.value.line == line_of(text, "tex.1d")


def test_unknown_modifier_is_reported_as_unsupported():
    text = kernel("    add.bogus.u32 %r1, %r1, 1;\n")
    with pytest.raises(UnsupportedInstruction) as e:
        gpusim.launch(gpusim.load_ptx(text)["k"], 1, 32, np.zeros(32, np.uint32))
    assert ".bogus" in str(e.value) and e.value.line == line_of(text, "add.bogus")


# ------------------------------------------------------------------ faults at run time
def test_out_of_bounds_load_names_block_thread_address_and_line():
    body = """
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %tid.y;
    mov.u32 %r2, %ctaid.x;
    mov.u64 %rd0, 0xdead0000;
    setp.eq.u32 %p0, %r0, 5;
    setp.eq.u32 %p1, %r1, 1;
    and.pred %p0, %p0, %p1;
    setp.eq.u32 %p2, %r2, 2;
    and.pred %p0, %p0, %p2;
    @%p0 ld.global.u32 %r3, [%rd0+16];
"""
    text = kernel(body)
    with pytest.raises(KernelFault) as e:
        run_ptx(text, "k", 3, (8, 4), np.zeros(4, np.uint32))
    msg = str(e.value)
    assert "out-of-bounds" in msg and "load" in msg and "global" in msg
    assert "0xdead0010" in msg
    assert "block (2, 0, 0)" in msg and "thread (5, 1, 0)" in msg
    assert f"<ptx>:{line_of(text, 'ld.global.u32 %r3')}" in msg and "ld.global.u32 %r3, [%rd0+16]" in msg


def test_out_of_bounds_store_past_the_end_of_an_array():
    body = """
    mov.u32 %r0, %tid.x;
    ld.param.u64 %rd0, [out];
    mul.wide.u32 %rd1, %r0, 4;
    add.s64 %rd2, %rd0, %rd1;
    st.global.u32 [%rd2], %r0;
"""
    text = kernel(body)
    with pytest.raises(KernelFault) as e:
        run_ptx(text, "k", 1, 64, np.zeros(40, np.uint32))      # threads 40..63 write past the end
    msg = str(e.value)
    assert "out-of-bounds" in msg and "store" in msg and "4 bytes" in msg
    assert re.search(r"thread \((4\d|5\d|6[0-3]), 0, 0\)", msg) and f":{line_of(text, 'st.global.u32')}" in msg


def test_shared_memory_out_of_bounds_is_reported():
    body = """
    mov.u32 %r0, %tid.x;
    mul.lo.u32 %r1, %r0, 4;
    add.u32 %r1, %r1, 4096;
    ld.shared.u32 %r2, [%r1];
"""
    text = kernel(body).replace(".reg .pred %p<4>;", ".reg .pred %p<4>;\n    .shared .align 4 .b8 sbuf[64];")
    with pytest.raises(KernelFault) as e:
        run_ptx(text, "k", 1, 32, np.zeros(4, np.uint32))
    assert "out-of-bounds" in str(e.value) and "shared" in str(e.value)


def test_misaligned_access_is_reported_with_its_address():
    body = """
    mov.u32 %r0, %tid.x;
    ld.param.u64 %rd0, [out];
    setp.eq.u32 %p0, %r0, 3;
    @%p0 ld.global.u32 %r1, [%rd0+2];
"""
    text = kernel(body)
    with pytest.raises(KernelFault) as e:
        run_ptx(text, "k", 1, 32, np.zeros(8, np.uint32))
    msg = str(e.value)
    assert "misaligned" in msg and "4 bytes" in msg and "thread (3, 0, 0)" in msg
    addr = int(re.search(r"address (0x[0-9a-f]+)", msg).group(1), 16)
    assert addr % 4 == 2
    assert f":{line_of(text, 'ld.global.u32 %r1')}" in msg


def test_misaligned_vector_access_is_reported():
    body = """
    ld.param.u64 %rd0, [out];
    ld.global.v2.u32 {%r1, %r2}, [%rd0+4];
"""
    with pytest.raises(KernelFault, match="misaligned"):
        run_ptx(kernel(body), "k", 1, 32, np.zeros(8, np.uint32))


def test_barrier_reached_by_only_some_threads_is_a_deadlock():
    # warp 0 waits at barrier 0 while warp 1 waits at barrier 1: neither can complete
    body = """
    mov.u32 %r0, %tid.x;
    setp.lt.u32 %p0, %r0, 32;
    @%p0 bra FIRST;
    bar.sync 1;
    bra DONE;
FIRST:
    bar.sync 0;
DONE:
"""
    text = kernel(body)
    with pytest.raises(KernelFault) as e:
        run_ptx(text, "k", 1, 64, np.zeros(4, np.uint32), mode="functional")
    msg = str(e.value)
    assert "deadlock" in msg and "block (0, 0, 0)" in msg
    assert re.search(rf"<ptx>:({line_of(text, 'bar.sync 0')}|{line_of(text, 'bar.sync 1')})", msg)


def test_barrier_expecting_more_threads_than_the_block_has_is_a_deadlock():
    text = kernel("    bar.sync 0, 64;\n")
    with pytest.raises(KernelFault, match="deadlock"):
        run_ptx(text, "k", 1, 32, np.zeros(4, np.uint32), mode="functional")


def test_runaway_loop_hits_the_watchdog():
    text = kernel("    mov.u32 %r0, 0;\nSPIN:\n    add.u32 %r0, %r0, 1;\n    bra SPIN;\n")
    with pytest.raises(KernelFault) as e:
        run_ptx(text, "k", 1, 32, np.zeros(4, np.uint32), max_instructions=10000)
    msg = str(e.value)
    assert "watchdog" in msg and "10000" in msg


def test_watchdog_budget_does_not_stop_a_kernel_within_it():
    text = kernel("    mov.u32 %r0, 0;\nL:\n    add.u32 %r0, %r0, 1;\n    setp.lt.u32 %p0, %r0, 100;\n"
                  "    @%p0 bra L;\n")
    res = run_ptx(text, "k", 1, 32, np.zeros(4, np.uint32), max_instructions=10000)
    assert 300 <= res.warp_instructions <= 10000


def test_trap_is_a_kernel_fault_naming_the_thread():
    body = "    mov.u32 %r0, %tid.x;\n    setp.eq.u32 %p0, %r0, 9;\n    @%p0 trap;\n"
    text = kernel(body)
    with pytest.raises(KernelFault) as e:
        run_ptx(text, "k", 1, 32, np.zeros(4, np.uint32))
    assert "trap" in str(e.value) and f":{line_of(text, 'trap;')}" in str(e.value)


# ------------------------------------------------------------------ launch errors
OK = kernel("")


@pytest.mark.parametrize("grid, block, what", [
    (1, 2048, "block"), (1, 0, "block"), (1, (32, 32, 2), "block"), (0, 32, "grid"), ((1, 70000), 32, "grid"),
    ((1, 1, 1, 1), 32, "grid"), (1, (1, 2, 3, 4), "block"), ("x", 32, "grid"), (1, -32, "block"),
])
def test_bad_grid_or_block_is_a_launch_error(grid, block, what):
    with pytest.raises(LaunchError) as e:
        gpusim.launch(gpusim.load_ptx(OK)["k"], grid, block, np.zeros(4, np.uint32))
    assert what in str(e.value)


def test_wrong_number_of_arguments_is_a_launch_error():
    with pytest.raises(LaunchError, match="1 param"):
        gpusim.launch(gpusim.load_ptx(OK)["k"], 1, 32, np.zeros(4, np.uint32), np.zeros(4, np.uint32))


def test_unknown_kernel_name_lists_the_known_ones():
    with pytest.raises(LaunchError) as e:
        gpusim.load_ptx(OK)["nope"]
    assert "nope" in str(e.value) and "k" in str(e.value)


def test_unknown_mode_is_a_launch_error():
    with pytest.raises(LaunchError, match="mode"):
        gpusim.launch(gpusim.load_ptx(OK)["k"], 1, 32, np.zeros(4, np.uint32), mode="fast")


def test_missing_ptx_file_is_a_launch_error(tmp_path):
    with pytest.raises(LaunchError, match="no such"):
        gpusim.load_ptx(str(tmp_path / "missing.ptx"))
