"""Probe (device with ncu; also runs in gpusim): how fast a sub-partition runs dependent chains of fixed-latency
instructions as warps are added.

The store_read probe's base loop (16 dependent FFMAs a trip, `FFMA R0, R0, R2, R3`) runs 74.5 cycles a trip with one
warp per sub-partition on an H200 and 137.1 with four (gpusim 71.4 and 80.9): four warps of one chain each are not
four times one. Here each kernel runs STEPS trips of 16 dependent instructions (or two interleaved chains of 8)
at 1, 2, 3, 4 and 8 warps per sub-partition, one CTA per SM:

  ffma     v = v * a + b      (a, b launch parameters)
  ffmai    v = v * 1.0001 + 0.5   (immediates)
  fadd     v = v + b
  fmul     v = v * a
  ffma2    two independent FFMA chains, interleaved
  iadd     x = x + k (k a launch parameter; IADD3)
  imad     x = x * k + j  (IMAD)
  fvba     v = fmaf(v, b, a)   (the multiplicands' registers both odd)
  fabv     v = fmaf(a, b, v)   (the chain in the addend: a multiplicand and the addend in one bank)
  fuvb     v = fmaf(u, v, b)   (u another thread value; b a uniform register)

ncu gives the cycles and the stall mix; cycles a trip = cycles / STEPS.

    python3 validation/probes/chain_rate.py --out validation/data/h100/probe_chain_rate_h200.json
    python3 validation/probes/chain_rate.py --gpusim [--set K=V] --out PATH    (one SM)
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import cubin_sass, cuda_module, ncu_probe, one_sm, sim_row  # noqa: E402

STEPS = 1024
STALLS = ("wait", "selected", "not_selected", "math_pipe_throttle", "dispatch_stall", "short_scoreboard",
          "long_scoreboard", "no_instruction", "branch_resolving", "misc")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum"])

_TEMPLATE = """extern "C" __global__ void {N}(float* out, float a, float b, int k, int n) {{
    float v = threadIdx.x, u = threadIdx.x + 1.0f;
    int x = threadIdx.x, y = threadIdx.x + 1;
    #pragma unroll 1
    for (int j = 0; j < n; ++j) {{
        #pragma unroll
        for (int i = 0; i < {R}; ++i) {{ {BODY} }}
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + u + (float)(x + y);
}}
"""
_BODIES = {"ffma": (16, "v = v * a + b;"), "ffmai": (16, "v = v * 1.0001f + 0.5f;"), "fadd": (16, "v = v + b;"),
           "fmul": (16, "v = v * a;"), "ffma2": (8, "v = v * a + b; u = u * a + b;"),
           "iadd": (16, "x = x + k;"), "imad": (16, "x = x * k + j;"),
           "fvba": (16, "v = fmaf(v, b, a);"), "fabv": (16, "v = fmaf(a, b, v);"), "fuvb": (16, "v = fmaf(u, v, b);")}
WARPS = (1, 2, 3, 4, 8)
VARIANTS = [(f"{k}_w{w}", f"cr_{k}", 132, 128 * w) for k in _BODIES for w in WARPS]
A, B, K = 1.0001, 0.5, 3


def source() -> str:
    return "\n".join(_TEMPLATE.format(N=f"cr_{k}", R=r, BODY=body) for k, (r, body) in _BODIES.items())


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source())
    for name, k, grid, block in VARIANTS:
        out = cp.zeros(grid * block, dtype=cp.float32)
        mod.get_function(k)((grid,), (block,), (out, cp.float32(A), cp.float32(B), cp.int32(K), cp.int32(STEPS)))
        cp.cuda.Device(0).synchronize()
        print(f"variant {name} grid {grid} block {block} out0 {float(out[0])}", flush=True)


def _derived(row: dict, steps: int) -> dict:
    return {"cycles_per_trip": (row.get("gpc__cycles_elapsed.max") or 0) / steps}


def on_gpusim(gpu) -> list:
    """Each variant as one CTA on one SM (every SM of the device's grid runs the same)."""
    import gpusim
    mod = cuda_module(source(), "chain_rate.cu")
    out = []
    for name, k, _grid, block in VARIANTS:
        r = gpusim.launch(mod[k], 1, block, np.zeros(block, np.float32), np.float32(A), np.float32(B), np.int32(K),
                          np.int32(STEPS), gpu=one_sm(gpu), mode="timing", model="sass")
        row = sim_row(r, STALLS, variant=name, kernel=k, grid=1, block=block, steps=STEPS)
        row.update(_derived(row, STEPS))
        out.append(row)
        print(f"variant {name:10s} cycles {r.cycles} per trip {row['cycles_per_trip']:.1f}", flush=True)
    return out


def _rows(launches: list) -> list:
    return [{"variant": v[0], "kernel": name, "grid": v[2], "block": v[3], "steps": STEPS, **m,
             **_derived(m, STEPS)} for v, (name, m) in zip(VARIANTS, launches)]


def _code() -> dict:
    return {"cuda_c": source(), "sass": cubin_sass(source(), "chain_rate.cu")}


def main():
    doc = ncu_probe(__file__, __doc__.split("\n\n")[0], "regex:cr_", METRICS, inner, on_gpusim, _rows, _code)
    for r in doc["results"] if doc else []:
        print(f"{r['variant']:10s} cycles {r['gpc__cycles_elapsed.max']:9.0f}  per trip {r['cycles_per_trip']:.1f}  "
              f"wait {r.get('smsp__average_warps_issue_stalled_wait_per_issue_active.ratio') or 0:.2f}")


if __name__ == "__main__":
    main()
