"""ptxas if-converts a short straight-line block a conditional branch jumps over: its SASS is predicated and
the branch is gone, so every warp issues the block, one whose lanes all jump over it too. ncu counts
ho_reduce6_unrolled's tree steps (`if tid < s: sdata[tid] += sdata[tid + s]`) on every warp, 65,536 warp
instructions a line, where gpusim had counted only the warps with a lane inside (32,768 and 16,384), and its
whole count 17% short. The SASS map finds such branches (`sasslisting.predicated_blocks`) and a warp that jumps
over the block takes its SASS issue slots (timing/core.py)."""

import json
from pathlib import Path

import pytest

from gpusim import sassmap
from gpusim.sasslisting import predicated_blocks

ROOT = Path(__file__).resolve().parents[2]
HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None

PTX = """\tsetp.gt.s32 \t%p2, %r3, 127;
\t@%p2 bra \t$L__BB0_2;

\tld.shared.u32 \t%r10, [%rd29+512];
\tadd.s32 \t%r12, %r10, %r11;
\tst.shared.u32 \t[%rd3], %r12;

$L__BB0_2:
\tbar.sync \t0;
\t@%p4 bra \t$L__BB0_4;
\tadd.s32 \t%r1, %r1, 1;
\tbar.sync \t0;
$L__BB0_4:
\t@!%p5 bra \t$L__BB0_9;
\tadd.s32 \t%r1, %r1, 1;
$L__BB0_5:
""".splitlines()
WEIGHT = {4: 1.0, 5: 1.0, 6: 1.0, 11: 1.0, 15: 2.0}


def test_a_branch_ptxas_left_no_bra_for_stands_for_the_block_it_jumps_over():
    assert predicated_blocks(PTX, {}, WEIGHT) == {2: 3.0}


def test_a_branch_kept_as_a_bra_or_over_a_barrier_or_to_another_label_predicates_nothing():
    assert predicated_blocks(PTX, {2: {"BRA": 1}}, WEIGHT) == {}     # ptxas kept the branch
    assert 10 not in predicated_blocks(PTX, {}, WEIGHT)               # a barrier inside: not if-converted
    assert 14 not in predicated_blocks(PTX, {}, WEIGHT)               # the block ends at a label it does not jump to


@pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm")
def test_reduce6s_warps_issue_the_tree_steps_they_jump_over_as_the_h100_counts():
    from gpusim.presets import get_preset
    from validation.cases import all_cases
    from validation.replay import simulate
    rec = json.loads((ROOT / "validation" / "data" / "h100" / "ho_reduce6_unrolled.json").read_text())
    hw = rec["ncu"]["metrics"]["smsp__inst_executed.sum"]["value"]
    sim, _, _ = simulate(all_cases()["ho_reduce6_unrolled"], get_preset("h100"), "sass")
    assert sim["smsp__inst_executed.sum"] == pytest.approx(hw, rel=0.03)      # 17% short without them
