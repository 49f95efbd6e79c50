"""The L1 merges a warp's stores to the lines it wrote only in ascending address order.

A thread writing a 16-B row word by word sends the L2, in Nsight Compute's counting (lts__t_sectors_op_write
per L1 store sector), 0.425 of its sectors when the words go +0, +4, +8, +12 (store_rows4) and 0.755 when
ptxas issues them +4, +0, +8, +12 (ho_scan_exclusive, the CUDA samples' scan): the second store starts below the
first and starts a merge of its own, so four stores reach the L2 as two. gpusim issues each basic block in
ptxas's order (two stores of disjoint bytes from one address register may swap) and merges a store into the
warp's previous one only if it does not start below it (`lsu.combine_ascending`)."""

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.isa import parser
from gpusim.isa.schedule import _may_pass
from gpusim.presets import get_preset

HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100"
RATIO = ("lts__t_sectors_op_write.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")

ROW_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .u64 %rd<6>; .reg .u32 %r<6>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %ctaid.x;
mov.u32 %r2, %ntid.x;
mov.u32 %r3, %tid.x;
mad.lo.s32 %r4, %r1, %r2, %r3;
mul.wide.u32 %rd3, %r4, 16;
add.s64 %rd4, %rd2, %rd3;
ORDER
ret;
}
"""


def _row_ratio(offsets, ascending=1):
    body = "\n".join(f"st.global.u32 [%rd4+{o}], %r4;" for o in offsets)
    k = gpusim.load_ptx(ROW_PTX.replace("ORDER", body))["k"]
    spec = get_preset("h100").with_(**{"lsu.combine_ascending": ascending})
    m = gpusim.launch(k, 256, 256, np.zeros(256 * 256 * 4, np.uint32), gpu=spec, mode="timing").metrics
    return m[RATIO[0]] / m[RATIO[1]]


def test_a_store_that_starts_below_the_warps_previous_one_is_not_merged_into_it():
    up = _row_ratio((0, 4, 8, 12))
    scan = _row_ratio((4, 0, 8, 12))
    assert scan == pytest.approx(2 * up, rel=0.02)          # two merges of the four stores instead of one
    assert _row_ratio((4, 0, 8, 12), ascending=0) == pytest.approx(up, rel=0.02)


def _instr(text):
    ptx = ROW_PTX.replace("ORDER", text)
    return [it for it in parser.parse_ptx(ptx).functions["k"].body if getattr(it, "base", None) == "st"]


def test_stores_of_disjoint_bytes_from_one_address_register_may_swap_and_no_others():
    a, b = _instr("st.global.u32 [%rd4+4], %r4;\nst.global.u32 [%rd4], %r4;")
    assert _may_pass(a, b)
    wide, narrow = _instr("st.global.u64 [%rd4], %rd4;\nst.global.u32 [%rd4+4], %r4;")
    assert not _may_pass(wide, narrow)                      # bytes 4-7 written by both
    x, y = _instr("st.global.u32 [%rd4], %r4;\nst.global.u32 [%rd3+4], %r4;")
    assert not _may_pass(x, y)                              # two address registers may alias
    g, s = _instr("st.global.u32 [%rd4], %r4;\nst.shared.u32 [%rd4+4], %r4;")
    assert not _may_pass(g, s)


@pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")
@pytest.mark.parametrize("case", ["ho_scan_exclusive", "store_rows4"])
def test_the_l2_gets_the_share_of_store_sectors_the_h100_does(case):
    from validation.cases import all_cases
    c = all_cases()[case]
    inp = c.inputs(0)
    runs = []

    def launch(kernel, grid, block, *args, **opts):
        runs.append(gpusim.launch(kernel, grid, block, *args, gpu="h100", mode="timing", fma=True, model="sass",
                                  **opts))
        return runs[-1]

    c.run(launch, inp)
    m = runs[-1].metrics
    hw = json.loads((DATA / f"{case}.json").read_text())["ncu"]["metrics"]
    want = hw[RATIO[0]]["value"] / hw[RATIO[1]]["value"]
    assert m[RATIO[0]] / m[RATIO[1]] == pytest.approx(want, abs=0.05)
