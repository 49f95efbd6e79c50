"""The SASS model's issue order: each basic block runs in the order ptxas scheduled its SASS
(gpusim/isa/schedule.py, `sass_order`), but never against a dependence of the PTX."""

import random

import numpy as np
import pytest

import gpusim
from gpusim.isa.decode import decode_kernel

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
REGS = ".reg .b32 %r<16>; .reg .b64 %rd<32>; .reg .pred %p<4>;"


def _module(body: str):
    text = HEAD + ".visible .entry k(.param .u64 a, .param .u64 out)\n{\n" + REGS + "\n" + body + "\nret;\n}\n"
    return gpusim.load_ptx(text)


def _line_of(mod, prefix: str) -> int:
    """The PTX line of the instruction whose text starts with `prefix` (unique in the kernel)."""
    hits = [i for i, s in enumerate(mod.text.splitlines(), 1) if s.strip().startswith(prefix)]
    assert len(hits) == 1, prefix
    return hits[0]


def _computes_the_ptx_result(mod, rank: dict, a) -> bool:
    """Whether the kernel decoded in the order `rank` asks for (PTX line -> position) writes what it writes in
    the PTX's order, run on one warp with input `a`."""
    want, got = np.zeros(64, np.uint32), np.zeros(64, np.uint32)
    gpusim.launch(mod["k"], 1, 32, a, want, mode="functional")
    mod["k"]._decoded = decode_kernel(mod.ast, "k", order=rank)
    gpusim.launch(mod["k"], 1, 32, a, got, mode="functional")
    return bool((got == want).all() and (want[:32] != 0).all())


def _order(mod, rank_by_prefix: dict) -> list[str]:
    rank = {_line_of(mod, p): r for p, r in rank_by_prefix.items()}
    d = decode_kernel(mod.ast, "k", order=rank)
    return [t.rstrip(";").strip() for t in d.texts]


# two chains of two dependent loads; the PTX has both first loads together, ptxas (mlp_l4) chain by chain
CHAINS = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
ld.global.u32 %r1, [%rd1];
ld.global.u32 %r2, [%rd1+4];
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd1, %rd3;
ld.global.u32 %r3, [%rd4];
mul.wide.u32 %rd5, %r2, 4;
add.s64 %rd6, %rd1, %rd5;
ld.global.u32 %r4, [%rd6];
add.u32 %r5, %r3, %r4;
st.global.u32 [%rd2], %r5;
"""


def test_a_block_issues_in_ptxas_order_chain_by_chain():
    mod = _module(CHAINS)
    order = _order(mod, {"ld.global.u32 %r1": 10, "mul.wide.u32 %rd3": 11, "add.s64 %rd4": 12,
                         "ld.global.u32 %r3": 13, "ld.global.u32 %r2": 14, "mul.wide.u32 %rd5": 15,
                         "add.s64 %rd6": 16, "ld.global.u32 %r4": 17, "add.u32 %r5": 18, "st.global": 19})
    loads = [t.split(",")[0] for t in order if t.startswith("ld.global")]
    assert loads == ["ld.global.u32 %r1", "ld.global.u32 %r3", "ld.global.u32 %r2", "ld.global.u32 %r4"]


def test_a_rank_against_a_dependence_is_not_followed():
    mod = _module(CHAINS)
    # ptxas's order asks for the dependent load first: its address is not computed yet, so it waits
    order = _order(mod, {"ld.global.u32 %r3": 1, "ld.global.u32 %r1": 2})
    heads = [t.split(",")[0] for t in order]
    assert heads.index("ld.global.u32 %r1") < heads.index("mul.wide.u32 %rd3") < heads.index("add.s64 %rd4") \
        < heads.index("ld.global.u32 %r3")


def test_loads_never_pass_a_store_to_the_same_space_nor_stores_each_other():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
ld.global.u32 %r1, [%rd1];
st.global.u32 [%rd2], %r1;
ld.global.u32 %r2, [%rd2];
st.global.u32 [%rd2+4], %r2;
"""
    mod = _module(body)
    order = _order(mod, {"ld.global.u32 %r2": 1, "st.global.u32 [%rd2+4]": 2, "ld.global.u32 %r1": 3,
                         "st.global.u32 [%rd2],": 4})
    mem = [t for t in order if t.startswith(("ld.global", "st.global"))]
    assert mem == ["ld.global.u32 %r1, [%rd1]", "st.global.u32 [%rd2], %r1", "ld.global.u32 %r2, [%rd2]",
                   "st.global.u32 [%rd2+4], %r2"]


def test_a_load_may_pass_a_store_to_another_named_space():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
mov.u32 %r9, 0;
ld.global.u32 %r1, [%rd1];
st.shared.u32 [%r9], %r1;
ld.global.u32 %r2, [%rd1+4];
"""
    mod = _module(body)
    order = _order(mod, {"ld.global.u32 %r1": 1, "ld.global.u32 %r2": 2, "st.shared": 3})
    mem = [t.split(",")[0] for t in order if t.startswith(("ld.global", "st.shared"))]
    assert mem == ["ld.global.u32 %r1", "ld.global.u32 %r2", "st.shared.u32 [%r9]"]


def test_an_instruction_with_no_sass_goes_just_before_its_consumer():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
mov.u32 %r7, 5;
ld.global.u32 %r1, [%rd1];
ld.global.u32 %r2, [%rd1+4];
add.u32 %r3, %r2, %r7;
st.global.u32 [%rd2], %r3;
"""
    mod = _module(body)
    order = _order(mod, {"ld.global.u32 %r1": 1, "ld.global.u32 %r2": 2, "add.u32": 3, "st.global": 4})
    heads = [t.split(",")[0] for t in order]
    assert heads.index("ld.global.u32 %r2") < heads.index("mov.u32 %r7") == heads.index("add.u32 %r3") - 1


def test_a_predicated_write_is_not_reordered_with_another_write_of_its_register():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
ld.global.u32 %r1, [%rd1];
setp.gt.u32 %p1, %r1, 3;
mov.u32 %r2, 1;
@%p1 mov.u32 %r2, 2;
st.global.u32 [%rd2], %r2;
"""
    mod = _module(body)
    order = _order(mod, {"@%p1 mov": 1, "mov.u32 %r2, 1": 2})
    assert order.index("mov.u32 %r2, 1") < order.index("@%p1 mov.u32 %r2, 2")


# each thread loads a[tid] and a[tid + 32] (%r1, %r2); %rd5 is its out[tid]
LOADS = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
mov.u32 %r9, %tid.x;
mul.wide.u32 %rd3, %r9, 4;
add.s64 %rd4, %rd1, %rd3;
add.s64 %rd5, %rd2, %rd3;
ld.global.u32 %r1, [%rd4];
ld.global.u32 %r2, [%rd4+128];
"""


@pytest.mark.parametrize("seed", range(6))
def test_any_ptxas_order_computes_the_ptx_result(seed):
    """Whatever order the SASS asks for (here a random one), the block computes what the PTX does."""
    body = LOADS + """
st.global.u32 [%rd5], %r2;
add.u32 %r3, %r1, %r2;
setp.lt.u32 %p1, %r3, 40;
@%p1 add.u32 %r3, %r3, 1000;
ld.global.u32 %r4, [%rd5];
mul.lo.u32 %r5, %r4, 3;
sub.u32 %r6, %r5, %r3;
st.global.u32 [%rd5+128], %r6;
st.global.u32 [%rd5], %r3;
"""
    mod = _module(body)
    lines = [i for i, s in enumerate(mod.text.splitlines(), 1) if s.strip() and not s.strip().startswith(
        (".", "{", "}", "ret"))]
    rng = random.Random(seed)
    rank = dict(zip(lines, rng.sample(range(len(lines)), len(lines))))
    assert _computes_the_ptx_result(mod, rank, np.arange(64, dtype=np.uint32) * 7)


def test_a_load_merged_into_a_vector_load_issues_with_it():
    """ptxas made LDS.128 of four ld.shared from one base: the three with no SASS of their own issue with
    the first, not just before their consumers (ho_matmul_tile32's inner loop)."""
    body = """
ld.param.u64 %rd2, [out];
mov.u32 %r9, 0;
ld.shared.f32 %f1, [%r9];
fma.rn.f32 %f5, %f1, %f1, %f5;
ld.shared.f32 %f2, [%r9+4];
fma.rn.f32 %f5, %f2, %f2, %f5;
ld.shared.f32 %f3, [%r9+8];
fma.rn.f32 %f5, %f3, %f3, %f5;
"""
    text = (HEAD + ".visible .entry k(.param .u64 a, .param .u64 out)\n{\n" + REGS + " .reg .f32 %f<8>;\n"
            + body + "\nret;\n}\n")
    mod = gpusim.load_ptx(text)
    order = _order(mod, {"ld.shared.f32 %f1": 1, "fma.rn.f32 %f5, %f1": 2, "fma.rn.f32 %f5, %f2": 3,
                         "fma.rn.f32 %f5, %f3": 4})
    heads = [t.split(",")[0] for t in order if t.startswith(("ld.shared", "fma"))]
    assert heads[:3] == ["ld.shared.f32 %f1", "ld.shared.f32 %f2", "ld.shared.f32 %f3"]


# two independent shuffle reductions with Triton's line-information marks between the steps: labels nothing
# branches to, which must not cut the block (flash attention's row max/sum; ptxas interleaves the two rows)
TWO_ROWS = LOADS + """
$L__tmp1:
shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;
$L__tmp2:
add.u32 %r4, %r1, %r3;
$L__tmp3:
shfl.sync.bfly.b32 %r5, %r2, 1, 31, -1;
$L__tmp4:
add.u32 %r6, %r2, %r5;
st.global.u32 [%rd5], %r4;
st.global.u32 [%rd5+128], %r6;
"""


def test_a_label_nothing_branches_to_does_not_cut_the_block_but_a_branch_target_does():
    mod = _module(TWO_ROWS)
    rank = {"shfl.sync.bfly.b32 %r3": 1, "add.u32 %r4": 4, "shfl.sync.bfly.b32 %r5": 2, "add.u32 %r6": 5,
            "st.global.u32 [%rd5]": 6, "st.global.u32 [%rd5+128]": 7}
    order = _order(mod, rank)
    heads = [t.split(",")[0] for t in order]
    # ptxas's order: both shuffles, then both adds (the labels stay in the decoded program)
    assert heads.index("shfl.sync.bfly.b32 %r5") < heads.index("add.u32 %r4")
    target = _module(TWO_ROWS.replace("st.global.u32 [%rd5], %r4;", "st.global.u32 [%rd5], %r4;\n"
                                      "setp.eq.u32 %p1, %r9, 99;\n@%p1 bra $L__tmp3;"))
    heads = [t.split(",")[0] for t in _order(target, rank)]
    assert heads.index("add.u32 %r4") < heads.index("shfl.sync.bfly.b32 %r5")


def test_interleaved_shuffle_reductions_compute_the_ptx_result():
    mod = _module(TWO_ROWS)
    rank = {_line_of(mod, p): r for p, r in {"shfl.sync.bfly.b32 %r3": 1, "add.u32 %r4": 4,
                                              "shfl.sync.bfly.b32 %r5": 2, "add.u32 %r6": 5}.items()}
    assert _computes_the_ptx_result(mod, rank, np.arange(64, dtype=np.uint32) * 5 + 3)


# a barrier between a store and a load of another lane's word; register work on both sides
BARRIER = """
ld.param.u64 %rd2, [out];
mov.u32 %r1, %tid.x;
add.u32 %r6, %r1, 1;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd2, %rd3;
st.global.u32 [%rd4], %r6;
bar.sync 0;
add.u32 %r2, %r1, 7;
xor.b32 %r3, %r1, 1;
mul.wide.u32 %rd5, %r3, 4;
add.s64 %rd6, %rd2, %rd5;
ld.global.u32 %r4, [%rd6];
add.u32 %r5, %r4, %r2;
st.global.u32 [%rd4+128], %r5;
"""


def test_register_work_crosses_a_barrier_as_ptxas_places_it_and_memory_accesses_do_not():
    mod = _module(BARRIER)
    # ptxas's order: the address work after the barrier first, the barrier, then the load (asked for first too)
    rank = {"xor.b32": 1, "mul.wide.u32 %rd5": 2, "add.s64 %rd6": 3, "ld.global.u32 %r4": 4, "st.global.u32 [%rd4],": 5,
            "bar.sync": 6, "add.u32 %r2": 7}
    order = _order(mod, rank)
    at = {p: next(i for i, t in enumerate(order) if t.startswith(p)) for p in rank}
    assert at["xor.b32"] < at["add.s64 %rd6"] < at["bar.sync"]          # hoisted above the barrier
    assert at["st.global.u32 [%rd4],"] < at["bar.sync"] < at["ld.global.u32 %r4"]    # memory keeps its side
    want, got = np.zeros(64, np.uint32), np.zeros(64, np.uint32)
    gpusim.launch(mod["k"], 1, 32, want, want, mode="functional")
    mod["k"]._decoded = decode_kernel(mod.ast, "k", order={_line_of(mod, p): r for p, r in rank.items()})
    gpusim.launch(mod["k"], 1, 32, got, got, mode="functional")
    t = np.arange(32)
    assert (want[32:] == (t ^ 1) + 1 + t + 7).all() and (got == want).all()
