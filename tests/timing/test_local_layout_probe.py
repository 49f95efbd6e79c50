"""validation/probes/local_layout.py: the twin that keeps ho_local_hist_mode's bins in global memory, laid out as
local memory is, computes the same mode and count in gpusim; the recorded H200 run
holds both kinds at every grid."""
import json
from pathlib import Path

import numpy as np
from numba import cuda

import gpusim
from gpusim.presets import apply_overrides, get_preset
from validation.probes import local_layout as ll
from validation.probes import local_rmw as lr

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_local_layout_h200.json"


def test_the_global_twin_counts_as_the_local_kernel_does():
    grid, block, pt = 2, 64, 8
    nth = grid * block
    x = np.random.default_rng(2).integers(0, 1 << 20, nth * pt, dtype=np.int32)
    gpu = apply_overrides(get_preset("h100"), {"n_sm": 2, "gigathread.gpcs": 1})
    got = {}
    twins = (("local", lr.make_kernel(128), ()), ("glob", ll.glob_hist, (np.zeros(nth * 128, np.int32),)))
    for kind, k, extra in twins:
        mode, count = np.full(nth, -1, np.int32), np.full(nth, -1, np.int32)
        gpusim.launch(cuda.jit(k), grid, block, x, np.int64(pt), mode, count, *extra, mode="timing", model="ptx",
                      gpu=gpu)
        got[kind] = (mode, count)
    v = (x.reshape(pt, nth) & 127).astype(np.int64)
    h = np.bincount((np.arange(nth)[None, :] * 128 + v).ravel(), minlength=nth * 128).reshape(nth, 128)
    for kind in got:
        assert (got[kind][0] == h.argmax(axis=1)).all() and (got[kind][1] == h.max(axis=1)).all()


def test_the_record_holds_both_kinds_at_every_grid_and_the_twins_read_alike_where_the_bins_fit():
    rec = json.loads(DATA.read_text())
    ncu = {r["variant"]: r for r in rec["ncu"]}
    assert set(ncu) == set(ll.VARIANTS)
    assert rec["l2_cache_size"] == 62914560          # an H200: its L2 is 60 MB, not the H100's 50
    loc, glo = ncu["local_g132"]["dram__bytes_read.sum"], ncu["glob_g132"]["dram__bytes_read.sum"]
    assert abs(loc - glo) < 0.01 * glo and glo < 9e6      # the input (8.65 MB) and nothing more, both kinds
