"""Write combining in the L1 (gpusim/sm/storepath.py `write_combines`): a warp's global store that writes
only lines its previous store wrote (a store of at most `lsu.combine_lines` lines) merges into it and
sends nothing more to the L2, as the H100 does for a row written member by member (store_rows2/4:
ncu counts 0.77 and 0.42 L2 write sectors per L1 store sector, 1.50 elsewhere)."""

import numpy as np

import gpusim
from gpusim.presets import H100
from validation.cases.stores import row_store4 as rows4
from validation.cases.stores import row_store8 as rows8


def _l2_sectors(kernel, width, **over):
    out = np.zeros((64 * 32, width), np.int32)
    m = gpusim.launch(kernel, 32, 64, out, gpu=H100.with_(**over), mode="timing").metrics
    assert np.array_equal(out, np.arange(64 * 32)[:, None] + np.arange(width)[None, :])
    return m["lts__t_sectors.sum"], m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]


def test_a_row_written_member_by_member_reaches_the_l2_once():
    merged, l1_merged = _l2_sectors(rows4, 4)
    apart, l1_apart = _l2_sectors(rows4, 4, **{"lsu.combine_lines": 0})
    assert l1_merged == l1_apart == 64 * 4 * 16      # 64 warps, 4 stores of 16 sectors each
    assert apart - merged == 64 * 3 * 16        # the 2nd..4th store of each warp add no L2 sector


def test_stores_wider_than_the_buffer_do_not_merge():
    wide, _ = _l2_sectors(rows8, 8)
    off, _ = _l2_sectors(rows8, 8, **{"lsu.combine_lines": 0})
    assert wide == off                          # 8 lines per warp store: more than combine_lines (4)
    merged, _ = _l2_sectors(rows8, 8, **{"lsu.combine_lines": 8})
    assert off - merged == 64 * 7 * 32          # 8 stores of 32 sectors: the 2nd..8th merge


def test_stores_merge_only_within_the_window():
    near, _ = _l2_sectors(rows4, 4)
    never, _ = _l2_sectors(rows4, 4, **{"lsu.combine_window": 0})
    off, _ = _l2_sectors(rows4, 4, **{"lsu.combine_lines": 0})
    assert off - near == 64 * 3 * 16
    assert never == off                         # a window of 0 cycles: no two stores come together
