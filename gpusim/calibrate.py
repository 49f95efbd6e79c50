"""gpusim calibrate: fit preset latencies and overheads from the recorded microbenchmarks.

Each parameter is fitted from the case that isolates it, holding the others fixed:
  kernel_launch_overhead  launch_empty: measured gpc__cycles_elapsed.max minus simulated cycles at 0
  l1_latency              chase_l1:     cycles per dependent step (in-kernel %clock64)
  smem_latency            chase_shared
  l2_latency              chase_l2      (after L1)
  dram_latency            chase_dram    (after L2)
A chase step is one dependent load plus the PTX address arithmetic before it, so each latency is
shifted by the per-step difference; two passes settle it. No per-kernel factors are introduced.
"""
from __future__ import annotations

import dataclasses
import json

from gpusim.validate import DATA, simulate

# gpusim starts every launch with cold caches; the DRAM chase is only DRAM-bound with L2 flushed
# (its chain fits in the 50 MB L2 once a previous launch has walked it)
CLOCK_RUN = {"chase_dram": "l2_flushed"}
PLAN = [("l1_latency", "chase_l1"), ("smem_latency", "chase_shared"), ("l2_latency", "chase_l2"),
        ("dram_latency", "chase_dram")]


def _recorded(name):
    return json.loads((DATA / f"{name}.json").read_text())


def fit(spec, passes: int = 2, log=print) -> tuple:
    from validation.cases import all_cases
    cases = all_cases()
    fitted = {}
    rec = _recorded("launch_empty")
    hw = rec["ncu"]["metrics"]["gpc__cycles_elapsed.max"]["value"]
    m, _, _ = simulate(cases["launch_empty"], dataclasses.replace(spec, kernel_launch_overhead=0))
    fitted["kernel_launch_overhead"] = (spec.kernel_launch_overhead, int(round(hw - m["gpc__cycles_elapsed.max"])),
                                        f"launch_empty: H100 {hw:,.0f} cycles, gpusim without overhead "
                                        f"{m['gpc__cycles_elapsed.max']:,}")
    spec = dataclasses.replace(spec, kernel_launch_overhead=fitted["kernel_launch_overhead"][1])
    for param, case in PLAN:
        target = _recorded(case)["clock64"][CLOCK_RUN.get(case, "warm")]["cycles_per_step"]
        old = getattr(spec, param)
        sim = None
        for _ in range(passes):
            _, derived, _ = simulate(cases[case], spec)
            sim = derived["cycles_per_step"]
            spec = dataclasses.replace(spec, **{param: max(1, int(round(getattr(spec, param) + target - sim)))})
            log(f"  {param}: step {sim:.1f} vs H100 {target:.1f} -> {getattr(spec, param)}")
        fitted[param] = (old, getattr(spec, param), f"{case}: H100 {target:.1f} cycles/step")
    return spec, fitted
