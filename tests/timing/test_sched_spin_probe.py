"""The sched_spin probe's kernel (validation/probes/sched_spin.py) runs unchanged in gpusim. On the H100 two
1024-thread blocks spinning on %clock64 on one SM share the issue slots about 10 to 1: the younger block
reads its first clock 224 cycles (median over SMs, at most 313) after the older one, and makes 0.09 of its
loop trips (validation/data/h100/probe_sched_spin.json).

The SASS model runs the oldest CTA strictly first (`scheduler.starve_cycles_sass` = 0). The spin loop's trip
counter is uniform-datapath SASS (UIADD3), which takes no vector pipe (since the forty-third pass it takes the
uniform pipe, 3 cycles an instruction, which the loop does not fill), so the older block leaves the younger issue
slots: it starts (first read 555 cycles after) and makes a few trips (0.017, fewer than the H100's 0.09).
Were the counter charged to the ALU, as its PTX class says, the older block would fill every slot and the younger
would wait until it is done. The PTX model, which cannot see the uniform datapath, lets a warp that has waited
`scheduler.starve_cycles` = 200 cycles go first, which gives the H100's share (first read 222, 0.17).

The probes launch each kernel twice and record the second launch, outside ncu: the constant caches are warm
(`fetch.constants_cold` False), so the first LDCs do not wait for a constant line (sm/fetch.py)."""

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.presets import apply_overrides, get_preset
from validation.probes.sched_spin import spin_first

HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_sched_spin.json"
SPIN = 4000


def _two_blocks_on_one_sm(model="sass", **scheduler):
    over = {"n_sm": 1, "gigathread.gpcs": 1, "fetch.constants_cold": False,
            **{f"scheduler.{k}": v for k, v in scheduler.items()}}
    rec = np.zeros((64, 4), np.int64)
    gpusim.launch(spin_first, 2, 1024, np.int64(SPIN), np.arange(1024, dtype=np.int64), rec,
                  gpu=apply_overrides(get_preset("h100"), over), mode="timing", model=model)
    old, young = rec[:32], rec[32:]
    if old[:, 1].min() > young[:, 1].min():
        old, young = young, old
    return {"young_first_read": int(young[:, 1].max() - old[:, 1].min()),
            "trips_ratio": float(np.median(young[:, 3]) / np.median(old[:, 3]))}


def _measured():
    run = next(r for r in json.loads(DATA.read_text())["runs"] if r["kernel"] == "spin_first" and r["grid"] == 264)
    sm0 = np.asarray(run["sm0_trips"])
    return run["first_read_spread_median"], run["first_read_spread_max"], float(sm0[32:].mean() / sm0[:32].mean())


def test_under_the_ptx_model_a_starving_warp_gets_the_share_of_slots_the_h100_gives_a_younger_block():
    spread_median, spread_max, ratio = _measured()
    got = _two_blocks_on_one_sm(model="ptx")
    assert 0.5 * spread_median <= got["young_first_read"] <= 1.5 * spread_max
    assert got["trips_ratio"] == pytest.approx(ratio, abs=0.1)


def test_without_the_guard_the_ptx_model_starves_the_younger_block_until_the_older_is_done():
    got = _two_blocks_on_one_sm(model="ptx", starve_cycles=0)
    assert got["young_first_read"] >= SPIN


@needs_tools
def test_strictly_oldest_first_the_sass_model_still_starts_the_younger_spinning_block():
    # the older block's trip counter on the uniform datapath leaves the younger block issue slots
    spread_median, spread_max, ratio = _measured()
    got = _two_blocks_on_one_sm()
    assert got["young_first_read"] <= 2 * spread_max
    assert 0 < got["trips_ratio"] <= ratio


def _trips_per_cycle(fn, spin=SPIN):
    rec = np.zeros((32, 4), np.int64)
    gpusim.launch(fn, 1, 1024, np.int64(spin), np.ones(1024, np.int64), rec, mode="timing", model="sass",
                  gpu=apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1,
                                                           "fetch.constants_cold": False}))
    return float(np.median(rec[:, 3])) * 8 / spin


@needs_tools
def test_a_trip_counter_on_the_uniform_datapath_leaves_the_alu_as_on_the_h100():
    # validation/probes/spin_counter.py: the spin loop counting by a constant (UIADD3, UIADD3.X) makes 0.097 trips
    # per cycle per sub-partition on the H200, by a loaded increment (IADD3, IADD3.X) 0.081: 1.20x. Were the
    # uniform instructions charged to the ALU (before the twenty-fifth pass) the two would run alike.
    from validation.probes.spin_counter import spin_uniform, spin_vector
    data = json.loads((DATA.parent / "probe_spin_counter_h200.json").read_text())
    rate = {(r["kernel"], r["blocks_per_sm"]): r["old_trips_per_cycle_per_subpartition"] for r in data["runs"]}
    measured = rate[("spin_uniform", 1)] / rate[("spin_vector", 1)]
    got = _trips_per_cycle(spin_uniform) / _trips_per_cycle(spin_vector)
    assert measured > 1.1
    assert got == pytest.approx(measured, abs=0.15)
