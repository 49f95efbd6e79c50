"""Probe (device with ncu; also runs in gpusim): what a warp waits when the constant-bank blocks its ULDCs read
are not yet in its SM's immediate-constant cache (imc_miss), by warps per SM and blocks read.

The H100's per-SASS tables (validation/data/h100/ncu/sass_stalls*/) put 74-151 cycles of imc_miss a warp on each
ULDC block of the held-out programs (393 on tri_flash_attention's one block), where gpusim fills each block once
per SM (`fetch.imc_latency` 94, fitted on launch_empty's one warp) and a warp that finds the fill on its way waits
only its rest: the held-out programs' imc_miss is 0.56 of the H100's share, the microbenchmarks' 0.98
(validation/DEVIATIONS.md, forty-second pass). Each kernel below writes `out[i]`; `one` reads the launch size
(block 0 of bank 0), the array's data pointer (block 8) and one scalar (block 9), `four` three more scalars
(blocks 10 and 11). Each runs
with 1, 8 and 32 warps per SM (one CTA on each of the 132 SMs) and 64 (two CTAs of 32 warps), and ncu gives
imc_miss (and the other reasons) per instruction issued; the record adds imc_miss cycles per warp
(x instructions / warps). A short kernel gives few stall samples: each variant is launched REPEATS times and
the record keeps the medians (and each launch's imc_miss per warp).

    python3 validation/probes/imc_fill.py --out validation/data/h100/probe_imc_fill_h200.json
    python3 validation/probes/imc_fill.py --gpusim [--set K=V] --out PATH
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.probes._device import kernel_code, ncu_probe  # noqa: E402

STALLS = ("imc_miss", "no_instruction", "mio_throttle", "short_scoreboard", "long_scoreboard", "wait",
          "not_selected", "selected", "drain")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__warps_launched.sum"])


def imc_one(out, s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15):
    i = cuda.grid(1)
    out[i] = s0 + i


def imc_four(out, s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15):
    i = cuda.grid(1)
    out[i] = s0 + s7 * i + s15 * (i >> 3) + s11


# (variant, kernel, grid, block), in launch order
VARIANTS = []
for _name, _k in (("one", imc_one), ("four", imc_four)):
    for _grid, _block in ((132, 32), (132, 256), (132, 1024), (264, 1024)):
        VARIANTS.append((f"{_name}_w{_grid // 132 * _block // 32}", _k, _grid, _block))
SCALARS = [np.int64(3 + k) for k in range(16)]
REPEATS = 7         # launches of each variant (the stall samples of a short kernel are few: medians of these)


def inner():
    out = cuda.to_device(np.zeros(264 * 1024, np.int64))
    for name, k, grid, block in VARIANTS:
        for _ in range(REPEATS):
            cuda.jit(k)[grid, block](out, *SCALARS)
            cuda.synchronize()
        print(f"variant {name} grid {grid} block {block}", flush=True)


def _per_warp(row: dict, grid: int, block: int) -> dict:
    warps = grid * block // 32
    inst = row.get("smsp__inst_executed.sum") or 0
    return {f"{s}_cycles_per_warp": (row.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") or 0)
            * inst / warps for s in STALLS}


def on_gpusim(gpu) -> list:
    import gpusim
    out = []
    for name, k, grid, block in VARIANTS:
        r = gpusim.launch(k, grid, block, np.zeros(grid * block, np.int64), *SCALARS, gpu=gpu, mode="timing",
                          model="sass")
        m = r.metrics
        row = {"variant": name, "grid": grid, "block": block, "gpc__cycles_elapsed.max": r.cycles,
               "smsp__inst_executed.sum": m.get("smsp__inst_executed.sum")}
        for s in STALLS:
            key = f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"
            row[key] = m.get(key)
        row.update(_per_warp(row, grid, block))
        out.append(row)
    return out


def _rows(launches: list) -> list:
    """Per variant, the medians of its launches' metrics and cycles per warp (and each launch's imc_miss)."""
    results = []
    for j, v in enumerate(VARIANTS):
        runs = launches[j * REPEATS:(j + 1) * REPEATS]
        per = [_per_warp(m, v[2], v[3]) for _, m in runs]
        results.append({"variant": v[0], "grid": v[2], "block": v[3], "kernel": runs[0][0], "launches": len(runs),
                        **{k: float(np.median([m[k] for _, m in runs])) for k in runs[0][1]},
                        **{k: float(np.median([p[k] for p in per])) for k in per[0]},
                        "imc_miss_cycles_per_warp_each": [round(p["imc_miss_cycles_per_warp"], 1) for p in per]})
    return results


def _code() -> dict:
    code = {}
    for _, k, _, _ in VARIANTS:
        if k.__name__ not in code:
            d = cuda.jit(k)
            d[1, 32](cuda.to_device(np.zeros(32, np.int64)), *SCALARS)
            code[k.__name__] = kernel_code(d)
    return code


def main():
    doc = ncu_probe(__file__, __doc__.split("\n\n")[0], "regex:imc_", METRICS, inner, on_gpusim, _rows, _code)
    for r in doc["results"] if doc else []:
        print(f"{r['variant']:8s} cycles {r['gpc__cycles_elapsed.max']}  per warp: "
              + " ".join(f"{s} {r[f'{s}_cycles_per_warp']:.1f}" for s in ("imc_miss", "no_instruction",
                                                                          "mio_throttle", "selected")))


if __name__ == "__main__":
    main()
