"""Dependent chains of integer SASS under the SASS model, against the H200 (probe int_latency: one warp runs 512
steps of one kind and reads %clock64 around them; validation/data/h100/probe_int_latency_h200.json).

The chains of ISETP -> SEL and ISETP -> predicated VIADD are written as CUDA C inline asm, one PTX line a step:
`{ .reg .pred p; setp.ne.u32 p, ...; selp.b32 ...; }`. gpusim's SASS map had not tagged a line that opens with
`{`, so their SASS went to the line before the loop and the loop's lines weighed nothing: 1.9 and 2.4 cycles a
step against the H200's 8.6 and 18.2. And an IMAD.HI or IMAD.WIDE read by the next instruction makes it wait
longer than ptxas's stall cycles say (IMAD.HI 10.05 cycles a step at 6 stall cycles); gpusim had taken the stall
cycles as they are (6.7 a step)."""

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.kernels import load_ptx
from gpusim.presets import get_preset
from gpusim.sasslisting import XU_LATENCY, wide_imad_waits, xu_chain_waits

ROOT = Path(__file__).resolve().parents[2]
PTX = ROOT / "tests" / "timing" / "ptx" / "int_latency.ptx"
REC = json.loads((ROOT / "validation" / "data" / "h100" / "probe_int_latency_h200.json").read_text())
HW = {r["kind"]: r["cycles_per_step"] for r in REC["runs"]}
ARGS = tuple(np.uint32(x) for x in REC["args"])


def per_step(kind):
    cyc = np.zeros(32, np.uint64)
    gpusim.launch(load_ptx(PTX)[f"lat_{kind}"], 1, 32, cyc, np.zeros(32, np.uint32), *ARGS, gpu=get_preset("h100"),
                  mode="timing", model="sass")
    return int(cyc[0]) / REC["steps"]


@pytest.mark.parametrize("kind", sorted(HW))
def test_dependent_chains_take_the_h200s_cycles_a_step(kind):
    assert per_step(kind) == pytest.approx(HW[kind], rel=0.10), (kind, HW[kind])


def test_a_wide_imads_consumer_waits_past_ptxas_stall_cycles():
    # IMAD.HI read by the next instruction after its 6 stall cycles: the H200 takes ~9.4; an IMAD.WIDE's low half
    # read by the IADD3 after it (3 stall cycles): ~7; one read only after more than that waits nothing more
    blk = [("IMAD.HI.U32 R11, R13, R6, R8", 1, 6), ("IMAD.HI.U32 R11, R11, R6, R8", 1, 6),
           ("IMAD.WIDE.U32 R14, R23, UR6, RZ", 2, 3), ("IADD3 R25, P1, R14, R23, RZ", 2, 5),
           ("IMAD.WIDE R2, R5, 0x4, R2", 3, 4), ("VIADD R9, R9, 0x1", 3, 1), ("LDG.E R4, desc[UR4][R2.64]", 4, 1),
           ("IMAD.WIDE R6, R5, 0x4, R6", 5, 7), ("LDG.E R8, desc[UR4][R6.64]", 5, 1)]
    assert wide_imad_waits(blk) == pytest.approx([3.4, 0.0, 4.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0])
    assert per_step("imadhi") > 9.0 and per_step("imadwide") > 11.0        # H200 10.05, 12.65


def test_a_scoped_block_of_inline_asm_on_one_line_carries_its_own_sass():
    text = PTX.read_text()
    m = sassmap.weights(text, "sm_90")
    lines = [i + 1 for i, s in enumerate(text.splitlines()) if s.strip().startswith("{ .reg .pred p; setp.ne")]
    assert len(lines) == 16
    for ln in lines:            # one ISETP and one SEL a step
        assert m.weight[ln] == pytest.approx(2.0), ln
        assert m.opcodes[ln] == {"ISETP": 1, "SEL": 1}
    assert sum(m.stall[ln] for ln in lines) >= 7 * 16      # and ptxas's stall cycles with them: 4 + 4 a step


def test_a_division_by_a_changing_value_waits_on_its_own_xu_results():
    # ptxas's I2F.U32.RP -> MUFU.RCP -> F2I inside one PTX line (div.u32 by a value it cannot hoist): the reads of
    # each result wait XU_LATENCY after it, less the stall cycles between; a read by another line is the
    # scoreboard's (sm/pipelines.py xu_only), not counted here
    blk = [("I2F.U32.RP R10, R9", 1, 1), ("IMAD.MOV R11, RZ, RZ, -R9", 1, 7), ("MUFU.RCP R10, R10", 1, 2),
           ("VIADD R6, R10, 0xffffffe", 1, 6), ("F2I.FTZ.U32.TRUNC.NTZ R7, R6", 1, 2), ("IMAD R11, R11, R7, RZ", 1, 4),
           ("POPC R3, R11", 1, 2), ("IADD3 R4, R3, 0x1, RZ", 2, 1)]
    lines = [ln for _, ln, _ in blk]
    assert xu_chain_waits(blk, lines) == pytest.approx([XU_LATENCY - 8, 0, XU_LATENCY - 2, 0, XU_LATENCY - 2, 0, 0, 0])
    # the probe's chains: H200 129.5 and 128.3 cycles a step (ptxas's stall cycles alone gave 94)
    assert per_step("divvar") > 115 and per_step("remvar") > 115
