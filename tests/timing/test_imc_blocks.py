"""The immediate-constant cache's misses in the SASS model (gpusim/sassmap.py, gpusim/ptxflow.py): each 64-B block
of constant bank 0 misses once per SM, at the PTX line where the warps run the SASS's first ULDC of it. The H100's
per-SASS samples put imc_miss on those ULDCs and nowhere else (validation/data/h100/ncu/sass_stalls*/), including
ULDCs ptxas hoisted out of a loop into the prologue (ho_spmv_csr_scalar)."""
from gpusim import sasslisting, sassmap

ULDC_LISTING = """
\t//## File "ptx", line 5
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   ULDC.64 UR4, c[0x0][0x208] ;
\t//## File "ptx", line 6
        /*0020*/                   ULDC UR6, c[0x0][0x220] ;
        /*0030*/                   ULDC UR7, c[0x0][0x0] ;
\t//## File "ptx", line 7
        /*0040*/                   ULDC UR8, c[0x0][0x240] ;
        /*0050*/                   LDC R2, c[0x0][0x280] ;
        /*0060*/                   EXIT ;
"""


def test_each_constant_block_misses_at_the_line_of_its_first_uldc_and_ldc_reads_none():
    m = sassmap.build(sasslisting.parse_listing(ULDC_LISTING), "\n" * 10)
    # 0x208 and 0x220 share the 64-B block 8 (its first ULDC is line 5's); 0x0 is block 0; 0x240 block 9;
    # the non-uniform LDCs (0x28, 0x280) do not go through the immediate-constant cache
    assert m.uldc == {5: 1 << 8, 6: 1 << 0, 7: 1 << 9}
    w = sassmap.pc_weights(m, [5, 5, 6, 7])
    assert w[:, 11].tolist() == [1 << 8, 0, 1, 1 << 9]


HOISTED_ULDC_LISTING = """
\t//## File "ptx", line 2
        /*0000*/                   S2R R0, SR_TID.X ;
\t//## File "ptx", line 6
        /*0010*/                   ULDC.64 UR4, c[0x0][0x218] ;
\t//## File "ptx", line 3
        /*0020*/                   IADD3 R4, R0, 0x1, RZ ;
.L_x_0:
\t//## File "ptx", line 6
        /*0030*/                   IADD3 R4, R4, UR4, RZ ;
\t//## File "ptx", line 7
        /*0040*/                   ISETP.GE.AND P0, PT, R4, 0x10, PT ;
        /*0050*/              @!P0 BRA `(.L_x_0) ;
\t//## File "ptx", line 8
        /*0060*/                   EXIT ;
"""
HOISTED_ULDC_PTX = "\n".join(["", "mov.u32 %r0, %tid.x;", "add.s32 %r4, %r0, 1;", "ld.param.u64 %rd1, [p];",
                               "$L__BB0_1:", "add.s32 %r4, %r4, %r5;", "@%p1 bra $L__BB0_1;", "ret;"])


def test_a_constant_load_ptxas_hoisted_out_of_a_loop_misses_where_the_warps_run_it():
    # the ULDC of line 6 (in the PTX loop) sits in the SASS prologue, between lines 2 and 3: every warp runs it
    # there, once, so its block's miss belongs to line 3, the next instruction of the prologue's own PTX block
    blocks, _ = sasslisting.parse_blocks(HOISTED_ULDC_LISTING)
    m = sassmap.build(blocks, HOISTED_ULDC_PTX)
    assert m.uldc == {3: 1 << 8}
    # a ULDC of the block's own PTX lines keeps its line
    m = sassmap.build(sasslisting.parse_listing(ULDC_LISTING), "\n" * 10)
    assert m.uldc == {5: 1 << 8, 6: 1 << 0, 7: 1 << 9}
