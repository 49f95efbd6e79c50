"""The CTA-refill probe (validation/probes/cta_refill.py) runs unchanged in gpusim, and gpusim's
sm__warps_active counts a warp from its launch on the SM, as the clocks its first instruction reads do:
not from the moment its CTA took the slot (the engine's turn and the launch latency come before)."""

import gpusim
from gpusim.presets import H100
from validation.probes.cta_refill import analyse, run

GRID, BLOCK, LIMIT = 2112, 256, 8       # two full waves of 8 CTAs on each of the 132 SMs


def _probe():
    results = []

    def launch(kernel, grid, block, *args):
        results.append(gpusim.launch(kernel, grid, block, *args, gpu=H100, mode="timing"))

    rec = run(launch, GRID, BLOCK)
    return analyse(rec, BLOCK, LIMIT), results[-1]


def test_the_probe_measures_refills_in_gpusim_as_on_the_h100():
    a, _ = _probe()
    # a retired CTA's slot is taken again no sooner than the CTA launch latency after it
    assert a["refill_cycles_p10"] >= H100.gigathread.cta_launch_latency
    assert a["first_wave_span_median"] >= 0 and 0 < a["resident_warps_pct"] <= 100


def test_warps_count_as_active_from_their_launch():
    a, r = _probe()
    metric = r.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"]
    # the clocks count from each warp's first instruction to its store; the metric also holds the exit and
    # the drain, a few percent more, and averages over the SM's active cycles where the clocks divide by the
    # span from its first read to its last (the SM's cold start before its first read, instruction and
    # constant cache misses, is in the one and not the other); from the slot's reservation it had read 20+
    # points more
    assert a["resident_warps_pct"] - 2 <= metric <= a["resident_warps_pct"] + 12
