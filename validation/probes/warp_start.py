"""Probe (device with ncu; also runs in gpusim): what a streaming kernel's warps wait for as they start, and
at their end.

On the H100 the first instruction of prog_vecadd, prog_saxpy, prog_transpose_tiled and prog_reduce_shuffle
(`LDC R1, c[0x0][0x28]`, the stack pointer) carries 2.8-3.3% of all stall samples as mio_throttle, and their
`S2R SR_CTAID.X` another 0.3-0.9% (validation/data/h100/ncu/sass_stalls*/); gpusim samples no mio_throttle on
them. The single-wave kernels (burst_w8_light, store_s01, tri_sum) show none there. tri_vecadd's warps wait
0.9 cycles per instruction at their end (drain) on the H100, 20.5 in gpusim. Each variant below changes one
thing about prog_vecadd's kernel (1M float32 elements, 4,096 CTAs of 256 threads: about four waves at 8 CTAs per
SM), and ncu gives its cycles and its stall mix per instruction issued:

  vecadd          c[i] = a[i] + b[i] (prog_vecadd's kernel)
  nostore         the same loads and add; the store only if the sum is -1 (never): no store traffic
  storeonly       c[i] = i: stores, no loads
  empty           the index and bounds check only
  vecadd_1wave    vecadd on 1,056 CTAs: one wave, every CTA from the start
  vecadd_b64      vecadd with 64-thread CTAs (16,384 of them)
  vecadd_b1024    vecadd with 1,024-thread CTAs (1,024 of them)
  vecadd4         four consecutive elements per thread (each of its 8 loads and 4 stores 16 B apart across the
                  lanes: 4 lines a warp instruction), 1,024 CTAs of 256 threads
  vecadd_bB_1wave vecadd in one wave of B-thread CTAs (B = 64, 128, 512, 1,024: 4,224, 2,112, 528 and 264 CTAs,
                  64 warps an SM as vecadd_1wave's): how the first wave's wait grows with a CTA's warps per
                  sub-partition (forty-seventh pass)

With PROBE_NCU_CACHE_CONTROL=none ncu leaves the caches warm from the launch before (`_device.under_ncu`).
gpusim's SASS model holds the LDCs and S2Rs of a cold start in the sub-partition's MIO (gpusim/sm/fetch.py,
`fetch.mio_entries` and `fetch.ldc_latency` fitted on vecadd and vecadd_1wave here, forty-eighth pass).

    python3 validation/probes/warp_start.py --out validation/data/h100/probe_warp_start_h200.json
    python3 validation/probes/warp_start.py --gpusim [--set K=V] --out PATH
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.probes._device import kernel_code, ncu_probe  # noqa: E402

N = 1 << 20
STALLS = ("mio_throttle", "no_instruction", "drain", "long_scoreboard", "short_scoreboard", "lg_throttle",
          "not_selected", "math_pipe_throttle", "wait", "imc_miss", "dispatch_stall", "selected")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum",
                      "sm__warps_active.avg.pct_of_peak_sustained_active"])


def ws_vecadd(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]


def ws_nostore(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        s = a[i] + b[i]
        if s == -1.0:
            c[i] = s


def ws_storeonly(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = i


def ws_empty(a, b, c, n):
    i = cuda.grid(1)
    if i == n:
        c[0] = 0.0


def ws_vecadd4(a, b, c, n):
    i = cuda.grid(1)
    if 4 * i + 3 < n:
        x0, x1, x2, x3 = a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]
        y0, y1, y2, y3 = b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]
        c[4 * i] = x0 + y0
        c[4 * i + 1] = x1 + y1
        c[4 * i + 2] = x2 + y2
        c[4 * i + 3] = x3 + y3


# (variant, kernel, grid, block), in launch order
VARIANTS = [("vecadd", ws_vecadd, N // 256, 256), ("nostore", ws_nostore, N // 256, 256),
            ("storeonly", ws_storeonly, N // 256, 256), ("empty", ws_empty, N // 256, 256),
            ("vecadd_1wave", ws_vecadd, 1056, 256), ("vecadd_b64", ws_vecadd, N // 64, 64),
            ("vecadd_b1024", ws_vecadd, N // 1024, 1024), ("vecadd4", ws_vecadd4, N // 4 // 256, 256),
            ("vecadd_b64_1wave", ws_vecadd, 4224, 64), ("vecadd_b128_1wave", ws_vecadd, 2112, 128),
            ("vecadd_b512_1wave", ws_vecadd, 528, 512), ("vecadd_b1024_1wave", ws_vecadd, 264, 1024)]


def arrays():
    rng = np.random.default_rng(0)
    return (rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32), np.zeros(N, np.float32))


def inner():
    a, b, c = (cuda.to_device(x) for x in arrays())
    for name, k, grid, block in VARIANTS:
        cuda.jit(k)[grid, block](a, b, c, np.int64(N))
        cuda.synchronize()
        print(f"variant {name} grid {grid} block {block}", flush=True)


def on_gpusim(gpu) -> list:
    import gpusim
    out = []
    for name, k, grid, block in VARIANTS:
        a, b, c = arrays()
        r = gpusim.launch(k, grid, block, a, b, c, np.int64(N), gpu=gpu, mode="timing", model="sass")
        m = r.metrics
        row = {"variant": name, "grid": grid, "block": block, "gpc__cycles_elapsed.max": r.cycles}
        for s in STALLS:
            key = f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"
            row[key] = m.get(key)
        out.append(row)
        print(json.dumps(row), flush=True)
    return out


def _rows(launches: list) -> list:
    return [{"variant": v[0], "grid": v[2], "block": v[3], "kernel": name, **m}
            for v, (name, m) in zip(VARIANTS, launches)]


def _code() -> dict:
    code = {}
    for name, k, _, _ in VARIANTS:
        if k.__name__ not in code:
            d = cuda.jit(k)
            d[1, 32](*(cuda.to_device(x) for x in arrays()), np.int64(N))
            code[k.__name__] = kernel_code(d)
    return code


def main():
    doc = ncu_probe(__file__, __doc__.split("\n\n")[0], "regex:ws_", METRICS, inner, on_gpusim, _rows, _code)
    for r in doc["results"] if doc else []:
        print(r["variant"], {k.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", ""):
                             (round(v, 2) if isinstance(v, float) else v) for k, v in r.items()
                             if k.startswith(("smsp__average", "gpc__"))})


if __name__ == "__main__":
    main()
