"""An SM's four sub-partitions share its MIO and LSU queues: when an entry frees, the sub-partition after the
last one to put an instruction in goes first. Warps doing the same work on different sub-partitions then
finish together, as on the H100 (smem_st128: each warp's store loop takes 21.5k cycles on the H100 whichever
sub-partition it runs on). When the sub-partitions went in a fixed order each cycle, the first took every entry
that freed while it had a warp waiting: its warps ran their loop in half the time of the others', and the
CTA's barrier waited for the last (smem_st128: barrier 13.9 cycles per instruction against the H100's 1.1)."""
import numpy as np
import pytest

import gpusim
import validation  # noqa: F401  (numpy shim before numba is imported)
from validation.cases.mechanisms import smem_pipe


def _loop_cycles(block, iters=16):
    """Each warp's cycles in smem_st128's loop of 8 conflict-free 128-bit shared stores per iteration, one CTA
    (block / 32 warps over the 4 sub-partitions: the MIO queue is full the whole loop)."""
    nw = block // 32
    args = dict(step=np.int64(8), iters=np.int64(iters), out=np.zeros(block, np.int64),
                sm=np.zeros(nw, np.int32), t_start=np.zeros(nw, np.int64), t_end=np.zeros(nw, np.int64))
    gpusim.launch(smem_pipe.smem_st128, 1, block, *args.values(), mode="timing", model="ptx")
    return args["t_end"] - args["t_start"]


@pytest.mark.parametrize("block", [128, 512])
def test_warps_on_different_subpartitions_get_the_shared_queue_in_turn(block):
    d = _loop_cycles(block)
    assert d.min() > 0
    assert d.max() / d.min() < 1.10, d


def test_the_warps_of_one_subpartition_are_not_all_ahead_of_another_ones():
    d = _loop_cycles(512).reshape(-1, 4)       # warp slot w is on sub-partition w % 4
    per_sp = d.mean(axis=0)
    assert per_sp.max() / per_sp.min() < 1.05, per_sp
