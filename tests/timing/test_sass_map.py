"""The SASS model's map (gpusim/sassmap.py): each PTX line's SASS instructions per execution, read from
ptxas's own line table, and the timing core issuing that many SASS instructions for it."""
import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim import sasslisting, sassmap
from gpusim.isa import opcodes as oc

ROOT = Path(__file__).resolve().parents[2]
HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the triton extra bundles both)")

PTX = """.version 8.0
.target sm_90
.address_size 64
.file 1 "kernel.py"
.visible .entry k(.param .u64 p, .param .u32 n) {
 .local .align 4 .b8 __local_depot0[16];
 .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
 .loc 1 10 0
 ld.param.u64 %rd1, [p];
 ld.param.u32 %r2, [n];
 cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %tid.x;
 mov.u32 %r3, 0;
 mov.u64 %rd5, 0;
$L__loop:
 cvt.u64.u32 %rd2, %r3;
 add.s64 %rd5, %rd5, %rd2;
 add.s32 %r3, %r3, 1;
 setp.lt.u32 %p1, %r3, %r2;
 @%p1 bra $L__loop;
 mul.wide.u32 %rd3, %r1, 8;
 add.s64 %rd4, %rd1, %rd3;
 st.global.u64 [%rd4], %rd5;
 ret;
}
"""


def test_tagging_names_each_instruction_by_its_own_line_and_keeps_every_line_number():
    tagged = sassmap.tag_lines(PTX)
    lines, orig = tagged.splitlines(), PTX.splitlines()
    assert len(lines) == len(orig)
    assert '.file 1 "ptx"' in lines[2] and lines[3] == "" and lines[7] == ""     # its own .file/.loc gone
    assert "__local_depot0" in lines[5]                                      # `.local` is not a `.loc`
    for i, ln in enumerate(orig, 1):
        if ln.strip().startswith("add.s64 %rd5"):
            assert lines[i - 1].startswith(f".loc 1 {i} 0 ")
        if ln.strip().startswith("$L__loop") or ln.strip().startswith(".reg"):
            assert lines[i - 1] == ln


LISTING = """
\t//## File "ptx", line 5
        /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
\t//## File "ptx", line 20
        /*0010*/                   LDG.E R2, desc[UR4][R8.64] ;
        /*0020*/                   LDG.E R3, desc[UR4][R8.64+0x4] ;
\t//## File "ptx", line 21
        /*0030*/                   FFMA R4, R2, R2, R4 ;
        /*0040*/                   FFMA R4, R3, R3, R4 ;
\t//## File "ptx", line 22
        /*0050*/                   IADD3 R8, P0, R8, 0x8, RZ ;
        /*0060*/                   IMAD.X R9, RZ, RZ, R9, P0 ;
\t//## File "ptx", line 23
        /*0070*/                   STL [R1], R4 ;
        /*0080*/               @P1 BRA `(.L_x_0) ;
\t//## File "ptx", line 20
        /*0090*/                   LDG.E R2, desc[UR4][R8.64] ;
\t//## File "ptx", line 30
        /*00a0*/                   EXIT ;
.L_x_1:
        /*00b0*/                   BRA `(.L_x_1);
        /*00c0*/                   NOP;
"""
LISTING_PTX = "\n".join([""] * 19 + ["ld.global.f32 %f1, [%rd1];", "fma.rn.f32 %f2, %f1, %f1, %f2;",
                                     "add.s64 %rd1, %rd1, 4;", "@%p1 bra $L;"] + [""] * 6 + ["ret;"])


def test_unrolled_copies_count_once_per_execution_and_spills_are_found():
    blocks = sasslisting.parse_listing(LISTING)
    assert [len(b) for b in blocks] == [1, 8, 2]              # NOP and the dead self-branch dropped
    m = sassmap.build(blocks, LISTING_PTX)
    # the loop block holds line 20's load twice: unrolled by 2, so each line costs half its SASS there;
    # line 20 also has a remainder copy (1 load per execution): the mean of the two copies
    assert m.weight[20] == pytest.approx((2 / 2 + 1) / 2)
    assert m.weight[21] == pytest.approx(1.0)
    assert m.weight[22] == pytest.approx(1.0)                 # IADD3 + IMAD.X, per 2 iterations
    assert m.spill_lines == {23: (0.0, 0.5)}                  # an STL with no st.local in the PTX line
    # IADD3 on the ALU pipe, IMAD.X 2 FMA cycles
    assert m.pipes[22] == pytest.approx((0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    assert m.total == 11 and m.unmapped == 0


def test_pc_weights_share_a_line_among_the_pcs_gpusim_decodes_it_into():
    m = sassmap.SassMap(weight={7: 3.0, 8: 1.0}, pipes={7: (2.0, 1.0, 1.0, 2.0, 0.0), 8: (0.0, 4.0, 0.0, 0.0, 2.0)})
    w = sassmap.pc_weights(m, [7, 7, 8, 9])
    assert w[:, 0].tolist() == [1.5, 1.5, 1.0, 0.0]
    assert w[0, 1:4].tolist() == [1.0, 0.5, 0.0]
    assert w[:, 12].tolist() == [0.5, 0.5, 0.0, 0.0]      # the line's MUFU, shared like its slots
    assert w[:, 15].tolist() == [0.0, 2.0, 0.0, 0.0]      # its dispatch hold follows its last pc
    assert w[:, 16].tolist() == [0.0, 0.0, 2.0, 0.0]      # and so does a hold that is only sampled


def test_a_lines_spills_go_to_its_first_pc_only():
    m = sassmap.SassMap(weight={7: 3.0}, spill_lines={7: (0.5, 2.0)})
    w = sassmap.pc_weights(m, [7, 7, 8])
    assert w[:, 4].tolist() == [0.5, 0.0, 0.0] and w[:, 5].tolist() == [2.0, 0.0, 0.0]


@needs_tools
def test_sass_model_issues_what_ptxas_made_and_the_ptx_model_is_unchanged():
    k = gpusim.load_ptx(PTX)["k"]
    outs = {}
    for model in ("ptx", "sass"):
        out = np.zeros(64, np.uint64)
        outs[model] = (gpusim.launch(k, 1, 64, out, np.uint32(40), model=model), out)
        assert (out == sum(range(40))).all()
    ptx, sass = outs["ptx"][0], outs["sass"][0]
    assert "gpusim__ptx_inst_executed.sum" not in ptx.metrics
    assert sass.metrics["gpusim__ptx_inst_executed.sum"] == ptx.metrics["smsp__inst_executed.sum"]
    assert sass.metrics["smsp__inst_executed.sum"] == sass.metrics["gpusim__issue_slots.sum"]
    assert sass.metrics["smsp__inst_executed.sum"] != ptx.metrics["smsp__inst_executed.sum"]
    assert sass.timing["sass_map"]["sass_instructions"] > 0
    again = gpusim.launch(k, 1, 64, np.zeros(64, np.uint64), np.uint32(40), model="sass")
    assert again.cycles == sass.cycles and again.metrics == sass.metrics        # deterministic, cached map


def _map_estimate(case: str, column: int) -> tuple[float, int]:
    """Run a validation case functionally; (the map's per-pc column x the PTX execution counts, the PTX
    count). Column 0: SASS instructions, 1: ALU-pipe instructions (sassmap.pc_weights)."""
    import validation  # noqa: F401
    from gpusim.launch import _resolve
    from validation.cases import all_cases
    c, got = all_cases()[case], []

    def launch(kernel, grid, block, *args):
        r = gpusim.launch(kernel, grid, block, *args, gpu="h100", mode="functional", fma=True)
        got.append((r, _resolve(kernel, args, None, True)))
        return r

    c.run(launch, c.inputs(0))
    r, k = got[-1]
    w = sassmap.pc_weights(sassmap.weights(k.module.text, "sm_90"), r.decoded.ins[:, oc.F_LINE])[:, column]
    return float((r.per_pc["warp"] * w).sum()), int(r.per_pc["warp"].sum())


@needs_tools
@pytest.mark.parametrize("case", ["coalesce_s01", "chase_l1", "divergence_p04", "prog_transpose_naive",
                                  "gatomic_lane0_one", "l2_rmw_8mb"])
def test_sass_instruction_estimate_matches_the_h100s_count(case):
    """Functional PTX execution x the map's per-line SASS counts against ncu's smsp__inst_executed.sum of the
    very kernel on the H100 (driver ptxas, sm_90a): within 4%. The PTX count is 14-41% under it."""
    rec = json.loads((ROOT / "validation" / "data" / "h100" / f"{case}.json").read_text())
    hw = rec["ncu"]["metrics"]["smsp__inst_executed.sum"]["value"]
    est, ptx = _map_estimate(case, 0)
    assert abs(est / hw - 1) < 0.04, (est, hw, ptx)
    assert abs(ptx / hw - 1) > 0.10        # the PTX count alone is not the SASS count


@needs_tools
@pytest.mark.parametrize("case", ["coalesce_s01", "divergence_uniform32", "smem_st32"])
def test_sass_alu_pipe_instructions_match_the_h100s_pipe_count(case):
    """The map's ALU-pipe instructions (IADD3, LOP3, ISETP, LEA, SEL, MOV, ...) x the functional PTX counts
    against ncu's sm__inst_executed_pipe_alu.sum of the very kernel (data/h100/ncu/pipes_2026-11-24):
    within 3%. On the H100 each takes the ALU pipe 2 cycles (sm__pipe_alu_cycles_active is twice the
    count on all 16 kernels recorded), which is `pipes.ii_int`."""
    rec = json.loads((ROOT / "validation" / "data" / "h100" / "ncu" / "pipes_2026-11-24" / "cases" /
                      f"{case}.json").read_text())["ncu"]["metrics"]
    hw = rec["sm__inst_executed_pipe_alu.sum"]["value"]
    assert rec["sm__pipe_alu_cycles_active.sum"]["value"] == 2 * hw
    est, _ = _map_estimate(case, 1)
    assert abs(est / hw - 1) < 0.03, (est, hw)


def test_spilling_kernel_is_compiled_with_its_local_depot():
    """A module with .local declarations compiles line-tagged (a `.local` line is not a `.loc`)."""
    if not HAVE_TOOLS:
        pytest.skip("no ptxas/nvdisasm")
    m = sassmap.weights(PTX, "sm_90")
    assert m.total > 0 and m.weight


def test_the_report_says_which_timing_model_ran(capsys, monkeypatch):
    from gpusim.cli import main
    assert main(["run", "vecadd", "--small"]) == 0
    assert "PTX only" in capsys.readouterr().out
    if HAVE_TOOLS:
        assert main(["run", "vecadd", "--small", "--model", "sass"]) == 0
        assert "SASS (ptxas's registers" in capsys.readouterr().out
    # without ptxas the SASS model is refused by name, and the PTX model still runs
    monkeypatch.setattr(sassmap.ptxas, "find", lambda: None)
    monkeypatch.setattr(sassmap, "find_nvdisasm", lambda: None)
    assert main(["run", "vecadd", "--small", "--model", "sass"]) != 0
    assert "needs ptxas" in capsys.readouterr().err
    assert main(["run", "vecadd", "--small"]) == 0


@needs_tools
@pytest.mark.parametrize("program", ["triton_softmax", "triton_matmul_tma"])
def test_sass_model_runs_triton_generated_ptx(program, capsys):
    """Triton's PTX (its own .file/.loc lines; sm_90a wgmma and TMA for the matmul) maps and times."""
    pytest.importorskip("triton")
    from gpusim.cli import main
    assert main(["run", program, "--small", "--model", "sass"]) == 0
    out = capsys.readouterr().out
    assert "result matches the numpy reference" in out and "SASS (ptxas's registers" in out


HOIST_LISTING = """
\t//## File "ptx", line 3
        /*0000*/                   S2R R0, SR_CgaCtaId ;
\t//## File "ptx", line 6
        /*0010*/                   LEA R0, R0, 0x400, 0x18 ;
\t//## File "ptx", line 2
        /*0020*/                   MOV R4, RZ ;
.L_x_0:
\t//## File "ptx", line 5
        /*0030*/                   LDS R2, [R0] ;
\t//## File "ptx", line 7
        /*0040*/                   IADD3 R4, R4, 0x1, RZ ;
        /*0050*/                   ISETP.GE.AND P0, PT, R4, 0x10, PT ;
\t//## File "ptx", line 8
        /*0060*/              @!P0 BRA `(.L_x_0) ;
\t//## File "ptx", line 9
        /*0070*/                   EXIT ;
"""
HOIST_PTX = "\n".join(["", "mov.u32 %r4, 0;", "mov.u32 %r9, %ctaid.x;", "$L__BB0_1:",
                       "ld.shared.u32 %r2, [%r1];", "mov.u32 %r1, _smem;", "add.s32 %r4, %r4, 1;",
                       "@%p1 bra $L__BB0_1;", "ret;"])


def test_work_ptxas_hoisted_out_of_a_loop_counts_nothing_per_trip():
    blocks, in_loop = sasslisting.parse_blocks(HOIST_LISTING)
    assert in_loop == [False, True, False]
    m = sassmap.build(blocks, HOIST_PTX, in_loop)
    assert 6 not in m.weight             # line 6 is in the PTX loop; its LEA sits before the SASS loop
    assert m.weight[3] == 1.0                              # lines outside the loop keep their SASS
    assert m.weight[2] == 2.0        # and the prologue's line after the LEA takes it: the warps run it once, there
    assert m.weight[5] == 1.0 and m.weight[7] == 2.0
    assert sassmap.build(blocks, HOIST_PTX).weight[6] == 1.0      # without loop shapes: as if still inside


RET_FIRST_PTX = "\n".join(["", "setp.ne.s64 %p1, %rd1, 0;", "@%p1 bra $L__BB0_7;", "bra.uni $L__BB0_1;",
                            "$L__BB0_7:", "ret;", "$L__BB0_1:", "mov.u32 %r1, 0;", "$L__BB0_2:",
                            "add.s32 %r1, %r1, 1;", "@%p2 bra $L__BB0_2;", "bra.uni $L__BB0_7;"])


def test_a_jump_back_to_an_early_return_is_no_loop():
    """numba puts a kernel's `ret` block before its body and jumps back to it at the end: that is no loop
    (its lines were all taken as loop body, and the prologue's SASS, outside any SASS loop, counted 0)."""
    assert sassmap.ptx_loops(RET_FIRST_PTX) == [(9, 11)]


NESTED_LISTING = """
\t//## File "ptx", line 2
        /*0000*/                   MOV R4, RZ ;
.L_x_0:
\t//## File "ptx", line 6
        /*0010*/                   IMAD R6, R4, 0x10, RZ ;
        /*0018*/                   SHF.L.U32 R6, R6, 0x2, RZ ;
\t//## File "ptx", line 4
        /*0020*/                   MOV R5, RZ ;
.L_x_1:
\t//## File "ptx", line 6
        /*0030*/                   IADD3 R7, R6, R5, RZ ;
\t//## File "ptx", line 7
        /*0040*/                   STG.E [R2.64], R7 ;
\t//## File "ptx", line 8
        /*0050*/                   IADD3 R5, R5, 0x1, RZ ;
\t//## File "ptx", line 9
        /*0060*/              @P0 BRA `(.L_x_1) ;
\t//## File "ptx", line 10
        /*0070*/                   IADD3 R4, R4, 0x1, RZ ;
\t//## File "ptx", line 11
        /*0080*/              @P1 BRA `(.L_x_0) ;
\t//## File "ptx", line 12
        /*0090*/                   EXIT ;
"""
NESTED_PTX = "\n".join(["", "mov.u32 %r4, 0;", "$L__BB0_1:", "mov.u32 %r5, 0;", "$L__BB0_2:",
                         "mad.lo.s32 %r7, %r4, 16, %r5;", "st.global.u32 [%rd2], %r7;", "add.s32 %r5, %r5, 1;",
                         "@%p0 bra $L__BB0_2;", "add.s32 %r4, %r4, 1;", "@%p1 bra $L__BB0_1;", "ret;"])


def test_work_hoisted_from_an_inner_loop_to_the_outer_one_is_not_counted_per_inner_trip():
    """A line of the inner loop whose SASS ptxas split between the outer loop (IMAD and SHF, loop-invariant in
    the inner one) and the inner loop counts only its inner copy per execution: 1 SASS instruction, not 1.5
    (the mean of its two copies, both taken as inner while every loop block was just "in a loop")."""
    blocks, depth = sasslisting.parse_blocks(NESTED_LISTING)
    assert depth == [0, 1, 2, 1, 0]
    assert sassmap.ptx_loops(NESTED_PTX) == [(3, 11), (5, 9)]
    m = sassmap.build(blocks, NESTED_PTX, depth)
    assert m.opcodes[6] == {"IADD3": 1}          # the outer loop's IMAD and SHF are no copy of the inner line
    assert m.weight[6] == 1.0 and m.pipes[6] == (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert m.weight[4] == 1.0 and m.weight[10] == 1.0    # outer-loop lines keep their outer SASS


SPLIT_LISTING = """
\t//## File "ptx", line 2
        /*0000*/                   ISETP.NE.AND P0, PT, R2, RZ, PT ;
        /*0010*/              @P0 BRA `(.L_x_1) ;
\t//## File "ptx", line 3
        /*0020*/                   ULDC.64 UR6, c[0x0][0x218] ;
.L_x_0:
\t//## File "ptx", line 4
        /*0030*/                   VOTEU.ANY UR6, UPT, PT ;
        /*0040*/                   FLO.U32 R0, UR6 ;
        /*0050*/                   POPC R7, UR6 ;
        /*0060*/              @P0 ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R7 ;
.L_x_2:
\t//## File "ptx", line 4
        /*0070*/                   SHFL.IDX PT, R0, R3, R0, 0x1f ;
\t//## File "ptx", line 3
        /*0080*/                   LOP3.LUT R7, R0, UR6, RZ, 0xc0, !PT ;
        /*0090*/                   LOP3.LUT R8, R1, UR7, RZ, 0xc0, !PT ;
.L_x_1:
\t//## File "ptx", line 5
        /*00a0*/                   EXIT ;
"""
SPLIT_PTX = "\n".join(["", "@%p1 bra $L__BB0_1;", "and.b64 %rd5, %rd4, %rd3;", "atom.global.add.u32 %r5, [%rd2], %r7;",
                        "$L__BB0_1:", "ret;"])


def test_a_line_split_over_blocks_on_one_path_counts_all_its_pieces():
    """ptxas's warp-aggregated atomic (VOTEU/FLO/POPC, the ATOMG, then SHFL) spans blocks that run one after
    the other: the line issues all of them per execution (5), not their mean per block; a line whose ULDC
    sits in a block of its own issues the ULDC and both LOP3s (3)."""
    blocks, depth = sasslisting.parse_blocks(SPLIT_LISTING)
    m = sassmap.build(blocks, SPLIT_PTX, depth)
    assert m.weight[4] == 5.0
    assert m.weight[3] == 3.0 and m.pipes[3] == (2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


DIV64 = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 d) {
 .reg .b32 %r<3>; .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [p];
 ld.param.u64 %rd2, [d];
 cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %tid.x;
 cvt.u64.u32 %rd3, %r1;
 div.s64 %rd4, %rd3, %rd2;
 shl.b64 %rd5, %rd3, 3;
 add.s64 %rd6, %rd1, %rd5;
 st.global.u64 [%rd6], %rd4;
 ret;
}
"""


@needs_tools
def test_a_subroutine_ptxas_calls_counts_at_no_line_of_the_kernel():
    """In a whole-program cubin ptxas puts 64-bit division in a subroutine after the kernel's EXIT (called
    only when the operands need 64 bits); its SASS names no PTX line and must not land on the last one."""
    m = sassmap.weights(DIV64, "sm_90")
    lines = DIV64.splitlines()
    ret = next(i for i, s in enumerate(lines, 1) if s.strip() == "ret;")
    div = next(i for i, s in enumerate(lines, 1) if "div.s64" in s)
    assert m.weight[ret] <= 2
    assert m.unmapped >= 20            # the subroutine's body
    assert 1 <= m.weight[div] < 20     # the call site's fast path and the call


def _spilling_ptx(n=40, stride=4096):
    """n values loaded, summed, then multiplied back in reverse: all live at once, under .maxnreg 16."""
    body = [f" ld.global.f32 %f{i}, [%rd3+{i * stride}];" for i in range(1, n + 1)]
    body += [" mov.f32 %f100, 0f00000000;"] + [f" add.f32 %f100, %f100, %f{i};" for i in range(1, n + 1)]
    body += [" mov.f32 %f101, 0f3F800000;"] + [f" fma.rn.f32 %f101, %f101, %f{i}, %f100;" for i in range(n, 0, -1)]
    return "\n".join([".version 8.0", ".target sm_90", ".address_size 64",
                      ".visible .entry k(.param .u64 p, .param .u64 q) .maxnreg 16 {",
                      " .reg .f32 %f<128>; .reg .b32 %r<4>; .reg .b64 %rd<8>;",
                      " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;",
                      " ld.param.u64 %rd5, [q]; cvta.to.global.u64 %rd5, %rd5;",
                      " mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;", *body,
                      " add.s64 %rd6, %rd5, %rd2; st.global.f32 [%rd6], %f101; ret; }"])


@needs_tools
def test_spills_go_through_the_l1_as_local_traffic_in_the_sass_model():
    """ptxas spills what 16 registers cannot hold; the SASS model times its LDL/STL as local accesses (the
    PTX has none), through the L1 and the L2 behind it, and the values are the PTX's either way."""
    k = gpusim.load_ptx(_spilling_ptx())["k"]
    x = (np.arange(40 * 1024 + 64, dtype=np.float32) % 7) * 0.25
    out_p, out_s = np.zeros(64, np.float32), np.zeros(64, np.float32)
    p = gpusim.launch(k, 1, 64, x, out_p, mode="timing")
    s = gpusim.launch(k, 1, 64, x, out_s, mode="timing", model="sass")
    assert s.timing["ptxas"].spill_stores > 0
    spilled = s.timing["sass_map"]["spill_lines"]
    assert sum(st for _, st in spilled.values()) > 0
    assert p.metrics["l1tex__t_sectors_pipe_lsu_mem_local_op.sum"] == 0
    # 2 warps x (spill loads + stores) x 4 sectors each (one 128-B line of lane-interleaved words); a
    # line's fractional spills (its mean over ptxas's copies) add up per warp, less than one of each kind left
    per_warp = sum(a + b for a, b in spilled.values())
    assert 2 * 4 * (per_warp - 2) <= s.metrics["l1tex__t_sectors_pipe_lsu_mem_local_op.sum"] <= 2 * 4 * per_warp
    np.testing.assert_array_equal(out_p, out_s)
    again = gpusim.launch(k, 1, 64, x, np.zeros(64, np.float32), mode="timing", model="sass")
    assert again.cycles == s.cycles


@pytest.mark.parametrize("ins, cycles", [
    ("IMAD R7, R3, UR9, RZ", 2), ("IMAD.MOV.U32 R14, RZ, RZ, R18", 2), ("IMAD.IADD R5, R9, 0x1, R5", 2),
    ("IMAD.WIDE.U32 R20, R20, R3, RZ", 4), ("@!P0 IMAD.WIDE R18, R3, 0x4, R18", 4),
    ("IMAD.HI.U32 R15, R15, R12, RZ", 4), ("IMAD.WIDE.U32.X R18, R13, 0x49249249, R18, P3", 4),
    ("VIADD R16, R18, 0x1", 2), ("FFMA R1, R2, R3, R4", 1)])
def test_wide_and_high_half_imads_hold_the_fma_pipe_four_cycles(ins, cycles):
    # measured on the H100 (int_imad_wide/hi_throughput): the heavy half is busy 4 cycles per IMAD.WIDE.U32 or
    # IMAD.HI.U32 against 2 per plain IMAD, and VIADD runs there, not on the ALU
    op = sasslisting.opcode(ins)
    assert op in sasslisting.FMA_OPS and op not in sasslisting.ALU_OPS
    assert sassmap.fma_cycles(ins, op) == cycles
