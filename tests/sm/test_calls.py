"""Calls between .func functions: recursion on a per-thread call stack, arguments from the kernel's
.param space, registers and immediates, and return values into shared memory and registers."""
import numpy as np
import pytest
from conftest import run_ptx

from gpusim.errors import KernelFault, UnsupportedInstruction

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"

# fib(n) by plain recursion, with the ABI NVVM uses: .param arguments declared in a scope at the call
FIB = HEAD + """
.func (.param .b64 ret) fib(.param .b64 n)
{
    .reg .pred %p<2>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [n];
    setp.lt.u64 %p1, %rd1, 2;
    @%p1 bra BASE;
    add.s64 %rd2, %rd1, -1;
    {
    .param .b64 a0;
    st.param.b64 [a0], %rd2;
    .param .b64 r0;
    call (r0), fib, (a0);
    ld.param.b64 %rd3, [r0];
    }
    add.s64 %rd4, %rd1, -2;
    {
    .param .b64 a1;
    st.param.b64 [a1], %rd4;
    .param .b64 r1;
    call (r1), fib, (a1);
    ld.param.b64 %rd5, [r1];
    }
    add.s64 %rd6, %rd3, %rd5;
    st.param.b64 [ret], %rd6;
    ret;
BASE:
    st.param.b64 [ret], %rd1;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd2, %r1;
    {
    .param .b64 a;
    st.param.b64 [a], %rd2;
    .param .b64 r;
    call (r), fib, (a);
    ld.param.b64 %rd3, [r];
    }
    mul.wide.u32 %rd4, %r1, 8;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u64 [%rd5], %rd3;
    ret;
}
"""


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_recursive_fib_keeps_each_activation_on_its_own_stack_frame(mode):
    out = np.zeros(16, np.uint64)
    run_ptx(FIB, "k", 1, 16, out, mode=mode, gpu="tiny")      # lanes diverge at every level
    assert out.tolist() == [fib(n) for n in range(16)]


def test_recursion_deeper_than_the_stack_faults_naming_the_stack_size():
    out = np.zeros(32, np.uint64)
    with pytest.raises(KernelFault, match=r"call stack overflow.*stack_size"):
        run_ptx(FIB, "k", 1, 32, out, mode="functional", stack_size=64)


def test_a_larger_stack_size_lets_deeper_recursion_finish():
    out = np.zeros(24, np.uint64)
    run_ptx(FIB, "k", 1, 24, out, mode="functional", stack_size=4096)
    assert out.tolist() == [fib(n) for n in range(24)]


ARGS = HEAD + """
.func (.param .b32 r) add3(.param .b32 a, .param .b32 b, .param .b32 c)
{
    .reg .b32 %r<6>;
    ld.param.u32 %r1, [a];
    ld.param.u32 %r2, [b];
    ld.param.u32 %r3, [c];
    add.u32 %r4, %r1, %r2;
    add.u32 %r5, %r4, %r3;
    st.param.b32 [r], %r5;
    ret;
}
.visible .entry k(.param .u64 out, .param .u32 bias)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    .shared .align 4 .b32 sres[32];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    call (sres), add3, (bias, %r1, 1000);
    ld.shared.u32 %r3, [sres];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"""


def test_call_reads_kernel_param_register_and_immediate_arguments_and_writes_a_shared_result():
    out = np.zeros(1, np.uint32)
    run_ptx(ARGS, "k", 1, 1, out, np.uint32(7), mode="functional")
    assert out[0] == 7 + 0 + 1000


def test_call_returning_into_a_global_variable_is_refused_by_name():
    text = ARGS.replace(".shared .align 4 .b32 sres[32];", "").replace(
        ".visible .entry", ".global .align 4 .b32 sres[32];\n.visible .entry")
    with pytest.raises(UnsupportedInstruction, match=r"return value into 'sres' in the .global space"):
        run_ptx(text, "k", 1, 1, np.zeros(1, np.uint32), np.uint32(7), mode="functional")
