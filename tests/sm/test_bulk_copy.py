"""cp.async.bulk (non-tensor): global -> shared completing on an mbarrier's transaction count, shared ->
global in a bulk group with commit/wait_group; misaligned sizes fault; the timing model holds the
waiting warps until the TMA unit has moved the bytes (stall reasons `barrier` and `membar`)."""
import numpy as np
import pytest
from conftest import run_lanes

import gpusim
from gpusim.errors import KernelFault

DECLS = """.shared .align 128 .b8 buf[512];
    .shared .align 8 .b64 bar;
    .reg .b64 %st; .reg .pred %lane0, %ok; .reg .u64 %src, %dst, %sa; .reg .u32 %v, %ph;"""


def test_bulk_load_lands_in_shared_memory_when_the_mbarrier_phase_completes(rng):
    data = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    body = """
    setp.eq.u32 %lane0, %z_tid, 0;
    @%lane0 mbarrier.init.shared::cta.b64 [bar], 1;
    fence.mbarrier_init.release.cluster;
    bar.sync 0;
    ld.param.u64 %src, [arr_data];
    @%lane0 mbarrier.arrive.expect_tx.shared::cta.b64 %st, [bar], 512;
    @%lane0 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%src], 512, [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %ok, [bar], 0;
    @!%ok bra WAIT;
    mov.u64 %sa, buf;
    mul.wide.u32 %dst, %z_tid, 16;
    add.u64 %sa, %sa, %dst;
    ld.shared.u32 %w0, [%sa];
    ld.shared.u32 %w3, [%sa+12];
"""
    out = run_lanes(body, outs={"w0": "u32", "w3": "u32"}, decls=DECLS, arrays={"data": data})
    assert out["w0"].tolist() == data[0::4].tolist()
    assert out["w3"].tolist() == data[3::4].tolist()
    m = out["_result"].metrics
    assert m["gpusim__tma_bytes.sum"] == 512
    assert m["smsp__average_warp_latency_issue_stalled_barrier.ratio"] > 0


def test_bulk_store_reaches_global_memory_after_its_bulk_group_completes():
    body = """
    setp.eq.u32 %lane0, %z_tid, 0;
    mov.u64 %sa, buf;
    mul.wide.u32 %dst, %z_tid, 4;
    add.u64 %sa, %sa, %dst;
    mul.lo.u32 %v, %z_tid, 3;
    st.shared.u32 [%sa], %v;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    ld.param.u64 %dst, [arr_res];
    add.u64 %dst, %dst, 16;
    @%lane0 cp.async.bulk.global.shared::cta.bulk_group [%dst], [buf], 96;
    @%lane0 cp.async.bulk.commit_group;
    @%lane0 cp.async.bulk.wait_group.read 0;
    @%lane0 cp.async.bulk.wait_group 0;
"""
    res = np.zeros(40, np.uint32)
    out = run_lanes(body, outs={}, decls=DECLS, arrays={"res": res})
    assert out["res"].tolist() == [0] * 4 + [3 * i for i in range(24)] + [0] * 12
    m = out["_result"].metrics
    assert m["gpusim__tma_copies.sum"] == 1
    assert m["smsp__average_warp_latency_issue_stalled_membar.ratio"] > 0


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_bulk_copy_of_a_size_not_a_multiple_of_16_faults_as_misaligned(mode):
    from conftest import build_kernel
    body = """
    ld.param.u64 %src, [arr_data];
    mbarrier.init.shared::cta.b64 [bar], 1;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%src], 100, [bar];
"""
    k = gpusim.load_ptx(build_kernel(body, {}, {}, decls=DECLS, arrays={"data": 0}))["k"]
    with pytest.raises(KernelFault, match="misaligned"):
        gpusim.launch(k, 1, 32, np.zeros(64, np.uint32), mode=mode, gpu="tiny")
