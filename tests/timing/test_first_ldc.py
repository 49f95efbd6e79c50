"""A kernel's first LDC (`LDC R1, c[0x0][0x28]`, ptxas's stack pointer in every sm_90 kernel) on an SM whose
constant caches are cold starts the fill of the constant line; each warp's first LDC holds an entry of its
sub-partition's MIO until the line is in, and a warp whose LDC or S2R finds the entries all held waits on
mio_throttle (gpusim/sm/fetch.py `constants_ready`; the SASS model).
On the H200 (validation/data/h100/probe_warp_start_waves_h200.json, caches flushed as ncu does before every
recorded launch) one-wave vecadd's mio_throttle is 4.3 cycles per instruction with 256-thread CTAs, sampled on
the first LDC and `S2R SR_CTAID.X`; with the caches left warm (probe_warp_start_warm_h200.json) 1.3."""

import numpy as np
import pytest
from numba import cuda

import gpusim
from gpusim import sassmap
from gpusim.errors import ConfigError
from gpusim.presets import apply_overrides, get_preset
from gpusim.sm.fetch import MIO_S2R, mio_ops
from gpusim.sm.scoreboard import S2R_SREGS
from gpusim.sm.stalls import MIO_THROTTLE

MIO = "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"
HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
pytestmark = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")


def _vecadd(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]


def _run(block, grid, model="sass", **over):
    n = grid * block
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    c = np.zeros(n, np.float32)
    gpu = apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1, "fetch.mio_entries": 8,
                                               "fetch.ldc_latency": 300, **over})
    r = gpusim.launch(_vecadd, grid, block, a, b, c, np.int64(n), gpu=gpu, mode="timing", model=model)
    np.testing.assert_array_equal(c, a + b)
    return r


def _mio_at(r):
    """mio_throttle stall cycles per pc."""
    return np.asarray(r.per_pc["stall"])[:, MIO_THROTTLE]


def test_warps_beyond_the_entries_wait_for_the_constant_line_at_their_first_ldc_or_s2r():
    r = _run(1024, 2)            # 64 warps: 16 a sub-partition, 8 entries
    mio = _mio_at(r)
    assert r.metrics[MIO] > 1.0
    assert mio[0] > 0            # the kernel's first pc stands for the LDC
    s2r = np.flatnonzero(mio_ops(r.decoded, S2R_SREGS) == MIO_S2R)      # mov.u32 of %tid.x and %ctaid.x
    assert len(s2r) == 2
    assert mio[s2r].sum() > 0    # and the S2Rs of the warps that got an entry
    assert mio.sum() == mio[0] + mio[s2r].sum()


def test_with_warm_constant_caches_no_warp_waits_for_the_mio():
    r = _run(1024, 2, **{"fetch.constants_cold": False})
    assert r.metrics[MIO] == 0


def test_a_lone_warp_finds_an_entry_free():
    assert _run(32, 1).metrics[MIO] == 0


def test_by_default_the_constant_caches_start_cold_as_ncu_records_them():
    # ncu's recordings flush every cache (constants cold); the sched_spin probe's second launch runs warm
    assert get_preset("h100").fetch.constants_cold
    assert get_preset("h100").fetch.mio_entries > 0


def test_the_ptx_model_which_does_not_know_ptxas_s_ldcs_holds_no_entries():
    assert _run(1024, 2, model="ptx").metrics[MIO] == 0


def test_no_entries_means_no_such_wait():
    assert _run(1024, 2, **{"fetch.mio_entries": 0}).metrics[MIO] == 0


def test_the_first_wave_waits_longer_the_more_warps_a_sub_partition_starts():
    # 4, 8 and 16 warps a sub-partition: the first LDCs of 4 fit the 8 entries; of 8 they fill them, and the S2Rs
    # behind wait; of 16 half the LDCs wait too
    per_sp = [_run(block, grid).metrics[MIO] for block, grid in ((512, 1), (1024, 1), (1024, 2))]
    assert per_sp[0] == 0
    assert 0 < per_sp[1] < per_sp[2]


def test_a_longer_constant_fill_means_a_longer_wait():
    short = _run(1024, 2, **{"fetch.ldc_latency": 50}).metrics[MIO]
    long = _run(1024, 2, **{"fetch.ldc_latency": 600}).metrics[MIO]
    assert long > short > 0


@pytest.mark.parametrize("key,value", [("fetch.mio_entries", -1), ("fetch.ldc_latency", -5)])
def test_a_bad_setting_names_its_key(key, value):
    with pytest.raises(ConfigError, match=f"'{key}'"):
        _run(32, 1, **{key: value})
