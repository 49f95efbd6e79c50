"""validation/probes/local_rmw.py: ho_local_hist_mode's kernel with fewer bins, other data or other grids computes
the histogram's mode in gpusim, and the recorded H200 run holds every variant with its counters."""
import json
from pathlib import Path

import numpy as np
import pytest
from numba import cuda

import gpusim
from gpusim.presets import apply_overrides, get_preset
from validation.probes import local_rmw as lr

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_local_rmw_h200.json"


@pytest.mark.parametrize("bins,data", [(32, "rand"), (128, "lane"), (128, "same")])
def test_the_variant_kernels_count_each_thread_s_values_into_its_own_bins(bins, data):
    grid, block, pt = 2, 64, 8
    nth = grid * block
    rng = np.random.default_rng(1)
    x = {"rand": rng.integers(0, 1 << 20, nth * pt, dtype=np.int32),
         "lane": np.tile((np.arange(nth) & 31).astype(np.int32), pt),
         "same": np.zeros(nth * pt, np.int32)}[data]
    mode, count = np.full(nth, -1, np.int32), np.full(nth, -1, np.int32)
    gpusim.launch(cuda.jit(lr.make_kernel(bins)), grid, block, x, np.int64(pt), mode, count, mode="timing",
                  model="ptx", gpu=apply_overrides(get_preset("h100"), {"n_sm": 2, "gigathread.gpcs": 1}))
    v = (x.reshape(pt, nth) & (bins - 1)).astype(np.int64)
    h = np.bincount((np.arange(nth)[None, :] * bins + v).ravel(), minlength=nth * bins).reshape(nth, bins)
    assert (mode == h.argmax(axis=1)).all() and (count == h.max(axis=1)).all()


def test_the_record_has_each_variant_timed_and_counted_on_the_gpu():
    rec = json.loads(DATA.read_text())
    assert set(rec["gpu"]) == set(lr.VARIANTS)
    ncu = {r["variant"]: r for r in rec["ncu"]}
    assert set(ncu) == set(lr.VARIANTS)
    assert "H200" in rec["provenance"]["gpu_name"]
    # what the run shows: with 3 CTAs an SM the local data outgrows the L2 and the DRAM traffic grows 5x
    assert ncu["g396"]["dram__bytes_write.sum"] > 2 * ncu["base"]["dram__bytes_write.sum"]
    assert ncu["g396"]["gpc__cycles_elapsed.max"] > 2 * ncu["base"]["gpc__cycles_elapsed.max"]
    # the local load requests as the SASS has them: per warp one LDL per value, and the final scan's 32 LDL.128
    # of four requests each
    assert ncu["base"]["l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"] == 264 * 8 * (64 + 32 * 4)
    assert ncu["pt16"]["l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"] == 264 * 8 * (16 + 32 * 4)
