"""gpusim calibrate: fit preset latencies and overheads from the recorded microbenchmarks.

Each parameter is fitted from the case that isolates it, holding the others fixed, in this order:
  l1.latency                  chase_l1:     cycles per dependent step (in-kernel %clock64)
  smem.latency                chase_shared
  l2.latency                  chase_l2      (after L1)
  dram.latency                chase_dram    (after L2)
  fetch.miss_latency          launch_empty: no_instruction stall cycles of its one warp (after the L2: its
                              code is read through it)
  fetch.imc_latency           launch_empty: imc_miss stall cycles of its one warp (its ULDC of the block size)
  gigathread.launch_overhead  launch_empty: measured gpc__cycles_elapsed.max (the median of its runs) minus
                              simulated cycles at 0
A chase step is one dependent load plus the PTX address arithmetic before it, so each latency is
shifted by the per-step difference; two passes settle it. No per-kernel factors are introduced.
The result is written as a TOML override file (`--write FILE.toml`), usable as `--gpu FILE.toml`.
"""
from __future__ import annotations

import json
from functools import reduce

from validation.replay import DATA, hw_cycles, simulate

# gpusim starts every launch with cold caches; the DRAM chase is only DRAM-bound with L2 flushed
# (its chain fits in the 50 MB L2 once a previous launch has walked it)
# (and the burst cases measure DRAM data arriving from a cold L2)
CLOCK_RUN = {"chase_dram": "l2_flushed", "chase_dram_4m": "l2_flushed", "chase_dram_seq": "l2_flushed",
             "chase_dram_seq1k": "l2_flushed", "burst_w4": "l2_flushed", "burst_w8": "l2_flushed",
             "burst_w32": "l2_flushed", "burst_w8_light": "l2_flushed"}
PLAN = [("l1.latency", "chase_l1"), ("smem.latency", "chase_shared"), ("l2.latency", "chase_l2"),
        ("dram.latency", "chase_dram")]
NOINST = "smsp__average_warp_latency_issue_stalled_no_instruction.ratio"
IMC = "smsp__average_warp_latency_issue_stalled_imc_miss.ratio"


def _recorded(name):
    return json.loads((DATA / f"{name}.json").read_text())


def get(spec, path: str):
    return reduce(getattr, path.split("."), spec)


def fit(spec, passes: int = 2, log=print) -> tuple:
    from validation.cases import all_cases
    cases = all_cases()
    fitted = {}
    for param, case in PLAN:
        target = _recorded(case)["clock64"][CLOCK_RUN.get(case, "warm")]["cycles_per_step"]
        old = get(spec, param)
        for _ in range(passes):
            _, derived, _ = simulate(cases[case], spec)
            sim = derived["cycles_per_step"]
            spec = spec.with_(**{param: max(1, int(round(get(spec, param) + target - sim)))})
            log(f"  {param}: step {sim:.1f} vs H100 {target:.1f} -> {get(spec, param)}")
        fitted[param] = (old, get(spec, param), f"{case}: H100 {target:.1f} cycles/step")
    rec = _recorded("launch_empty")
    hw_noinst = rec["ncu"]["metrics"][NOINST]["value"]
    old = spec.fetch.miss_latency
    for _ in range(passes):     # one warp, cold instruction cache: it waits for its first line once
        m, _, _ = simulate(cases["launch_empty"], spec)
        spec = spec.with_(**{"fetch.miss_latency": max(0, int(round(spec.fetch.miss_latency + hw_noinst - m[NOINST])))})
    fitted["fetch.miss_latency"] = (old, spec.fetch.miss_latency,
                                    f"launch_empty: H100 no_instruction {hw_noinst:.0f} cycles per warp")
    hw_imc = rec["ncu"]["metrics"][IMC]["value"]
    old = spec.fetch.imc_latency
    for _ in range(passes):     # its one ULDC misses the cold immediate-constant cache
        m, _, _ = simulate(cases["launch_empty"], spec)
        spec = spec.with_(**{"fetch.imc_latency": max(0, int(round(spec.fetch.imc_latency + hw_imc - m[IMC])))})
    fitted["fetch.imc_latency"] = (old, spec.fetch.imc_latency,
                                   f"launch_empty: H100 imc_miss {hw_imc:.0f} cycles per warp")
    hw = hw_cycles(rec)     # the median of its H100 runs
    m, _, _ = simulate(cases["launch_empty"], spec.with_(**{"gigathread.launch_overhead": 0}))
    old = spec.gigathread.launch_overhead
    spec = spec.with_(**{"gigathread.launch_overhead": int(round(hw - m["gpc__cycles_elapsed.max"]))})
    fitted["gigathread.launch_overhead"] = (old, spec.gigathread.launch_overhead,
                                            f"launch_empty: H100 {hw:,.0f} cycles, gpusim without overhead "
                                            f"{m['gpc__cycles_elapsed.max']:,}")
    return spec, fitted


def to_toml(base: str, fitted: dict) -> str:
    """The fitted values as a TOML override file of preset `base`."""
    tables: dict = {}
    for path, (_, value, why) in fitted.items():
        unit, key = path.split(".")
        tables.setdefault(unit, []).append(f"{key} = {value!r}   # {why}")
    out = [f'base = "{base}"']
    for unit, rows in tables.items():
        out += ["", f"[{unit}]", *rows]
    return "\n".join(out) + "\n"
