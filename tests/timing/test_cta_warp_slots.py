"""Which sub-partition a CTA's warps run on. On the H100 the warps of an 8-warp CTA take an aligned group of 8
warp slots, but warp k of the CTA is slot base + 4 * (k // 4) + (k + r) % 4, with r one more for each CTA the SM
takes (validation/probes/cta_phases.py, data/h100/probe_cta_phases.json: warp 0 of successive CTAs on SM 0 at
%warpid 3, 8, 17, 26, 35, 40). So the warp that does a CTA's extra work (the halo loads of a stencil, the last
step of a reduction) lands on each sub-partition in turn, not always on the first, and the sub-partitions share
that work. gpusim placed warp k on sub-partition k % 4: every CTA's warp 0 queued on sub-partition 0, and the
other warps of its CTA waited at the barrier for it (ho_stencil1d barrier 6.9 cycles per instruction against the
H100's 2.0; +18.3% -> +10.1%)."""
import numpy as np
from numba import cuda, float32

import gpusim
import validation  # noqa: F401  (numpy shim before numba is imported)
from gpusim.presets import apply_overrides, get_preset

ONE_SM = apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1})


def warp0_works(n, out):
    """Warp 0 of each CTA runs 8 independent FMA chains (it issues about one instruction a cycle: it fills its
    sub-partition's issue slot); the other 7 warps do nothing."""
    t = cuda.threadIdx.x
    a0 = float32(t)
    one = float32(1.0)
    a1, a2, a3, a4, a5, a6, a7 = a0 + one, a0 - one, a0 * one, a0 + a0, a0 - a0, a0 + one + one, a0 * a0
    if t < 32:
        for _ in range(n):
            a0 = a0 * float32(0.999) + float32(0.5)
            a1 = a1 * float32(0.999) + float32(0.5)
            a2 = a2 * float32(0.999) + float32(0.5)
            a3 = a3 * float32(0.999) + float32(0.5)
            a4 = a4 * float32(0.999) + float32(0.5)
            a5 = a5 * float32(0.999) + float32(0.5)
            a6 = a6 * float32(0.999) + float32(0.5)
            a7 = a7 * float32(0.999) + float32(0.5)
    out[cuda.grid(1)] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


def _busy_slots(ctas, n=400):
    """The warp slots still occupied once every warp but each CTA's warp 0 has finished (one SM, the events'
    warp states sampled every 256 cycles: a slot's state is `empty` once its warp has left)."""
    out = np.zeros(ctas * 256, np.float32)
    r = gpusim.launch(warp0_works, ctas, 256, np.int64(n), out, gpu=ONE_SM, mode="timing", model="ptx", events=256)
    ws = r.events.warp_state[:, 0, :]
    mid = ws[ws.shape[0] // 2]      # half-way through: the busy warps are running, the others long gone
    return np.flatnonzero(mid != r.events.state_names.index("empty")), r.metrics["gpc__cycles_elapsed.max"]


def test_warp_0_of_successive_ctas_lands_on_successive_subpartitions():
    slots, _ = _busy_slots(4)
    assert len(slots) == 4
    assert sorted(slots // 8) == [0, 1, 2, 3]          # one aligned group of 8 slots per CTA
    assert sorted(slots % 4) == [0, 1, 2, 3], slots      # warp 0 one sub-partition further on each time


def test_eight_ctas_put_two_busy_warps_on_each_subpartition():
    slots, _ = _busy_slots(8)
    assert np.bincount(slots % 4, minlength=4).tolist() == [2, 2, 2, 2], slots


def test_the_busy_warps_of_four_ctas_share_the_sm_as_four_sub_partitions():
    _, one = _busy_slots(1)
    _, four = _busy_slots(4)
    assert four < 1.2 * one, (one, four)
