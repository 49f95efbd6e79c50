"""ptxas-like scheduling: consumers of loads sink below independent work; nothing else changes."""

import numpy as np

import gpusim
from gpusim.presets import TINY

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
REGS = ".reg .b32 %r<16>; .reg .b64 %rd<32>; .reg .pred %p<4>;"


def _kernel(body: str):
    text = HEAD + ".visible .entry k(.param .u64 a, .param .u64 out)\n{\n" + REGS + "\n" + body + "\nret;\n}\n"
    return gpusim.load_ptx(text)["k"]


def _order(body: str) -> list[str]:
    return [t.split()[0] + " " + t.split()[1].rstrip(",") for t in _kernel(body).decoded.texts
            if t.split()[0] in ("ld.global.u32", "add.u32", "st.global.u32", "mov.u64", "sub.s64")]


FOUR_LOADS = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
mov.u32 %r9, 0;
ld.global.u32 %r1, [%rd1];
add.u32 %r9, %r9, %r1;
ld.global.u32 %r2, [%rd1+256];
add.u32 %r9, %r9, %r2;
ld.global.u32 %r3, [%rd1+512];
add.u32 %r9, %r9, %r3;
ld.global.u32 %r4, [%rd1+768];
add.u32 %r9, %r9, %r4;
st.global.u32 [%rd2], %r9;
"""


def test_independent_loads_issue_before_their_consumers():
    assert _order(FOUR_LOADS) == ["ld.global.u32 %r1", "ld.global.u32 %r2", "ld.global.u32 %r3",
                                  "ld.global.u32 %r4", "add.u32 %r9", "add.u32 %r9", "add.u32 %r9",
                                  "add.u32 %r9", "st.global.u32 [%rd2]"]


def test_scheduled_loads_overlap_their_latencies():
    a = np.arange(1024, dtype=np.uint32)
    out = np.zeros(1, np.uint32)
    r = gpusim.launch(_kernel(FOUR_LOADS), 1, 1, a, out, gpu=TINY, mode="timing")
    assert out[0] == a[0] + a[64] + a[128] + a[192]
    # one DRAM round trip plus a few issue cycles, not four round trips
    assert r.metrics["smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio"] < 1.5 * (
        TINY.l2.latency + TINY.dram.latency)


def test_a_clock_read_is_never_crossed():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
mov.u64 %rd5, %clock64;
ld.global.u32 %r1, [%rd1];
add.u32 %r2, %r1, 1;
mov.u64 %rd6, %clock64;
sub.s64 %rd7, %rd6, %rd5;
ld.global.u32 %r3, [%rd1+4];
st.global.u32 [%rd2], %r2;
"""
    assert _order(body) == ["mov.u64 %rd5", "ld.global.u32 %r1", "add.u32 %r2", "mov.u64 %rd6",
                            "sub.s64 %rd7", "ld.global.u32 %r3", "st.global.u32 [%rd2]"]


def test_a_consumer_stops_before_the_first_instruction_sharing_a_register():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
ld.global.u32 %r1, [%rd1];
add.u32 %r2, %r1, 1;
ld.global.u32 %r3, [%rd1+4];
st.global.u32 [%rd2], %r2;
ld.global.u32 %r4, [%rd1+8];
"""
    # the add may pass the second load but not the store that reads its result
    assert _order(body) == ["ld.global.u32 %r1", "ld.global.u32 %r3", "add.u32 %r2",
                            "st.global.u32 [%rd2]", "ld.global.u32 %r4"]


def test_labels_and_branches_bound_the_reordering():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
ld.global.u32 %r1, [%rd1];
add.u32 %r2, %r1, 1;
bra L1;
L1:
ld.global.u32 %r3, [%rd1+4];
st.global.u32 [%rd2], %r2;
"""
    assert _order(body) == ["ld.global.u32 %r1", "add.u32 %r2", "ld.global.u32 %r3", "st.global.u32 [%rd2]"]


def test_pointer_chase_keeps_its_dependent_order():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
ld.global.u32 %r1, [%rd1];
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd1, %rd3;
ld.global.u32 %r2, [%rd4];
st.global.u32 [%rd2], %r2;
"""
    k = _kernel(body)
    texts = [t.split()[0] for t in k.decoded.texts]
    assert texts.index("mul.wide.u32") < texts.index("add.s64") < texts.index("ld.global.u32", 3)
    a = np.array([2, 0, 7, 0], np.uint32)
    out = np.zeros(1, np.uint32)
    gpusim.launch(k, 1, 1, a, out, mode="functional")
    assert out[0] == 7


def test_consumers_of_shared_loads_sink_past_a_batch_of_at_most_six_loads():
    """ptxas issues 6-8 LDS ahead of their uses (smem_ld32's SASS), not a whole unrolled loop's worth."""
    from gpusim.isa.schedule import SHARED_BATCH
    loads = "\n".join(f"ld.shared.u32 %r{i}, [%r15+{4 * i}];\nadd.u32 %r14, %r14, %r{i};" for i in range(1, 11))
    body = f"ld.param.u64 %rd2, [out];\nmov.u32 %r15, 0;\nmov.u32 %r14, 0;\n{loads}\nst.global.u32 [%rd2], %r14;"
    texts = [t.split()[0] + " " + t.split()[1].rstrip(",") for t in _kernel(body).decoded.texts
             if t.startswith(("ld.shared", "add.u32"))]
    first_add = texts.index("add.u32 %r14")
    assert texts[:first_add] == [f"ld.shared.u32 %r{i}" for i in range(1, SHARED_BATCH + 2)]
    assert texts.count("add.u32 %r14") == 10 and sum(t.startswith("ld.shared") for t in texts) == 10


# each thread: %rd4 = &a[tid], %rd6 = &sh[tid]
TILE_ADDRESSES = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
mov.u32 %r9, %tid.x;
mul.wide.u32 %rd3, %r9, 4;
add.s64 %rd4, %rd1, %rd3;
mov.u64 %rd5, sh;
add.s64 %rd6, %rd5, %rd3;
"""

TILE = TILE_ADDRESSES + """ld.global.u32 %r1, [%rd4];
st.shared.u32 [%rd6], %r1;
ld.global.u32 %r2, [%rd4+128];
st.shared.u32 [%rd6+128], %r2;
ld.global.u32 %r3, [%rd4+256];
st.shared.u32 [%rd6+256], %r3;
bar.sync 0;
ld.shared.u32 %r4, [%rd6+128];
add.s64 %rd7, %rd2, %rd3;
st.global.u32 [%rd7], %r4;
"""


def _mem_order(body: str, shared: bool = True) -> list[str]:
    text = HEAD + (".shared .align 4 .b8 sh[1024];\n" if shared else "") + \
        ".visible .entry k(.param .u64 a, .param .u64 out)\n{\n" + REGS + "\n" + body + "\nret;\n}\n"
    k = gpusim.load_ptx(text)["k"]
    return [" ".join(t.split()[:2]).rstrip(",") for t in k.decoded.texts if t.startswith(("ld.", "st."))], k


def test_stores_of_loaded_values_sink_below_the_loads_of_another_space():
    """ptxas issues a tile's global loads back to back, then the shared stores (LDG x3, STS x3)."""
    order, k = _mem_order(TILE)
    assert order[2:8] == ["ld.global.u32 %r1", "ld.global.u32 %r2", "ld.global.u32 %r3",
                          "st.shared.u32 [%rd6]", "st.shared.u32 [%rd6+128]", "st.shared.u32 [%rd6+256]"]
    a = np.arange(96, dtype=np.uint32) * 3
    out = np.zeros(32, np.uint32)
    gpusim.launch(k, 1, 32, a, out, mode="functional")
    assert (out == a[32:64]).all()


def test_a_store_never_passes_a_load_of_its_own_space_or_a_generic_one():
    body = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
ld.global.u32 %r1, [%rd1];
st.global.u32 [%rd2], %r1;
ld.global.u32 %r2, [%rd1+4];
st.global.u32 [%rd2+4], %r2;
ld.u32 %r3, [%rd1+8];
st.shared.u32 [sh], %r3;
ld.u32 %r4, [%rd1+12];
st.volatile.shared.u32 [sh+4], %r4;
ld.shared.u32 %r5, [sh+8];
"""
    order, _ = _mem_order(body)
    assert order[2:] == ["ld.global.u32 %r1", "st.global.u32 [%rd2]", "ld.global.u32 %r2", "st.global.u32 [%rd2+4]",
                         "ld.u32 %r3", "st.shared.u32 [sh]", "ld.u32 %r4", "st.volatile.shared.u32 [sh+4]",
                         "ld.shared.u32 %r5"]


GUARDED = TILE_ADDRESSES + """mov.u32 %r1, 0;
setp.ge.u32 %p1, %r9, 16;
@%p1 bra $SKIP1;
ld.global.u32 %r1, [%rd4];
$SKIP1:
st.shared.u32 [%rd6], %r1;
mov.u32 %r2, 7;
setp.lt.u32 %p2, %r9, 8;
@%p2 bra $SKIP2;
ld.global.u32 %r2, [%rd4+128];
$SKIP2:
st.shared.u32 [%rd6+128], %r2;
bar.sync 0;
ld.shared.u32 %r4, [%rd6];
ld.shared.u32 %r5, [%rd6+128];
add.u32 %r6, %r4, %r5;
add.s64 %rd7, %rd2, %rd3;
st.global.u32 [%rd7], %r6;
"""


def test_a_store_moves_past_a_bounds_checked_load_after_it():
    """`if (in bounds) a = A[..]; sA[..] = a; if (in bounds) b = B[..]; sB[..] = b`: ptxas predicates the
    small blocks and issues both loads before the first store; the store still runs with every lane."""
    order, k = _mem_order(GUARDED)
    assert order[2:6] == ["ld.global.u32 %r1", "ld.global.u32 %r2", "st.shared.u32 [%rd6]",
                          "st.shared.u32 [%rd6+128]"]
    a = np.arange(64, dtype=np.uint32) + 100
    out = np.zeros(32, np.uint32)
    gpusim.launch(k, 1, 32, a, out, mode="functional")
    t = np.arange(32)
    assert (out == np.where(t < 16, a[:32], 0) + np.where(t >= 8, a[32:], 7)).all()


def test_a_kernel_decoded_with_its_stores_kept_has_the_ptx_order():
    """The SASS model's decoding for a kernel ptxas compiled short of registers (it spills): each load's
    store stays next to it, as ptxas then issues them (ho_sgemm_regtile16's LDG/STS pairs)."""
    _, k = _mem_order(TILE)
    kept = [" ".join(t.split()[:2]).rstrip(",") for t in k.decoded_stores_kept.texts if t.startswith(("ld.", "st."))]
    assert kept[2:8] == ["ld.global.u32 %r1", "st.shared.u32 [%rd6]", "ld.global.u32 %r2",
                         "st.shared.u32 [%rd6+128]", "ld.global.u32 %r3", "st.shared.u32 [%rd6+256]"]
