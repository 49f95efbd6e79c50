"""ptxas's control bits in the SASS model: each SASS instruction's stall cycles and yield flag (the top
bits of its encoding, `nvdisasm -hex`), summed per PTX line by the map (gpusim/sassmap.py), make a warp
wait before its next instruction and make the greedy scheduler (gto) move off a warp that yields
(gpusim/sm/scheduler.py)."""
import re

import numpy as np
import pytest

import gpusim
from gpusim import sasslisting, sassmap
from gpusim.presets import get_preset
from gpusim.sm.scheduler import NEVER, gto_key, gty_key

HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the triton extra bundles both)")

# three lines as `nvdisasm -g -hex -c` prints them; the high words' control bits:
#   0x000ff00000000800: stall 8, yield flag set (stay on the warp)
#   0x002fda0003f25270: stall 13, yield flag clear (switch)
#   0x000fe20000000a00: stall 1, flag set;  0x001fea0003800000: stall 5, flag set
HEX_LISTING = """
\t//## File "ptx", line 2
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000ff00000000800 */
\t//## File "ptx", line 3
        /*0010*/                   IADD3 R0, R1, 0x1, RZ ;                /* 0x0000000101007810 */
                                                                          /* 0x000fe20000000a00 */
        /*0020*/                   ISETP.NE.AND P1, PT, R0, RZ, PT ;      /* 0x000000ff0000720c */
                                                                          /* 0x002fda0003f25270 */
\t//## File "ptx", line 4
        /*0030*/               @P1 BRA `(.L_x_1) ;                        /* 0x0000000000941947 */
                                                                          /* 0x001fea0003800000 */
.L_x_1:
        /*0040*/                   EXIT ;                                 /* 0x000000000000794d */
                                                                          /* 0x000fea0003800000 */
"""
HEX_PTX = "\n".join(["", "ld.param.u32 %r1, [p];", "setp.ne.u32 %p1, %r1, 1;", "@%p1 bra $L;", "ret;"])


def test_control_bits_give_each_line_its_stall_cycles_and_yield():
    blocks = sasslisting.parse_listing(HEX_LISTING)
    assert [[(op.split()[0], ln, c & 15) for op, ln, c in b] for b in blocks] == \
        [[("LDC", 2, 8), ("IADD3", 3, 1), ("ISETP.NE.AND", 3, 13), ("@P1", 4, 5)], [("EXIT", 4, 5)]]
    m = sassmap.build(blocks, HEX_PTX)
    assert m.stall == {2: 8.0, 3: 14.0, 4: 5.0}         # line 4: the mean of its two copies (blocks)
    assert m.yields == [3]               # line 3 ends in the ISETP whose flag is clear
    w = sassmap.pc_weights(m, [2, 3, 3, 4])
    assert w[:, 7].tolist() == [8.0, 7.0, 7.0, 5.0]         # a line's stalls shared among its pcs
    assert w[:, 8].tolist() == [0.0, 0.0, 1.0, 0.0]         # its yield on its last pc


def test_a_listing_without_encodings_has_no_control_bits():
    blocks = sasslisting.parse_listing(re.sub(r"\s*/\* 0x[0-9a-f]+ \*/", "", HEX_LISTING))
    assert [len(b) for b in blocks] == [4, 1]
    assert all(c is None for b in blocks for _, _, c in b)
    m = sassmap.build(blocks, HEX_PTX)
    assert m.stall == {} and m.yields == []


def test_gto_puts_a_warp_that_yielded_after_every_other():
    age = np.array([50, 10, 70, 30], np.int64)
    assert gto_key(1, -2 - 1, age) == NEVER                # warp 1 issued last and yielded
    assert [gto_key(w, -2 - 1, age) for w in (0, 2, 3)] == [50, 70, 30]


def test_gty_puts_the_youngest_warp_first_after_the_greedy_one():
    age = np.array([50, 10, 70, 30], np.int64)
    assert gty_key(2, 2, age) == -1
    assert sorted((0, 1, 3), key=lambda w: gty_key(w, 2, age)) == [0, 3, 1]
    assert gty_key(1, -2 - 1, age) == NEVER


# every thread spins on %clock64 for SPIN cycles from its first clock read, counting its trips; lane 0 of
# each warp stores that read and the count. 32 warps on one SM, 8 per scheduler.
SPIN = 3000
SPIN_PTX = f""".version 8.0
.target sm_90
.address_size 64
.visible .entry spin(.param .u64 out)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    mov.u64 %rd1, %clock64;
    mov.u32 %r4, 0;
$L_spin:
    add.u32 %r4, %r4, 1;
    mov.u64 %rd2, %clock64;
    sub.s64 %rd3, %rd2, %rd1;
    setp.lt.s64 %p1, %rd3, {SPIN};
    @%p1 bra $L_spin;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    setp.ne.u32 %p2, %r2, 0;
    @%p2 bra $L_done;
    ld.param.u64 %rd4, [out];
    shr.u32 %r3, %r1, 5;
    mul.wide.u32 %rd5, %r3, 16;
    add.s64 %rd6, %rd4, %rd5;
    cvt.u64.u32 %rd7, %r4;
    st.global.v2.u64 [%rd6], {{%rd1, %rd7}};
$L_done:
    ret;
}}
"""


def _spin(threads, **over):
    """(cycles, spread of the warps' first clock reads, median trips) of one block."""
    spec = get_preset("h100").with_(**over)
    out = np.zeros((threads // 32, 2), np.uint64)
    r = gpusim.launch(gpusim.load_ptx(SPIN_PTX)["spin"], 1, threads, out, gpu=spec, mode="timing", model="sass")
    s = out.astype(np.int64)
    return r.cycles, s[:, 0].max() - s[:, 0].min(), float(np.median(s[:, 1]))


@needs_tools
def test_a_warps_loop_takes_at_least_ptxas_stall_cycles_per_trip():
    smap = sassmap.weights(SPIN_PTX, "sm_90")
    loop = [i + 1 for i, ln in enumerate(SPIN_PTX.splitlines()) if "%r4, %r4, 1" in ln][0]
    per_trip = sum(smap.stall.get(ln, 0.0) for ln in range(loop, loop + 5))
    assert per_trip > 10                                      # the clock read and the 64-bit compare stall
    _, _, trips = _spin(32, **{"scheduler.stall_counts": 1})
    _, _, trips0 = _spin(32, **{"scheduler.stall_counts": 0})
    assert trips <= SPIN / per_trip + 1 and trips < trips0


@needs_tools
def test_under_round_robin_every_spinning_warp_starts_at_once_and_ends_after_one_spin():
    cycles, spread, trips = _spin(1024, **{"scheduler.policy": "lrr", "scheduler.stall_counts": 1})
    assert spread < 32 and trips > 1
    assert cycles < 3 * SPIN


@needs_tools
def test_with_the_loop_counter_on_the_uniform_datapath_even_a_greedy_order_starts_every_spinning_warp_early():
    # 8 spinning warps per scheduler: the loop's counter and compare are uniform-datapath and ALU SASS, and a line
    # whose SASS takes no vector pipe (UIADD3) leaves the ALU to other warps, so the warps a strict greedy order
    # puts last still find issue slots within the first part of the spin (before the twenty-fifth pass such lines
    # took the ALU, the loops filled every slot and those warps read their first clock one spin late)
    for policy in ("gto", "gty"):
        _, spread, _ = _spin(1024, **{"scheduler.policy": policy, "scheduler.stall_counts": 1,
                                      "scheduler.starve_cycles_sass": 0})
        assert spread < SPIN / 4
