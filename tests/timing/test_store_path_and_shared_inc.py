"""The store path and shared-memory increments, as the H100 recorded them (validation store_s*,
smem_atomic_*): a warp store costs the LSU `store_line_cycles` per 128-B line it writes (a knob, 1 in the
preset), so with a higher value scattered stores take longer as their lines per request grow; an add of
the constant 1 to shared memory is ATOMS.POPC.INC, which combines the lanes on one word, while an add of
a register serialises them."""
import numpy as np

import gpusim

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def store_kernel(stride_words: int) -> object:
    return gpusim.load_ptx(HEAD + f""".visible .entry k(.param .u64 out) {{
 .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p;
 ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mad.lo.s32 %r4, %r2, %r3, %r1;
 mov.u32 %r5, 0;
LOOP: mul.lo.s32 %r6, %r4, {stride_words}; mul.wide.u32 %rd2, %r6, 4; add.s64 %rd3, %rd1, %rd2;
 st.global.u32 [%rd3], %r4; add.u32 %r5, %r5, 1; setp.lt.u32 %p, %r5, 16; @%p bra LOOP;
 ret; }}""")["k"]


def test_scattered_stores_cost_the_lsu_per_line_written():
    spec = gpusim.get_preset("h100")
    costly = spec.with_(**{"lsu.store_line_cycles": 8})     # the value store_s* alone would fit
    cycles = {}
    for stride in (1, 32):          # 1 line per warp store, then 32
        out = np.zeros(8 * 256 * 32, np.int32)
        cycles[stride] = gpusim.launch(store_kernel(stride), 8, 256, out, gpu=costly).cycles
    # one CTA per SM: its 8 warps x 16 stores x 31 more lines, 8 cycles each, through the SM's one LSU
    extra = 8 * 16 * 31 * 8
    assert cycles[32] - cycles[1] >= 0.8 * extra
    cheap = spec
    out = np.zeros(8 * 256 * 32, np.int32)
    assert gpusim.launch(store_kernel(32), 8, 256, out, gpu=cheap).cycles < cycles[32]


def shared_add(operand: str) -> object:
    return gpusim.load_ptx(HEAD + f""".visible .entry k(.param .u64 out) {{
 .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p; .shared .align 4 .b32 w[32];
 ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1; mov.u32 %r7, 1;
 mov.u32 %r5, 0;
LOOP: red.shared.add.u32 [w], {operand}; add.u32 %r5, %r5, 1; setp.lt.u32 %p, %r5, 64; @%p bra LOOP;
 bar.sync 0; ld.shared.u32 %r6, [w]; st.global.u32 [%rd1], %r6;
 ret; }}""")["k"]


def test_a_shared_add_of_one_combines_the_lanes_on_one_word_and_a_register_add_does_not():
    out = np.zeros(1, np.int32)
    inc = gpusim.launch(shared_add("1"), 1, 32, out)
    assert out[0] == 32 * 64
    reg = gpusim.launch(shared_add("%r7"), 1, 32, out)
    assert out[0] == 32 * 64
    key = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"
    assert inc.metrics[key] == 64 and reg.metrics[key] == 64 * 32     # 32 lanes on one word: serialised
    assert reg.cycles - inc.cycles > 64 * 8                               # unless combined
