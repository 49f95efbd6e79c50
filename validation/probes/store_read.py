"""Probe (device with ncu; also runs in gpusim): how long a warp waits for the MIO to read a store's or an
LDGSTS's registers (ptxas's read barriers) when nothing else is queued.

tri_softmax's row loop ends with four STGs and four LDGSTS (cp.async); on the H100 its back-edge BRA waits 43
cycles a trip on long_scoreboard for the LDGSTS' read barrier, and the instructions that overwrite the STGs'
registers wait too (per-SASS table sass_stalls_triton_2026-11-28). gpusim reads a store's registers as it enters
the L1's queue and an LDGSTS's when the LSU begins it, at once with one warp per sub-partition: 0.04% of its
samples there. Here each kernel runs a loop whose registers feed K memory instructions a trip and are written
again the next trip, so the trip waits for their reads:

  alu      16 dependent FMAs a trip and nothing else (the base)
  st1/st4  + 1 / 4 coalesced 4-byte STGs a trip, each its own line
  cp1/cp4  + 1 / 4 coalesced 4-byte LDGSTS a trip (commit, wait for the trip before: Triton's pipeline)
  st4cp4   + 4 STGs and 4 LDGSTS (tri_softmax's tail)
  ld4      + 4 coalesced LDGs a trip, summed

at 1 and 4 warps per sub-partition (CTAs of 128 and 512 threads), 16 CTAs (one an SM: the L2 is not the limit).
ncu gives the cycles and the stall mix; cycles a trip = cycles / STEPS.

    python3 validation/probes/store_read.py --out validation/data/h100/probe_store_read_h200.json
    python3 validation/probes/store_read.py --gpusim [--set K=V] --out PATH    (one SM, about 30 s)
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import cubin_sass, cuda_module, ncu_probe, one_sm, sim_row  # noqa: E402

STEPS = 1024
STEPS_GPUSIM = 1024
GRID = 16
STALLS = ("long_scoreboard", "wait", "selected", "not_selected", "short_scoreboard", "math_pipe_throttle",
          "mio_throttle", "lg_throttle", "dispatch_stall", "no_instruction", "branch_resolving", "drain",
          "imc_miss", "barrier")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum"])

_HEAD = """extern "C" __global__ void {N}(float* out, const float* in, float a, float b, int n) {{
    __shared__ float buf[2][4][512];
    const int t = threadIdx.x, nt = blockDim.x;
    float* p = out + blockIdx.x * 65536 + t;
    const float* q = in + blockIdx.x * 65536 + t;
    float v = t, acc = 0.0f;
    #pragma unroll 1
    for (int j = 0; j < n; ++j) {{
        const int o = (j & 15) * 4 * nt;
        #pragma unroll
        for (int i = 0; i < 16; ++i) v = v * a + b;
"""
_TAIL = """    }}
    p[0] = v + acc;
}}
"""
_ST = ["        p[o] = v;\n", "        p[o + nt] = v + 1.0f;\n", "        p[o + 2 * nt] = v + 2.0f;\n",
       "        p[o + 3 * nt] = v + 3.0f;\n"]
_CP = """        {{
            const int s = j & 1;
            for (int k = 0; k < {K}; ++k) {{
                unsigned sa = (unsigned)__cvta_generic_to_shared(&buf[s][k][t]);
                asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa), "l"(q + o + k * nt));
            }}
            asm volatile("cp.async.commit_group;");
            asm volatile("cp.async.wait_group 1;" ::: "memory");
            acc += buf[s ^ 1][0][t];
        }}
"""
_LD = "        acc += q[o] + q[o + nt] + q[o + 2 * nt] + q[o + 3 * nt];\n"
_BODIES = {"alu": "", "st1": _ST[0], "st4": "".join(_ST), "cp1": _CP.format(K=1), "cp4": _CP.format(K=4),
           "st4cp4": "".join(_ST) + _CP.format(K=4), "ld4": _LD}
KERNELS = [f"sr_{k}" for k in _BODIES]
BLOCKS = (128, 512)
VARIANTS = [(f"{k[3:]}_w{b // 128}", k, GRID, b) for k in KERNELS for b in BLOCKS]
A, B = 1.0001, 0.5


def source() -> str:
    return "\n".join(_HEAD.format(N=f"sr_{k}") + body + _TAIL.format() for k, body in _BODIES.items())


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source())
    src = cp.arange(GRID * 65536, dtype=cp.float32)
    for name, k, grid, block in VARIANTS:
        out = cp.zeros(GRID * 65536, dtype=cp.float32)
        mod.get_function(k)((grid,), (block,), (out, src, cp.float32(A), cp.float32(B), cp.int32(STEPS)))
        cp.cuda.Device(0).synchronize()
        print(f"variant {name} grid {grid} block {block} out0 {float(out[0])}", flush=True)


def _derived(row: dict, steps: int) -> dict:
    cyc = row.get("gpc__cycles_elapsed.max") or 0
    return {"cycles_per_trip": cyc / steps}


def on_gpusim(gpu) -> list:
    """Each variant as one CTA on one SM (every SM of the device's grid runs the same), STEPS_GPUSIM trips."""
    import gpusim
    mod = cuda_module(source(), "store_read.cu")
    src = np.arange(65536, dtype=np.float32)
    out = []
    for name, k, _grid, block in VARIANTS:
        r = gpusim.launch(mod[k], 1, block, np.zeros(65536, np.float32), src, np.float32(A), np.float32(B),
                          np.int32(STEPS_GPUSIM), gpu=one_sm(gpu), mode="timing", model="sass")
        row = sim_row(r, STALLS, variant=name, kernel=k, grid=1, block=block, steps=STEPS_GPUSIM)
        row.update(_derived(row, STEPS_GPUSIM))
        out.append(row)
        print(f"variant {name:10s} cycles {r.cycles} per trip {row['cycles_per_trip']:.1f}  long_scoreboard "
              f"{row['smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio'] or 0:.2f}",
              flush=True)
    return out


def _rows(launches: list) -> list:
    return [{"variant": v[0], "kernel": name, "grid": v[2], "block": v[3], "steps": STEPS, **m,
             **_derived(m, STEPS)} for v, (name, m) in zip(VARIANTS, launches)]


def _code() -> dict:
    return {"cuda_c": source(), "sass": cubin_sass(source(), "store_read.cu")}


def main():
    doc = ncu_probe(__file__, __doc__.split("\n\n")[0], "regex:sr_", METRICS, inner, on_gpusim, _rows, _code)
    for r in doc["results"] if doc else []:
        print(f"{r['variant']:10s} cycles {r['gpc__cycles_elapsed.max']:9.0f}  per trip {r['cycles_per_trip']:.1f}"
              f"  long_scoreboard "
              f"{r.get('smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio') or 0:.2f}")


if __name__ == "__main__":
    main()
