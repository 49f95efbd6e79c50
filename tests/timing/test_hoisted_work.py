"""Integer work ptxas hoisted ahead of a branch or a barrier, or sank past one, counts where the warps run it
(gpusim/ptxflow.py `moved_lines`, gpusim/sassmap.py). ho_stencil1d's SASS prologue holds the compares,
selects and adds of the reads after its barrier (18 of its 48 instructions), issued while its first load is in
flight; the SASS map had charged them to their own PTX lines, after the barrier, where all of a CTA's warps come
at once, and gpusim's math_pipe_throttle there was 1.7x the H100's (2.48 against 1.48 cycles per instruction;
1.30 after). Instructions executed, against ncu's over the 140 validation cases: within 1% on 97 before, 115
after."""
from gpusim import sasslisting, sassmap
from gpusim.ptxflow import moved_lines, ptx_blocks

PTX = "\n".join([
    "",                                     # 1
    "mov.u32 %r0, %tid.x;",                 # 2  PTX block 0
    "add.s32 %r1, %r0, 1;",                 # 3
    "st.shared.u32 [%r1], %r0;",            # 4
    "@%p1 bra $L__BB0_2;",                  # 5
    "add.s32 %r2, %r0, 2;",                 # 6  PTX block 1
    "$L__BB0_2:",                           # 7  PTX block 2
    "bar.sync 0;",                          # 8
    "setp.lt.s32 %p2, %r0, 0;",             # 9
    "ld.shared.u32 %r3, [%r1];",            # 10
    "ret;"])                                # 11

LISTING = """
\t//## File "ptx", line 2
        /*0000*/                   S2R R0, SR_TID.X ;
\t//## File "ptx", line 3
        /*0010*/                   IADD3 R1, R0, 0x1, RZ ;
\t//## File "ptx", line 9
        /*0020*/                   ISETP.GE.AND P2, PT, R0, RZ, PT ;
\t//## File "ptx", line 4
        /*0030*/                   STS [R1], R0 ;
\t//## File "ptx", line 5
        /*0040*/               @P1 BRA `(.L_x_0) ;
\t//## File "ptx", line 6
        /*0050*/                   IADD3 R2, R0, 0x2, RZ ;
.L_x_0:
\t//## File "ptx", line 8
        /*0060*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
\t//## File "ptx", line 3
        /*0070*/                   IADD3 R5, R0, 0x1, RZ ;
\t//## File "ptx", line 10
        /*0080*/                   LDS R3, [R1] ;
\t//## File "ptx", line 11
        /*0090*/                   EXIT ;
"""


def _map():
    blocks, depth = sasslisting.parse_blocks(LISTING)
    return sassmap.build(blocks, PTX, depth)


def test_a_compare_hoisted_above_the_barrier_counts_at_the_prologue_line_after_it():
    m = _map()
    assert 9 not in m.weight                      # nothing left after the barrier for line 9
    assert m.opcodes[4] == {"ISETP": 1, "STS": 1}  # the next instruction of the prologue's own PTX block
    assert m.pipes[4][0] == 1.0                   # its ALU issue goes with it
    assert m.total == 10 and sum(m.opcodes[ln].get(op, 0) for ln in m.opcodes for op in m.opcodes[ln]) == 10


def test_work_ptxas_sank_past_the_barrier_counts_where_it_runs():
    # the IADD3 of line 3 sits after the barrier: ptxas sank it there, and the warps run it with line 10's load
    m = _map()
    assert m.opcodes[3] == {"IADD3": 1}
    assert m.opcodes[10] == {"IADD3": 1, "LDS": 1}


def test_only_integer_uniform_and_constant_work_moves():
    lines = [2, 9, 10, 4, 3]
    starts, block_of = ptx_blocks(PTX.splitlines())
    # the ISETP (movable) goes to line 4, the next of the block's own PTX block; the load of line 10 keeps its line
    assert moved_lines(lines, [False, True, False, False, False], block_of) == [2, 4, 10, 4, 3]
    # a block whose own PTX block is the later one takes the earlier block's work sunk into it
    assert moved_lines([9, 10, 3, 10], [True, True, True, True], block_of) == [9, 10, 10, 10]


def test_inside_a_sass_loop_no_line_moves():
    blocks, depth = sasslisting.parse_blocks(LISTING)
    m = sassmap.build(blocks, PTX, [1] * len(depth))
    assert m.opcodes[9] == {"ISETP": 1}
