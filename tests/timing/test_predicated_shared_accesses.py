"""A warp that jumps over a block ptxas predicated still issues the block's shared loads and stores with no lane
on: each takes one wavefront of the shared pipe (ncu files it as op_misc) and the warp waits for the loads'
round trip before the step's store, as on the H200 (validation/probes/predicated_shared.py, 4,096 trips of
`if (t < lim) { a shared load, an add, a store }` in one CTA of 256 threads an SM: 162.8k cycles with every lane
off against 178.2k with every lane on; gpusim gave 84.1k when it charged such a warp issue slots only)."""

import json
from pathlib import Path

import numpy as np
import pytest

from gpusim import sassmap
from gpusim.sasslisting import predicated_shared

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "validation" / "data" / "h100" / "probe_predicated_shared_h200.json"
HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None

TREE_STEP = """\t@%p2 bra \t$L__BB0_2;
\tld.shared.f32 \t%f1, [%r5];
\tld.shared.f32 \t%f2, [%r6];
\tadd.f32 \t%f3, %f1, %f2;
\tst.shared.f32 \t[%r5], %f3;
\tld.shared.f32 \t%f4, [%r7];
\tst.shared.f32 \t[%r5], %f4;
$L__BB0_2:
""".splitlines()


def test_a_predicated_blocks_shared_accesses_and_dependent_load_steps_are_counted_from_its_sass():
    ops = {2: {"LDS": 1}, 3: {"LDS": 1, "IMAD": 1}, 4: {"FADD": 1}, 5: {"STS": 1}, 6: {"LDS": 1}, 7: {"STS": 1}}
    assert predicated_shared(TREE_STEP, ops, {1: 7.0}) == {1: [5, 2]}
    assert predicated_shared(TREE_STEP, {4: {"FADD": 1}}, {1: 1.0}) == {}      # no shared access: nothing


@pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm")
def test_a_warp_with_no_lane_on_takes_a_wavefront_per_access_and_waits_as_on_the_h200():
    import gpusim
    from gpusim.presets import get_preset
    rec = json.loads(RECORD.read_text())
    hw = {r["variant"]: r for r in rec["results"]}
    k = gpusim.load_ptx(rec["code"]["ptx"])["pred_shared"]
    grid, iters, cycles = 4, 1024, {}
    for lim in (256, 0):
        out = np.zeros(grid * 256, np.uint32)
        r = gpusim.launch(k, grid, 256, out, np.int32(iters), np.int32(lim), gpu=get_preset("h100"),
                          mode="timing", model="sass")
        cycles[lim] = r.cycles
        misc = r.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum"]
        if lim == 0:        # a load and a store per trip, every warp: ncu's op_misc at the probe's size, scaled
            full = hw["lim 0"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum"]
            assert misc == pytest.approx(full * grid * iters / (132 * 4096), rel=0.01)
        else:
            assert misc == 0
    ratio_hw = hw["lim 0"]["gpc__cycles_elapsed.max"] / hw["lim 256"]["gpc__cycles_elapsed.max"]   # 0.91
    assert cycles[0] / cycles[256] == pytest.approx(ratio_hw, abs=0.15)    # 0.44 with issue slots only


GUARDED = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry guarded(.param .u64 out, .param .u32 iters, .param .u32 lim)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 s[4096];
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r2, [iters];
    ld.param.u32 %r3, [lim];
    setp.lt.u32 %p1, %r1, %r3;
    shl.b32 %r4, %r1, 2;
    mov.u32 %r5, s;
    add.u32 %r6, %r5, %r4;
    st.shared.u32 [%r6], %r1;
    bar.sync 0;
    mov.u32 %r7, %r1;
    mov.u32 %r8, 0;
LOOP:
    mad.lo.u32 %r7, %r7, 1664525, 1013904223;
    @%p1 ld.shared.u32 %r9, [%r6];
    @%p1 add.u32 %r7, %r7, %r9;
    @%p1 st.shared.u32 [%r6+2048], %r7;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r2;
    @%p2 bra LOOP;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r7;
    ret;
}
"""


@pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm")
def test_a_shared_access_whose_ptx_guard_is_false_on_every_lane_still_issues_under_the_sass_model():
    import gpusim
    from gpusim.presets import get_preset
    k = gpusim.load_ptx(GUARDED)["guarded"]
    iters, res = 256, {}
    for model in ("sass", "ptx"):
        for lim in (256, 0):
            out = np.zeros(256, np.uint32)
            res[model, lim] = gpusim.launch(k, 1, 256, out, np.int32(iters), np.int32(lim), gpu=get_preset("h100"),
                                            mode="timing", model=model)
    misc = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum"
    assert res["sass", 0].metrics[misc] == 2 * iters * 8          # a load and a store a trip, eight warps
    assert res["sass", 256].metrics[misc] == 0
    assert res["sass", 0].cycles / res["sass", 256].cycles > 0.7  # the loads' round trip kept, as in the probe
    assert res["ptx", 0].metrics[misc] == 0                       # the PTX model times lanes, not SASS
