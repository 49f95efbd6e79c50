"""An IMAD.HI holds its sub-partition's dispatch for two cycles after it issues, and the H100 samples a warp that
waits for it as dispatch_stall.

The dispatch_pairs probe (validation/probes/dispatch_pairs.py, H200 data probe_dispatch_pairs_h200.json): each
thread runs 4 independent `mul.hi.u32` chains (IMAD.HI.U32) between shift-and-xor work. With eight warps a
sub-partition a step takes the H200 276.8 cycles and each warp spends 57.9 of them on dispatch_stall; gpusim,
whose heavy FMA pipe takes an IMAD.HI every 4 cycles and which sampled no dispatch_stall outside an mma, gave 215.4
and 0. With one warp the H200 samples 7.5 cycles of dispatch_stall a step. The `mul.lo` form (IMAD) has none.
Here one SM runs one of the probe's CTAs (every SM of the probe runs one)."""

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.kernels import load_ptx
from gpusim.presets import get_preset
from gpusim.sasslisting import DISPATCH_SAMPLED, dispatch_hold
from gpusim.spec import override
from validation.probes.dispatch_pairs import one_sm_step

ROOT = Path(__file__).resolve().parents[2]
PTX = ROOT / "tests" / "timing" / "ptx" / "dispatch_pairs.ptx"
HW = {r["kernel"]: r for r in json.loads((ROOT / "validation" / "data" / "h100" / "probe_dispatch_pairs_h200.json")
                                         .read_text())["results"]}


def _step(kernel: str, block: int) -> dict:
    spec = override(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1})
    r = gpusim.launch(load_ptx(PTX)[kernel], 1, block, np.zeros(block, np.uint32), np.uint32(0x2545F491), gpu=spec,
                      mode="timing", model="sass")
    return one_sm_step(r, block)


def test_only_an_imad_hi_holds_the_dispatch_and_an_imad_wides_hold_is_only_sampled():
    assert dispatch_hold("IMAD.HI.U32 R14, R7, R0, RZ") == 2
    assert dispatch_hold("@P1 IMAD.HI R3, R2, 0x55555556, RZ") == 2
    assert dispatch_hold("IMAD R3, R2, UR7, RZ") == dispatch_hold("IMAD.WIDE.U32 R4, R6, UR7, RZ") == 0
    assert dispatch_hold("IMAD.WIDE.U32 R4, R6, UR7, RZ", DISPATCH_SAMPLED) == 2
    assert dispatch_hold("@!P0 IMAD.WIDE R4, R6, 0x4, R2", DISPATCH_SAMPLED) == 2
    assert dispatch_hold("IMAD.HI.U32 R14, R7, R0, RZ", DISPATCH_SAMPLED) == 0
    assert dispatch_hold("IMAD R3, R2, UR7, RZ", DISPATCH_SAMPLED) == 0


def test_eight_warps_of_imad_hi_chains_take_the_h200s_time_and_wait_on_the_dispatch_as_it_does():
    hw, sim = HW["disp_hi_1024"], _step("disp_hi_1024", 1024)
    assert sim["cycles_per_step"] == pytest.approx(hw["cycles_per_step"], rel=0.05)
    assert sim["dispatch_stall"] == pytest.approx(hw["dispatch_stall"], rel=0.2)


def test_one_warp_waits_on_the_dispatch_after_each_imad_hi_and_imad_chains_do_not():
    assert _step("disp_hi_128", 128)["dispatch_stall"] == pytest.approx(HW["disp_hi_128"]["dispatch_stall"], abs=1.5)
    lo = _step("disp_lo_1024", 1024)
    assert lo["dispatch_stall"] < 0.5 and lo["cycles_per_step"] == pytest.approx(HW["disp_lo_1024"]["cycles_per_step"],
                                                                                 rel=0.05)


def test_imad_wide_chains_are_sampled_waiting_on_the_dispatch_without_losing_time_to_it():
    """The H200 samples dispatch_stall after an IMAD.WIDE as after an IMAD.HI (8.2 cycles a step at one warp, 64.0
    of 275.3 at eight), but gpusim's IMAD.WIDE time is fitted in its pipe and reader waits without a hold: the
    stretch is sampled, the dispatch goes on. So one warp's step keeps the H200's time and the eight-warp step
    its old, short one (221.9 cycles; all 140 validation cases' cycles were unchanged by the sampled stretch)."""
    one, eight = _step("disp_wide_128", 128), _step("disp_wide_1024", 1024)
    assert one["cycles_per_step"] == pytest.approx(HW["disp_wide_128"]["cycles_per_step"], rel=0.05)
    assert 3.0 < one["dispatch_stall"] < HW["disp_wide_128"]["dispatch_stall"]
    assert eight["dispatch_stall"] == pytest.approx(HW["disp_wide_1024"]["dispatch_stall"], rel=0.2)
    assert eight["cycles_per_step"] < 0.85 * HW["disp_wide_1024"]["cycles_per_step"]     # not modelled: the hold


def test_an_mma_keeps_its_own_dispatch_hold_beside_the_maps_columns():
    """The SASS model's slots (with their IMAD.HI column) must not replace an mma.sync's dispatch hold
    (pipes.tensor_hold): the two are separate per-pc columns of the pipes' state."""
    from gpusim.isa import opcodes as oc
    from gpusim.sm import pipelines
    spec = get_preset("h100")
    d = load_ptx(ROOT / "tests" / "isa" / "ptx" / "tensor_tile.ptx")["tile"].decoded
    mma = [pc for pc in range(d.n) if d.ins[pc, oc.F_OP] == oc.OP["mma"]]
    want = spec.pipes.mma_timing("m16n8k16", "f16", 4)[2]
    slots = np.zeros((d.n, 9), np.int64)
    slots[:, 0] = pipelines.SLOT
    slots[:, 6] = 2 * pipelines.SLOT        # every pc an IMAD.HI's hold
    for given in (None, slots):
        p = pipelines.make_state(spec.pipes, 4, spec.l1.latency, spec.l2.atomic_latency, d, 4, given)
        assert mma and all(p.tensor_hold[pc] == want for pc in mma) and want > 1
        assert (p.disp_hold == (0 if given is None else 2 * pipelines.SLOT)).all()
