"""Probe (device only): which pipe runs the H100's conversions and the SASS of a 32-bit integer division, and how
fast.

ptxas turns `div.u32` / `rem.u32` by a value not known at compile time into ~10 SASS instructions: I2F.U32.RP,
MUFU.RCP, F2I.FTZ.U32.TRUNC and IMAD/IADD3 work around them; `cvt.rzi.s32.f32` is an F2I, `cvt.rn.f32.s32` an
I2F (or I2FP). gpusim's SASS model gave a line's MUFUs to the SFU (ncu's xu pipe) and let I2F and F2I take no
pipe at all, so a kernel's integer divisions cost it only their IMADs (ho_transpose_diagonal: the H100 samples
20.7% of its stalls on its three rem/div lines, gpusim 3.3%). Here each thread runs K = 1, 2, 4 or 8 independent
chains of one operation, 256 steps each, 2 CTAs of 256 threads per SM (264 CTAs), as in probe sfu_rate. ncu
gives cycles, instructions per pipe (xu, alu, fma) and the stall mix per kernel; the SASS that ran is in the
record (cuobjdump of nvcc's cubin).

    python3 validation/probes/conv_rate.py --out validation/data/h100/probe_conv_rate_h200.json
    python3 validation/probes/conv_rate.py --gpusim [--one-sm] [KERNEL ...]      (gpusim against the record)

`--one-sm` runs the probe's two CTAs on a one-SM h100 (every SM of the probe runs the same two): ~100x faster.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import (  # noqa: E402
    cubin_sass,
    ncu_out,
    ncu_record,
    under_ncu,
    write,
    xu_rate_results,
)

CHAINS = (1, 2, 4, 8)
# op -> (C type of the chain, one step as inline PTX, the value fed back); each step also does one LOP3 / IADD3
# so the chain's values stay in range and are not folded
OPS = {
    "divu32": ("unsigned", 'asm volatile("div.u32 %0, %1, %2;" : "=r"(y{c}) : "r"(y{c} ^ 0xB7E15163u), "r"(d));'),
    "remu32": ("unsigned", 'asm volatile("rem.u32 %0, %1, %2;" : "=r"(y{c}) : "r"(y{c} ^ 0xB7E15163u), "r"(d));'),
    "f2i": ("int", 'asm volatile("cvt.rzi.s32.f32 %0, %1;" : "=r"(y{c}) : '
                   '"f"(__int_as_float((y{c} & 0x7FFFFF) | 0x4B000000)));'),
    "f2iu": ("unsigned", 'asm volatile("cvt.rzi.u32.f32 %0, %1;" : "=r"(y{c}) : '
                         '"f"(__int_as_float((y{c} & 0x7FFFFF) | 0x4B000000)));'),
    "i2f": ("float", 'asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(y{c}) : "r"(__float_as_int(y{c}) & 0xFFFFFF));'),
    "i2fu": ("float", 'asm volatile("cvt.rn.f32.u32 %0, %1;" : "=f"(y{c}) : "r"(__float_as_int(y{c}) & 0xFFFFFF));'),
    # added in the second recording: POPC and FLO set a scoreboard as the conversions do (probe int_latency:
    # 17 cycles a step of a lone chain at ptxas's 8 stall cycles); which pipe takes them
    "popc": ("unsigned", 'asm volatile("popc.b32 %0, %1;" : "=r"(y{c}) : "r"(y{c} ^ 0xB7E15163u));'),
    "flo": ("unsigned", 'asm volatile("bfind.u32 %0, %1;" : "=r"(y{c}) : "r"(y{c} ^ 0xB7E15163u));'),
}
GRID, BLOCK, STEPS = 264, 256, 256
STALLS = ("math_pipe_throttle", "wait", "short_scoreboard", "not_selected", "selected", "no_instruction",
          "mio_throttle", "dispatch_stall", "misc", "long_scoreboard", "barrier", "branch_resolving", "drain",
          "imc_miss")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__inst_executed_pipe_xu.sum",
                      "smsp__inst_executed_pipe_alu.sum", "smsp__inst_executed_pipe_fma.sum",
                      "smsp__inst_executed_pipe_fmaheavy.sum",
                      "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"])


def source() -> str:
    """One kernel per (op, K): K independent chains per thread, STEPS steps each."""
    out = []
    for op, (ty, step) in OPS.items():
        for k in CHAINS:
            if ty == "float":
                init = "\n    ".join(f"float y{c} = 1.0f + threadIdx.x + {c};" for c in range(k))
                total = " + ".join(f"y{c}" for c in range(k))
                store = f"out[blockIdx.x * blockDim.x + threadIdx.x] = (unsigned)({total});"
            else:
                init = "\n    ".join(f"{ty} y{c} = 0x9E3779B9u * (threadIdx.x + {c} + 1);" for c in range(k))
                total = " + ".join(f"y{c}" for c in range(k))
                store = f"out[blockIdx.x * blockDim.x + threadIdx.x] = (unsigned)({total});"
            body = "\n".join("        " + step.format(c=c) for c in range(k))
            out.append(f'''extern "C" __global__ void conv_{op}_{k}(unsigned* out, unsigned d) {{
    {init}
    for (int j = 0; j < {STEPS}; ++j) {{
{body}
    }}
    {store}
}}
''')
    return "\n".join(out)


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source(), options=("-arch=sm_90",))
    for op in OPS:
        for k in CHAINS:
            out = cp.zeros(GRID * BLOCK, dtype=cp.uint32)
            mod.get_function(f"conv_{op}_{k}")((GRID,), (BLOCK,), (out, cp.uint32(977)))
            cp.cuda.Device(0).synchronize()
            print(f"kernel conv_{op}_{k} sum {int(out.sum())}", flush=True)


def in_gpusim(names=None, one_sm=False, data="validation/data/h100/probe_conv_rate_h200.json") -> list:
    """Run the probe's kernels in gpusim (h100 preset, SASS model; nvcc compiles the CUDA C here) beside the
    recorded GPU's cycles and stall mix: `python3 validation/probes/conv_rate.py --gpusim [--one-sm] [KERNEL ...]`."""
    import json

    import numpy as np

    import gpusim
    from gpusim.presets import get_preset
    from gpusim.spec import override
    gpu = override(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1}) if one_sm else get_preset("h100")
    grid = 2 if one_sm else GRID
    root = Path(__file__).resolve().parents[2]
    path = root / data
    hw = {r["kernel"]: r for r in json.loads(path.read_text())["results"]} if path.exists() else {}
    from validation.probes._device import cuda_module
    mod = cuda_module(source(), "conv_rate.cu")
    rows = []
    for name in names or [f"conv_{op}_{k}" for op in OPS for k in CHAINS]:
        r = gpusim.launch(mod[name], grid, BLOCK, np.zeros(grid * BLOCK, np.uint32), np.uint32(977),
                          mode="timing", gpu=gpu, model="sass")
        ref = hw.get(name, {}).get("gpc__cycles_elapsed.max")
        rows.append((name, ref, r.cycles))
        stalls = []
        for reason in ("math_pipe_throttle", "mio_throttle", "short_scoreboard", "wait"):
            key = f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"
            stalls.append(f"{reason} {hw.get(name, {}).get(key, float('nan')):.2f}/{r.metrics.get(key, 0.0):.2f}")
        print(f"{name:16s} GPU {ref or 0:8.0f}  gpusim {r.cycles:8d}  "
              f"{(r.cycles / ref - 1) if ref else float('nan'):+.1%}  (GPU/gpusim) " + ", ".join(stalls), flush=True)
    return rows


def main():
    if "--gpusim" in sys.argv:
        return in_gpusim([a for a in sys.argv[1:] if a.startswith("conv_")], "--one-sm" in sys.argv)
    out = ncu_out(inner, "probe_conv_rate.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:conv_", METRICS)
    results = xu_rate_results([(op, k) for op in OPS for k in CHAINS], launches)
    write(out, ncu_record("validation/probes/conv_rate.py", t0, results, stdout, stderr, "kernel",
                          kernels=source(), sass=cubin_sass(source(), "conv_rate.cu"), grid=GRID, block=BLOCK,
                          steps=STEPS))
    for r in results:
        print(r["op"], r["chains"], r.get("gpc__cycles_elapsed.max"), "xu", r.get("smsp__inst_executed_pipe_xu.sum"),
              "alu", r.get("smsp__inst_executed_pipe_alu.sum"), "fma", r.get("smsp__inst_executed_pipe_fma.sum"),
              "all", r.get("smsp__inst_executed.sum"), "cyc/xu", r["cycles_per_xu_inst_per_smsp"],
              "mpt", r.get("smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"),
              "short", r.get("smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"),
              "wait", r.get("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"))


if __name__ == "__main__":
    main()
