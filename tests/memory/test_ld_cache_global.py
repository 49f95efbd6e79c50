"""ld.global.cg and .cv keep a load out of the L1 (cached in the L2 only, as the PTX ISA has it): a second load of
the same words goes to the L2 again, where a plain ld hits the L1. The values are the same either way.
validation/probes/l2_reuse_stream.py's `cg` cases read past the L1 so on the GPU (__ldcg)."""
import numpy as np
import pytest

import gpusim
from gpusim.isa import opcodes as oc

PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 o)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<7>;
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd2, [o];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ldOP.u32 %r2, [%rd4];
    bar.sync 0;
    ldOP.u32 %r3, [%rd4];
    add.u32 %r4, %r2, %r3;
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r4;
    ret;
}
"""


def _run(op):
    k = gpusim.load_ptx(PTX.replace("ldOP", op))["k"]
    a, out = np.arange(256, dtype=np.uint32), np.zeros(256, np.uint32)
    r = gpusim.launch(k, 1, 256, a, out, mode="timing", gpu="tiny")
    assert (out == 2 * a).all()
    return k, r.metrics


@pytest.mark.parametrize("op", ["ld.global.cg", "ld.global.cv"])
def test_a_cache_global_load_reads_the_l2_each_time(op):
    k, m = _run(op)
    loads = [row for row in k.decoded.ins if row[oc.F_OP] == oc.OP["ld"] and row[oc.F_SPACE] == oc.SP_GLOBAL]
    assert len(loads) == 2 and all(row[oc.F_FLAGS] & oc.FL_L2ONLY for row in loads)
    _, plain = _run("ld.global")
    assert plain["l1tex__t_sector_hit_rate.pct"] == 50.0          # the second load hits
    assert m["l1tex__t_sector_hit_rate.pct"] == 0.0
    assert m["lts__t_sectors.sum"] - plain["lts__t_sectors.sum"] == 32     # the second load's 32 sectors, again
