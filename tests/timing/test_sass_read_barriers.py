"""Write-after-read waits in the SASS model: the LSU reads a global memory instruction's registers when it
begins the instruction (a store or atomic: when it moves from the MIO into the L1's queue), so ptxas gives it
a read barrier and makes later SASS (the next writer of those registers, a loop's back edge) wait for that
barrier (gpusim/sasslisting.py `read_barriers`, gpusim/sm/scoreboard.py). A warp held there stalls on
long_scoreboard."""
import numpy as np
import pytest
from numba import cuda

import gpusim
from gpusim import sasslisting, sassmap
from gpusim.presets import get_preset
from gpusim.sm import scoreboard
from gpusim.sm.stalls import LONG_SCOREBOARD, WAIT
from gpusim.spec import override

HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")

# control words (the high word of each encoding): stall cycles, yield flag, write barrier, read barrier
# and wait mask at bits 41-44, 45, 46-48, 49-51 and 52-57
LISTING = """
\t//## File "ptx", line 2
        /*0000*/                   LDC.64 R2, c[0x0][0x210] ;             /* 0x00000a00ff027b82 */
                                                                          /* 0x000e220000000000 */
\t//## File "ptx", line 3
        /*0010*/                   IADD3 R4, R2, 0x1, RZ ;                /* 0x0000000102047810 */
                                                                          /* 0x001fe60000000000 */
.L_x_0:
\t//## File "ptx", line 4
        /*0020*/                   REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R4 ;   /* 0x000000040200798e */
                                                                          /* 0x0001e20000000000 */
\t//## File "ptx", line 5
        /*0030*/                   IADD3 R5, R5, 0x1, RZ ;                /* 0x0000000105057810 */
                                                                          /* 0x000fe40000000000 */
\t//## File "ptx", line 6
        /*0040*/               @P0 BRA `(.L_x_0) ;                        /* 0x0000000000f40947 */
                                                                          /* 0x001fea0000000000 */
\t//## File "ptx", line 7
        /*0050*/                   EXIT ;                                 /* 0x000000000000794d */
                                                                          /* 0x000fea0000000000 */
"""
PTX = "\n".join(["", "ld.param.u64 %rd1, [p];", "add.s32 %r4, %r2, 1;", "red.global.add.u32 [%rd1], %r4;",
                 "add.s32 %r5, %r5, 1;", "@%p1 bra $L;", "ret;"])


def test_a_wait_on_a_memory_instructions_read_barrier_is_a_write_after_read_wait():
    blocks = sasslisting.parse_listing(LISTING)
    rd_set, rd_wait = sasslisting.read_barriers(blocks)
    assert rd_set == {4: 1}          # the REDG sets read barrier 0
    assert rd_wait == {6: 1}         # the back edge waits on it; line 3 waits on the LDC's write barrier 0
    m = sassmap.build(blocks, PTX)
    assert (m.rd_set, m.rd_wait) == ({4: 1}, {6: 1})
    w = sassmap.pc_weights(m, [2, 3, 4, 5, 6, 6, 7])
    assert w[:, 9].tolist() == [0, 0, 1, 0, 0, 0, 0]
    assert w[:, 10].tolist() == [0, 0, 0, 0, 1, 0, 0]      # the wait goes to the line's first pc
    assert sassmap.SassMap.from_json(m.to_json()).rd_wait == {6: 1}


# barrier 3 is set as a read barrier (STG), then as a write barrier (LDG): a wait on it is for the load's
# result, the register scoreboard's; barrier 5 is an LDG's read barrier, and the wait on 5 and 1 (1 set by
# nothing) is a write-after-read wait on 5 alone
REUSED = """
\t//## File "ptx", line 2
        /*0000*/                   STG.E desc[UR4][R2.64], R4 ;           /* 0x0000000402007986 */
                                                                          /* 0x0007e20000000000 */
\t//## File "ptx", line 3
        /*0010*/                   LDG.E R6, desc[UR4][R8.64] ;           /* 0x0000000408067981 */
                                                                          /* 0x000ee20000000000 */
\t//## File "ptx", line 4
        /*0020*/                   IADD3 R6, R6, 0x1, RZ ;                /* 0x0000000106067810 */
                                                                          /* 0x008fe40000000000 */
\t//## File "ptx", line 5
        /*0030*/                   LDG.E R10, desc[UR4][R8.64+0x4] ;      /* 0x00000404080a7981 */
                                                                          /* 0x000aa20000000000 */
\t//## File "ptx", line 6
        /*0040*/                   IADD3 R8, R8, 0x8, RZ ;                /* 0x0000000808087810 */
                                                                          /* 0x022fe80000000000 */
"""


def test_a_barrier_last_set_as_a_write_barrier_is_not_a_write_after_read_wait():
    rd_set, rd_wait = sasslisting.read_barriers(sasslisting.parse_listing(REUSED))
    assert rd_set == {2: 1 << 3, 5: 1 << 5}
    assert rd_wait == {6: 1 << 5}        # line 4's wait on barrier 3 is the LDG's result, not a read


def test_a_warp_waits_for_the_read_barriers_it_names_until_the_lsu_has_read_the_registers():
    sb = scoreboard.Scoreboard(np.full((3, 1), -1, np.int64), np.full((3, 1), -1, np.int64),
                               np.zeros((2, 1), np.int64), np.zeros((2, 1), np.int64), np.zeros(3, np.int64),
                               np.array([1, 0, 0], np.int64), np.array([0, 0, 1], np.int64),
                               np.zeros((2, scoreboard.N_BARRIERS), np.int64), np.int64(24))
    scoreboard.operands_read(sb, 0, 0, 500)          # warp 0's pc 0 (sets barrier 0) begun at 500
    assert scoreboard.reads_released(sb, 0, 2, 10, WAIT) == (500, LONG_SCOREBOARD)
    assert scoreboard.reads_released(sb, 0, 1, 10, WAIT) == (10, WAIT)     # pc 1 waits on nothing
    assert scoreboard.reads_released(sb, 1, 2, 10, WAIT) == (10, WAIT)     # warp 1's barrier is its own
    scoreboard.clear(sb, 0)
    assert scoreboard.reads_released(sb, 0, 2, 10, WAIT) == (10, WAIT)


def red_loop(counters, reps):
    t = cuda.grid(1)
    for _ in range(reps):
        cuda.atomic.add(counters, t >> 5, 1)       # every lane of a warp on one address: a slow RED


def _red_loop_stalls(store_read):
    counters = np.zeros(64, np.int32)
    gpu = override(get_preset("h100"), {"lsu.store_read": store_read})
    r = gpusim.launch(red_loop, 8, 256, counters, np.int64(16), gpu=gpu, mode="timing", model="sass")
    assert counters.tolist() == [32 * 16] * 64
    pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    return r.metrics[pre + "long_scoreboard" + post], r.metrics[pre + "drain" + post]


@needs_tools
def test_warps_of_a_reduction_loop_wait_in_the_loop_until_their_reds_reach_the_l1_queue_then_at_exit():
    """Each warp's loop back edge waits until its REDs' registers are read (ptxas's read barrier). They are
    read as a RED moves from the MIO into the L1's queue of `mio_lg_queue` instructions (`lsu.store_read` 1),
    so a warp waits in the loop while the LSU is backed up behind that queue, runs on to its exit, and waits
    there for its REDs to be sent (drain): both, as the H100 samples on its atomic loops. Read only when the
    LSU begins each RED (`store_read` 0), nearly all the wait is in the loop."""
    long_sb, drain = _red_loop_stalls(1)
    assert long_sb > drain > 20
    long_0, drain_0 = _red_loop_stalls(0)
    assert long_0 > 10 * max(drain_0, 1.0)
    assert long_0 > long_sb


def strided_store(stride, per_thread, out):
    t = cuda.grid(1)
    nth = cuda.gridsize(1)
    for k in range(per_thread):
        out[(t + k * nth) * stride] = t + k


@needs_tools
def test_warps_of_a_strided_store_loop_wait_for_their_stores_at_exit():
    """ptxas unrolls the loop's four STGs with their own registers; each STG writes one word in each of 32
    lines (32 partial write requests). Their registers are read as they move into the L1's queue, so a warp
    issues all four and waits at its exit until the slices have taken them (drain), as the H100 samples on
    store_s32 (drain 21.0, long_scoreboard 11.5 cycles per issue); read when the LSU begins each one, the
    warps waited in the loop instead (long_scoreboard)."""
    pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    got = {}
    for store_read in (0, 1):
        out = np.zeros(132 * 256 * 4 * 32, np.int32)
        r = gpusim.launch(strided_store, 132, 256, np.int64(32), np.int64(4), out, mode="timing", model="sass",
                          gpu=override(get_preset("h100"), {"lsu.store_read": store_read}))
        j = np.arange(132 * 256 * 4)
        assert (out[::32] == j % (132 * 256) + j // (132 * 256)).all()
        got[store_read] = (r.metrics[pre + "long_scoreboard" + post], r.metrics[pre + "drain" + post])
    assert got[1][1] > 5 and got[1][1] > 2 * got[1][0]
    assert got[0][0] > 5 and got[0][0] > 2 * got[0][1]


def per_warp_reds(reps, counters):
    t = cuda.grid(1)
    for _ in range(reps):
        cuda.atomic.add(counters, t >> 5, 1)


@needs_tools
def test_reductions_of_many_warps_fill_the_lsu_queue_sooner_than_loads():
    """32 warps an SM each queue four one-address REDs (128 an SM): with their registers read as they enter the
    L1's queue the warps get through their loops, and the REDs waiting for the LSU fill the places an atomic
    may take (`lsu.atomic_queue`, 80): the warps stall on lg_throttle, as the H100 samples on atomic_per_warp
    (lg_throttle 97.6 cycles per issue). With the whole queue theirs (atomic_queue 0: 128 places) none does."""
    pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    lg = {}
    for places in (0, 80):
        counters = np.zeros(528 * 8, np.int32)
        r = gpusim.launch(per_warp_reds, 528, 256, np.int64(4), counters, mode="timing", model="sass",
                          gpu=override(get_preset("h100"), {"lsu.atomic_queue": places}))
        assert (counters == 32 * 4).all()
        lg[places] = r.metrics[pre + "lg_throttle" + post]
    assert lg[80] > 5
    assert lg[0] < 1
