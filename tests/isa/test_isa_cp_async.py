"""cp.async: global -> shared copies (sizes, src-size zero fill, ignore-src, cache hints) against numpy in
both modes, the ldgsts counter, refusals by name, and in timing mode wait_group holding a warp until
its copies have landed."""
import numpy as np
import pytest
from conftest import run_lanes

import gpusim
from gpusim.errors import PTXSyntaxError, UnsupportedInstruction

rng = np.random.default_rng(11)
DECLS = ("\t.shared .align 16 .b8 sm[512];\n\t.reg .u32 %sb, %dst;\n\t.reg .u64 %src, %g, %h, %x, %y;\n"
         "\t.reg .u64 %t0, %t1;")


def copy_kernel(size, hint="", extra="", wait="cp.async.commit_group;\n    cp.async.wait_group 0;", kind="ca"):
    """Lane l copies `size` bytes from src + l*size to shared sm + l*16, waits, then writes its 16
    shared bytes to dst + l*16."""
    return f"""
    mov.u32 %sb, sm;
    mul.lo.u32 %dst, %z_tid, 16;
    add.u32 %dst, %sb, %dst;
    mov.u64 %x, -1;
    st.shared.v2.u64 [%dst], {{%x, %x}};
    ld.param.u64 %src, [arr_src];
    mul.wide.u32 %h, %z_tid, {size};
    add.s64 %src, %src, %h;
    cp.async.{kind}.shared.global{hint} [%dst], [%src], {size}{extra};
    {wait}
    ld.shared.v2.u64 {{%x, %y}}, [%dst];
    ld.param.u64 %g, [arr_dst];
    mul.wide.u32 %h, %z_tid, 16;
    add.s64 %g, %g, %h;
    st.global.v2.u64 [%g], {{%x, %y}};
"""


def expected(src, size, nbytes):
    want = np.full((32, 16), 0xFF, np.uint8)
    for lane in range(32):
        n = nbytes[lane]
        want[lane, :size] = 0
        want[lane, :n] = src[lane * size:lane * size + n]
    return want


@pytest.mark.parametrize("size", [4, 8, 16])
def test_cp_async_ca_copies_cp_size_bytes(size):
    src = rng.integers(0, 256, 32 * size).astype(np.uint8)
    out = run_lanes(copy_kernel(size), decls=DECLS, arrays={"src": src, "dst": np.zeros((32, 16), np.uint8)})
    assert np.array_equal(out["dst"], expected(src, size, [size] * 32))
    assert out["_result"].metrics["smsp__inst_executed_op_ldgsts.sum"] == 1


@pytest.mark.parametrize("hint", ["", ".L2::128B", ".L2::cache_hint"])
def test_cp_async_cg_src_size_zero_fills_the_rest(hint):
    src = rng.integers(0, 256, 32 * 16).astype(np.uint8)
    nbytes = rng.integers(0, 17, 32).astype(np.uint32)
    extra = ", %n" + (", %pol" if hint == ".L2::cache_hint" else "")
    out = run_lanes(copy_kernel(16, hint, extra, kind="cg"), ins={"n": ("u32", nbytes), "pol": ("b64", 0)},
                    decls=DECLS, arrays={"src": src, "dst": np.zeros((32, 16), np.uint8)})
    assert np.array_equal(out["dst"], expected(src, 16, nbytes))


def test_cp_async_ignore_src_predicate_writes_zeros():
    src = rng.integers(0, 256, 32 * 8).astype(np.uint8)
    ignore = rng.integers(0, 2, 32).astype(np.uint32)
    out = run_lanes(copy_kernel(8, extra=", %q", wait="cp.async.wait_all;"), ins={"q": ("pred", ignore)},
                    decls=DECLS, arrays={"src": src, "dst": np.zeros((32, 16), np.uint8)})
    assert np.array_equal(out["dst"], expected(src, 8, [0 if i else 8 for i in ignore]))


def _cycles(wait):
    body = copy_kernel(16, wait=f"mov.u64 %t0, %clock64;\n    {wait}\n    mov.u64 %t1, %clock64;\n"
                                "    sub.s64 %t1, %t1, %t0;\n    mov.u64 %el, %t1;")
    src = np.zeros(512, np.uint8)
    out = run_lanes(body, outs={"el": "u64"}, decls=DECLS, mode="timing",
                    arrays={"src": src, "dst": np.zeros((32, 16), np.uint8)})
    return int(out["el"][0])


def test_cp_async_wait_group_holds_the_warp_until_the_copy_lands():
    latency = gpusim.get_preset("tiny").l1.latency        # the least a global read can take
    no_wait = _cycles("cp.async.commit_group;")
    assert _cycles("cp.async.commit_group;\n    cp.async.wait_group 0;") - no_wait >= latency
    assert _cycles("cp.async.wait_all;") - no_wait >= latency
    # wait_group N leaves the newest N groups in flight: the copy's group is the newest here ...
    assert _cycles("cp.async.commit_group;\n    cp.async.wait_group 1;") - no_wait < latency
    # ... and the older one here, behind an empty group
    both = _cycles("cp.async.commit_group;\n    cp.async.commit_group;\n    cp.async.wait_group 1;")
    assert both - no_wait >= latency


@pytest.mark.parametrize("line, why", [
    ("cp.async.bulk.shared::cluster.global [%src], [%src], 16, [%src];", "cp.async.bulk"),
    ("cp.async.ca.shared.global [%dst], [%src], 16, 16, 3;", "cp.async takes"),
])
def test_cp_async_variants_gpusim_does_not_run_are_refused_by_name(line, why):
    with pytest.raises((UnsupportedInstruction, PTXSyntaxError)) as e:
        run_lanes(line, decls=DECLS, mode="functional")
    assert why in str(e.value)


def test_cp_async_cg_takes_16_bytes_only():
    with pytest.raises(PTXSyntaxError, match="cp.async.cg copies 16 bytes"):
        run_lanes("cp.async.cg.shared.global [%dst], [%src], 8;", decls=DECLS, mode="functional")


@pytest.mark.parametrize("kind", ["ca", "cg"])
def test_cp_async_cg_bypasses_the_l1_and_ca_fills_it(kind):
    wait = "cp.async.wait_all;\n    ld.global.v2.u64 {%x, %y}, [%src];"      # the same bytes again, through the L1
    src = np.zeros(512, np.uint8)
    out = run_lanes(copy_kernel(16, wait=wait, kind=kind), decls=DECLS, mode="timing",
                    arrays={"src": src, "dst": np.zeros((32, 16), np.uint8)})
    hit = out["_result"].metrics["l1tex__t_sector_hit_rate.pct"]
    assert (hit == 0.0) if kind == "cg" else (hit >= 50.0)
