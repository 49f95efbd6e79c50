"""Timing of Hopper's asynchronous units (gpusim/sm/asyncops.py): wgmma.wait_group holds a warp exactly
until its tensor core work is done (latency and rate from the spec), and a try_wait / bulk wait_group
exactly until the TMA unit's copy has landed."""
import numpy as np
import pytest
from conftest import HEADER

import gpusim
from gpusim.presets import TINY

N = 64
WGMMA = "\n".join([HEADER, ".visible .entry k(.param .u64 out)", "{", ".reg .u32 %t; .reg .u64 %o, %x;",
                   f".reg .f32 %d<{N // 2}>;", ".shared .align 1024 .b8 sm[4096];",
                   "mov.u32 %t, %tid.x; wgmma.fence.sync.aligned;",
                   f"wgmma.mma_async.sync.aligned.m64n{N}k16.f32.f16.f16 {{"
                   + ", ".join(f"%d{j}" for j in range(N // 2)) + "}, 0, 0, 0, 1, 1, 0, 0;",
                   "wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0;",
                   "ld.param.u64 %o, [out]; mul.wide.u32 %x, %t, 4; add.u64 %o, %o, %x; st.global.f32 [%o], %d0;",
                   "ret;", "}", ""])
BULK = "\n".join([HEADER, ".visible .entry k(.param .u64 src, .param .u64 dst)", "{",
                  ".reg .u64 %s, %d; .reg .pred %ok; .reg .b64 %st;",
                  ".shared .align 128 .b8 buf[1024]; .shared .align 8 .b64 bar;",
                  "ld.param.u64 %s, [src]; ld.param.u64 %d, [dst];",
                  "mbarrier.init.shared::cta.b64 [bar], 1;",
                  "mbarrier.arrive.expect_tx.shared::cta.b64 %st, [bar], 1024;",
                  "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%s], 1024, [bar];",
                  "WAIT: mbarrier.try_wait.parity.shared::cta.b64 %ok, [bar], 0; @!%ok bra WAIT;",
                  "cp.async.bulk.global.shared::cta.bulk_group [%d], [buf], 1024;",
                  "cp.async.bulk.commit_group; cp.async.bulk.wait_group 0;", "ret;", "}", ""])


def cycles(text, block, args, **over):
    k = gpusim.load_ptx(text)["k"]
    return gpusim.launch(k, 1, block, *args, gpu=TINY.with_(**over), mode="timing").metrics


def test_wgmma_wait_group_releases_the_warps_gmma_latency_cycles_later():
    a = cycles(WGMMA, 128, [np.zeros(128, np.float32)], **{"asyncops.gmma_latency": 0})
    b = cycles(WGMMA, 128, [np.zeros(128, np.float32)], **{"asyncops.gmma_latency": 1000})
    assert b["gpc__cycles_elapsed.max"] - a["gpc__cycles_elapsed.max"] == 1000
    assert b["smsp__average_warp_latency_issue_stalled_barrier.ratio"] - \
        a["smsp__average_warp_latency_issue_stalled_barrier.ratio"] == 1000


@pytest.mark.parametrize("rate", [256, 128])
def test_wgmma_occupies_the_tensor_core_256N_over_its_rate_cycles_per_warp(rate):
    a = cycles(WGMMA, 128, [np.zeros(128, np.float32)], **{"asyncops.gmma_fma_per_cycle": 512})
    b = cycles(WGMMA, 128, [np.zeros(128, np.float32)], **{"asyncops.gmma_fma_per_cycle": rate})
    assert b["gpc__cycles_elapsed.max"] - a["gpc__cycles_elapsed.max"] == 256 * N // rate - 256 * N // 512


def test_bulk_copies_hold_try_wait_and_wait_group_for_the_tma_latency():
    args = lambda: [np.arange(256, dtype=np.uint32), np.zeros(256, np.uint32)]  # noqa: E731
    a = cycles(BULK, 1, args(), **{"asyncops.tma_latency": 0})
    b = cycles(BULK, 1, args(), **{"asyncops.tma_latency": 700})
    assert b["gpc__cycles_elapsed.max"] - a["gpc__cycles_elapsed.max"] == 2 * 700    # the load, then the store
    assert b["gpusim__tma_bytes.sum"] == 2048
