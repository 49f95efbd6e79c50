"""Stores that leave bytes of their sectors unwritten, in the L2 and at the warp's exit.

A write request (one line's sectors in one store) that leaves bytes of a sector unwritten takes its L2
slice at least `l2.partial_write_cost`: the slice merges the bytes into what it holds. On the H100
(validation/probes/sector_share.py) one-word writes, one sector per line and 32 lines per warp store,
run at 26-28 per cycle whoever shares the sectors: a 512 x 512 matrix written so, the 8 warps of each
block sharing its sectors, takes 13.5k cycles. Charged as full writes, gpusim ran it 26% fast
(prog_transpose_naive, whose stores these are, -31%).

A slice's input queue holds `l2.write_queue_cycles` of work; a write behind more waits in its SM, and the
warp that wrote it cannot exit: the H100 shows 101 cycles per instruction of drain on this kernel, whose
warps each issue one store and exit. With the queue unbounded gpusim showed 4. A store of whole sectors holds
its warp's exit only until it is in the L1."""

import json
from pathlib import Path

import numpy as np
from numba import cuda, int32

import gpusim
from gpusim.presets import get_preset
from validation.probes.sector_share import expected, launch_shape, share_store

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_sector_share.json"
N = 512
DRAIN = "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio"


def _h100(k):
    rows = json.loads(DATA.read_text())["results"]
    return next(r for r in rows if r["kernel"] == "share" and r["warps_per_sector_in_block"] == k and r["n"] == N)


def _run(k):
    out = np.full(N * N, -1, np.int32)
    grid, block = launch_shape("share", k, N)
    r = gpusim.launch(share_store, grid, block, out, np.int32(N), gpu=get_preset("h100"), mode="timing",
                      model="sass", signature=(int32[::1], int32))
    assert (out == expected(N)).all()
    assert r.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == N * N     # one sector per lane
    return r


def test_one_word_writes_shared_by_a_blocks_warps_run_at_the_h100s_rate_and_drain_as_long():
    hw = _h100(8)
    r = _run(8)
    assert abs(r.cycles / hw["gpc__cycles_elapsed.max"] - 1) < 0.12, (r.cycles, hw["gpc__cycles_elapsed.max"])
    # the warps wait at their exit for the slices' queues, as long as the H100's within a factor of 2
    assert 0.5 < r.metrics[DRAIN] / hw[DRAIN] < 2.0, (r.metrics[DRAIN], hw[DRAIN])


@cuda.jit
def _every(x, stride):
    i = cuda.grid(1)
    x[i * stride] = i


DRAIN_CYCLES = "smsp__average_warp_latency_issue_stalled_drain.ratio"     # per warp


def _drain_per_warp(stride):
    n = 528 * 256
    x = np.zeros(n * stride, np.int32)
    spec = get_preset("h100").with_(**{"l2.write_queue_cycles": 1.0})     # every slice's queue backs up
    r = gpusim.launch(_every, 528, 256, x, np.int64(stride), gpu=spec, mode="timing", model="sass")
    assert (x[::stride] == np.arange(n)).all()
    return r.metrics[DRAIN_CYCLES]


def test_a_store_of_whole_sectors_holds_its_warps_exit_only_until_it_is_in_the_l1():
    # with the slices backed up, a warp that wrote whole sectors still leaves once its store is in the L1
    # (the H100's streaming kernels drain 0.5-1.7 cycles per instruction); one that left half of every sector
    # unwritten waits until its slices have taken it
    l1 = get_preset("h100").l1.latency_sass
    whole, half = _drain_per_warp(1), _drain_per_warp(2)
    assert whole <= l1
    assert half > 4 * l1
