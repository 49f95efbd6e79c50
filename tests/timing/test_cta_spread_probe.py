"""The cta_spread probe (validation/probes/cta_spread.py) splits how far apart a CTA's warps get their DRAM data
into how far apart they start and how far apart their waits end; on an H200 the starts explain almost none of it
(data/h100/probe_cta_spread_h200.json). Its analysis is checked on records built by hand, and its kernels run
unchanged in gpusim with the clocks read where the device reads them."""

import numpy as np

import gpusim
from gpusim.presets import H100
from validation.probes.cta_spread import analyse, lines8


def _rec(starts, datas, smsp=None):
    """One row per warp: (smid, warpid, start clock, data clock), CTAs of len(starts[0]) warps."""
    rows = []
    for c, (s, d) in enumerate(zip(starts, datas)):
        for w, (t0, t1) in enumerate(zip(s, d)):
            rows.append((c, w if smsp is None else smsp[w], t0, t1))
    return np.array(rows, np.int64)


def test_staggered_starts_with_equal_waits_are_all_start_spread():
    a = analyse(_rec([[0, 100, 200, 300]], [[1000, 1100, 1200, 1300]]), 4)
    assert a["start_spread"] == a["data_spread"] == 300
    assert a["wait_spread"] == 0 and a["barrier_if_starts_equal"] == 0
    assert a["barrier_after_data"] == a["start_behind"] == 150


def test_equal_starts_with_spread_waits_are_all_wait_spread():
    a = analyse(_rec([[0, 0, 0, 0], [0, 0, 0, 0]], [[1000, 1400, 1000, 1000], [900, 900, 900, 1700]]), 4)
    assert a["start_spread"] == 0 and a["start_behind"] == 0
    assert a["data_spread"] == a["wait_spread"] == (400 + 800) / 2
    # behind the CTA's last warp: (3 x 400) / 4 and (3 x 800) / 4, averaged over the two CTAs
    assert a["barrier_after_data"] == a["barrier_if_starts_equal"] == (300 + 600) / 2


def test_the_kernel_runs_in_gpusim_with_every_warp_s_clocks_in_order():
    grid, block = 8, 128
    a = np.arange(grid * block * 8, dtype=np.int32)
    out = np.zeros(grid * block, np.int32)
    rec = np.zeros((grid * block // 32, 4), np.int64)
    r = gpusim.launch(lines8, grid, block, a, out, rec, gpu=H100, mode="timing", model="ptx")
    assert r.cycles > 0
    assert (out == a.reshape(grid, 8, block).sum(axis=1).ravel()).all()
    assert (rec[:, 3] > rec[:, 2]).all()            # every warp read its start before its data was in
    assert (rec[:, 3] - rec[:, 2] > H100.l2.latency).all()   # each waited at least an L2 round trip
    res = analyse(rec, block // 32)
    assert res["ctas"] == grid and res["wait_p10_p50_p90"][0] > 0
