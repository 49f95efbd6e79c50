"""Shared-memory wavefronts of vector accesses (gpusim/memory/shared_banks.py), and ptxas's vector shared
loads in the SASS model: the loads it merged into an LDS.128 make no requests of their own."""
import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.memory.shared_banks import wavefronts

FULL = 0xFFFFFFFF


def _wf(addrs, size, mask=FULL):
    return wavefronts(np.asarray(addrs, np.int64), mask, size, 32, np.zeros(256, np.int64), np.zeros(32, np.int64))


def test_a_128_bit_access_is_served_a_half_warp_at_a_time():
    distinct = [16 * lane for lane in range(32)]
    assert _wf(distinct, 16) == 4                       # 512 B: 4 wavefronts, as before
    two_rows = [0] * 16 + [256] * 16                    # one 16-B address per half-warp
    assert _wf(two_rows, 16) == 2
    assert _wf([0] * 32, 16) == 2                       # a broadcast still takes both halves
    assert _wf([0] * 32, 16, mask=0xFFFF) == 1          # only one half active
    assert _wf([0] * 16 + [4] * 16, 4) == 1 and _wf([4 * lane for lane in range(32)], 4) == 1


MERGED = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p) {
 .shared .align 16 .b8 tile[2048];
 .reg .b32 %r<8>; .reg .f32 %f<8>; .reg .b64 %rd<4>;
 ld.param.u64 %rd1, [p];
 cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %tid.x;
 cvt.rn.f32.u32 %f1, %r1;
 shl.b32 %r2, %r1, 2;
 mov.u32 %r3, tile;
 add.s32 %r4, %r3, %r2;
 st.shared.f32 [%r4], %f1;
 bar.sync 0;
 shl.b32 %r5, %r1, 4;
 add.s32 %r6, %r3, %r5;
 ld.shared.f32 %f2, [%r6];
 ld.shared.f32 %f3, [%r6+4];
 ld.shared.f32 %f4, [%r6+8];
 ld.shared.f32 %f5, [%r6+12];
 add.f32 %f6, %f2, %f3;
 add.f32 %f6, %f6, %f4;
 add.f32 %f6, %f6, %f5;
 mul.wide.u32 %rd2, %r1, 4;
 add.s64 %rd3, %rd1, %rd2;
 st.global.f32 [%rd3], %f6;
 ret;
}
"""


@pytest.mark.skipif(sassmap.ptxas.find() is None or sassmap.find_nvdisasm() is None,
                    reason="no ptxas/nvdisasm (the triton extra bundles both)")
def test_loads_ptxas_merged_into_one_lds128_make_one_request_in_the_sass_model():
    m = sassmap.weights(MERGED, "sm_90")
    assert 16 in m.vector.values()                      # ptxas made an LDS.128 of the four loads
    k = gpusim.load_ptx(MERGED)["k"]
    out_p, out_s = np.zeros(128, np.float32), np.zeros(128, np.float32)
    p = gpusim.launch(k, 1, 128, out_p, mode="timing")
    s = gpusim.launch(k, 1, 128, out_s, mode="timing", model="sass")
    np.testing.assert_array_equal(out_p, out_s)
    np.testing.assert_array_equal(out_s[:32], np.arange(128, dtype=np.float32).reshape(32, 4).sum(1))
    assert p.metrics["gpusim__shared_requests_op_ld.sum"] == 4 * 4          # 4 warps x 4 scalar loads
    assert s.metrics["gpusim__shared_requests_op_ld.sum"] == 4              # one LDS.128 per warp
    # each warp's 32 lanes x 16 distinct bytes: 4 wavefronts (the PTX model: 4 loads of 1 each)
    assert s.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 4 * 4
