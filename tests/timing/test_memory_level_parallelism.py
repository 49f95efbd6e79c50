"""Memory-level parallelism within one warp: independent global loads of one warp are in flight together
(the scoreboard waits only at the first use, the LSU and L1 MSHRs do not serialise them), so a loop
iteration with two independent DRAM loads costs about what one with a single load costs."""
import numpy as np

import gpusim

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
ITERS = 100


def chase_free_loop(loads: int):
    extra = "".join(f"ld.global.f32 %f{2 + j}, [%rd5+{8192 * (j + 1)}]; add.f32 %f6, %f6, %f{2 + j};"
                    for j in range(loads - 1))
    return gpusim.load_ptx(HEAD + f""".visible .entry k(.param .u64 x, .param .u64 out) {{
 .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<8>; .reg .pred %p;
 ld.param.u64 %rd1, [x]; cvta.to.global.u64 %rd1, %rd1; ld.param.u64 %rd2, [out]; cvta.to.global.u64 %rd2, %rd2;
 mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd5, %rd1, %rd3;
 mov.f32 %f1, 0f00000000; mov.f32 %f5, 0f00000000; mov.f32 %f6, 0f00000000; mov.u32 %r5, 0;
LOOP: ld.global.f32 %f1, [%rd5]; {extra} add.f32 %f5, %f5, %f1; add.s64 %rd5, %rd5, 32768;
 add.u32 %r5, %r5, 1; setp.lt.u32 %p, %r5, {ITERS}; @%p bra LOOP;
 add.f32 %f5, %f5, %f6; st.global.f32 [%rd2], %f5; ret; }}""")["k"]


def test_independent_loads_of_one_warp_overlap():
    x = np.ones(1 << 22, np.float32)
    cycles = {}
    for loads in (1, 3):
        out = np.zeros(1, np.float32)
        cycles[loads] = gpusim.launch(chase_free_loop(loads), 1, 32, x, out).cycles
        assert out[0] == ITERS * loads          # every lane stores its own sum to the same word
    per_iter = {k: v / ITERS for k, v in cycles.items()}
    assert per_iter[1] > gpusim.get_preset("h100").dram.latency            # a DRAM round trip per iteration
    assert per_iter[3] < 1.2 * per_iter[1]                                  # three in flight, not three in a row
