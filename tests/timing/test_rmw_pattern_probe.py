"""validation/probes/rmw_pattern.py: the read-modify-write probe's kernels compute what they should in gpusim, and
its table reads a record as ratios to the store-only sweep."""
import json
from pathlib import Path

import numpy as np
from numba import cuda

import gpusim
from gpusim.presets import apply_overrides, get_preset
from validation.probes import rmw_pattern as rp

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_rmw_pattern_h200.json"


def _run(name, words=96, grid=2, block=64):
    buf = np.zeros(words * grid, np.uint32)
    src = np.arange(words * grid, dtype=np.uint32)
    gpusim.launch(cuda.jit(rp.KERNELS[name]), grid, block, np.int64(words), buf, src, mode="timing", model="ptx",
                  gpu=apply_overrides(get_preset("h100"), {"n_sm": 2, "gigathread.gpcs": 1}))
    return buf, src


def test_each_variant_leaves_the_buffer_its_source_says():
    assert (_run("rmw_slices")[0] == 1).all()
    assert (_run("rmw_lag")[0] == 1).all()
    assert (_run("rmw_twice")[0] == 2).all()
    assert (_run("rmw_nodep")[0] == 7).all()
    assert (_run("rmw_interleaved")[0] == 1).all()
    buf, src = _run("copy_slices")
    assert (buf == src + 1).all()


def test_the_table_gives_each_variant_as_a_ratio_to_the_store_only_sweep():
    rec = json.loads(DATA.read_text())
    rows = {v: (t, r) for v, t, r in rp.table(rec["gpu"])}
    assert rows["store_slices"][1] == 1.0
    assert set(rows) == set(rp.VARIANTS)
    # what the recorded H200 run shows: a store to a word whose load is still in flight stalls the SM
    assert rows["rmw_nodep"][1] > 10 * rows["copy_slices"][1]
