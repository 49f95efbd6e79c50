"""Probe (device only): how fast does the H100's special-function unit (MUFU, ncu's xu pipe) issue?

gpusim gives a sub-partition one MUFU warp instruction per 8 cycles (`pipes.ii_sfu`: 16 lanes per SM per
cycle), and charges the wait for it to math_pipe_throttle. On tri_softmax (ex2.approx.f32 and div.full.f32,
four of each per thread) gpusim's math_pipe_throttle is 2.17 cycles per instruction against the H100's
0.07. Here each thread runs K = 1, 2, 4 or 8 independent chains of one operation, 256 steps each, with
2 CTAs of 256 threads per SM (264 CTAs): ex2.approx.ftz.f32, ex2.approx.f32 (as Triton emits it),
rcp.approx.ftz.f32, and div.full.f32 (Triton's division). ncu gives the cycles, the xu-pipe instructions
and the stall mix per kernel: cycles per MUFU warp instruction per sub-partition once enough chains are in
flight, and the latency a single chain exposes.

    python3 validation/probes/sfu_rate.py --out validation/data/h100/probe_sfu_rate.json
    python3 validation/probes/sfu_rate.py --gpusim [KERNEL ...]      (gpusim against probe_sfu_rate_h200.json)

probe_sfu_rate_h200.json (2026-11-28, H200) samples every stall reason; the first recording (H100) six.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write, xu_rate_results  # noqa: E402

CHAINS = (1, 2, 4, 8)
OPS = {"ex2ftz": "ex2.approx.ftz.f32 %0, %1;", "ex2": "ex2.approx.f32 %0, %1;",
       "rcpftz": "rcp.approx.ftz.f32 %0, %1;", "divfull": "div.full.f32 %0, %1, %2;"}
GRID, BLOCK, STEPS = 264, 256, 256
# every reason ncu samples (the first recording, probe_sfu_rate.json, had only the first six: where a warp held
# for the busy xu pipe goes was not in it)
STALLS = ("math_pipe_throttle", "wait", "short_scoreboard", "not_selected", "selected", "no_instruction",
          "mio_throttle", "dispatch_stall", "misc", "tex_throttle", "lg_throttle", "long_scoreboard", "barrier",
          "branch_resolving", "drain", "imc_miss", "membar", "sleeping")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__inst_executed_pipe_xu.sum",
                      "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
                      "sm__warps_active.avg.pct_of_peak_sustained_active"])


def source() -> str:
    """One kernel per (op, K): K independent chains per thread, STEPS steps each; a chain's next input is its
    last result negated (ex2 of a negative stays in (0, 1]; 1 / -x flips sign), so no value runs away."""
    out = []
    for op, asm in OPS.items():
        for k in CHAINS:
            init = "\n    ".join(f"float y{c} = 0.25f + 0.001f * (threadIdx.x + {c});" for c in range(k))
            if op == "divfull":
                body = "\n".join(f'        asm volatile("{asm}" : "=f"(y{c}) : "f"(d), "f"(-y{c} - 1.5f));'
                                 for c in range(k))
            else:
                body = "\n".join(f'        asm volatile("{asm}" : "=f"(y{c}) : "f"(-y{c}));' for c in range(k))
            total = " + ".join(f"y{c}" for c in range(k))
            out.append(f'''extern "C" __global__ void sfu_{op}_{k}(float* out, float d) {{
    {init}
    for (int j = 0; j < {STEPS}; ++j) {{
{body}
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = {total};
}}
''')
    return "\n".join(out)


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source())
    for op in OPS:
        for k in CHAINS:
            out = cp.zeros(GRID * BLOCK, dtype=cp.float32)
            mod.get_function(f"sfu_{op}_{k}")((GRID,), (BLOCK,), (out, cp.float32(1.0)))
            cp.cuda.Device(0).synchronize()
            print(f"kernel sfu_{op}_{k} finite {bool(cp.isfinite(out).all())}", flush=True)


def in_gpusim(names=None, data="validation/data/h100/probe_sfu_rate_h200.json") -> list:
    """Run the probe's kernels in gpusim (h100 preset, SASS model; nvcc compiles the CUDA C here) and print each
    beside the recorded GPU's cycles: `python3 validation/probes/sfu_rate.py --gpusim [KERNEL ...]`."""
    import json

    import numpy as np

    import gpusim
    root = Path(__file__).resolve().parents[2]
    hw = {r["kernel"]: r for r in json.loads((root / data).read_text())["results"]}
    from validation.probes._device import cuda_module
    mod = cuda_module(source(), "sfu_rate.cu")
    rows = []
    for name in names or [f"sfu_{op}_{k}" for op in OPS for k in CHAINS]:
        r = gpusim.launch(mod[name], GRID, BLOCK, np.zeros(GRID * BLOCK, np.float32), np.float32(1.0),
                          mode="timing", gpu="h100", model="sass")
        ref = hw[name]["gpc__cycles_elapsed.max"]
        rows.append((name, ref, r.cycles))
        print(f"{name:16s} GPU {ref:8.0f}  gpusim {r.cycles:8d}  {r.cycles / ref - 1:+.1%}", flush=True)
    return rows


def main():
    if "--gpusim" in sys.argv:
        return in_gpusim([a for a in sys.argv[1:] if a.startswith("sfu_")])
    out = ncu_out(inner, "probe_sfu_rate.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:sfu_", METRICS)
    results = xu_rate_results([(op, k) for op in OPS for k in CHAINS], launches)
    write(out, ncu_record("validation/probes/sfu_rate.py", t0, results, stdout, stderr, "kernel",
                          kernels=source(), grid=GRID, block=BLOCK, steps=STEPS))
    for r in results:
        print(r["op"], r["chains"], r.get("gpc__cycles_elapsed.max"), r.get("smsp__inst_executed_pipe_xu.sum"),
              r["cycles_per_xu_inst_per_smsp"],
              r.get("smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"))


if __name__ == "__main__":
    main()
