"""Probe (device with ncu; also runs in gpusim): how fast does a sub-partition's uniform datapath issue?

ptxas keeps warp-uniform integer work (loop counters, 64-bit index arithmetic on launch parameters) in uniform
registers: UIADD3, UIMAD, ULOP3, USEL, UISETP, USHF, UMOV. gpusim's SASS model gives such instructions no pipe at
all (the spin_counter probe: a loop counting on the uniform datapath makes 1.20x the trips of one counting on the
ALU). Yet on prog_relu_matmul, whose k loop is half uniform-datapath instructions, the H100 samples 12.7% of its
stalls as math_pipe_throttle on them (per-SASS table sass_stalls_misses_2026-11-30). Here each kernel runs a loop
whose body ptxas puts mostly on the uniform datapath (`uni_*`) or, with a per-thread term, the same work on the
vector pipes (`vec_*`), at 1, 2, 4, 8 and 16 warps per sub-partition (one wave). ncu gives the cycles, the
instructions issued on the uniform pipe and the stall mix: cycles per uniform instruction per sub-partition
once enough warps are in flight.

    python3 validation/probes/uniform_rate.py --out validation/data/h100/probe_uniform_rate_h200.json
    python3 validation/probes/uniform_rate.py --gpusim [--set K=V] --out PATH    (one SM, 256 steps; about 2 min)
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import cubin_sass, cuda_module, ncu_probe, one_sm, sim_row  # noqa: E402

STEPS = 2048
STEPS_GPUSIM = 256     # gpusim's side: fewer steps (its cycles per instruction compare, not its cycles)
STALLS = ("math_pipe_throttle", "not_selected", "selected", "wait", "short_scoreboard", "long_scoreboard",
          "dispatch_stall", "no_instruction", "mio_throttle", "branch_resolving", "imc_miss", "drain", "misc")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__inst_executed_pipe_uniform.sum",
                      "smsp__inst_executed_pipe_alu.sum", "smsp__inst_executed_pipe_fma.sum",
                      "smsp__issue_active.avg.pct_of_peak_sustained_active"])

# {S}: the per-thread term, "" for the uniform forms, "+ threadIdx.x" for the vector ones
_BODIES = {
    # 64-bit multiply-add chains on loaded seeds: ptxas unrolls by 4 and keeps them on the uniform datapath
    "l4": """extern "C" __global__ void {N}(int* out, const long long* s, int a, int b, int n) {{
    long long x0 = s[0] {S}, x1 = s[1] {S}, x2 = s[2] {S}, x3 = s[3] {S};
    long long acc = threadIdx.x;
    for (int j = 0; j < n; ++j) {{
        x0 = x0 * 3 + j; x1 = x1 * 5 + j; x2 = x2 * 7 + j; x3 = x3 * 9 + j;
        acc += x0;
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)(acc + x1 + x2 + x3);
}}
""",
    # two 64-bit multiply-add chains on loaded seeds, each wrapped when negative (ptxas: UIMAD, USHF, ULOP3, UIADD3)
    "w2": """extern "C" __global__ void {N}(int* out, const long long* s, int a, int b, int n) {{
    long long x0 = s[0] {S}, x1 = s[1];
    long long acc = threadIdx.x;
    for (int j = 0; j < n; ++j) {{
        x0 = x0 * 3 + j; x1 = x1 * 5 + j;
        long long k0 = (x0 < 0) ? x0 + b : x0;
        long long k1 = (x1 < 0) ? x1 + a : x1;
        acc += k0 + (k1 >> 3);
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)acc;
}}
""",
    # the same chains clamped below (ptxas: UISETP, USEL beside UIMAD, UIADD3)
    "r2": """extern "C" __global__ void {N}(int* out, const long long* s, int a, int b, int n) {{
    long long x0 = s[0] {S}, x1 = s[1];
    long long acc = threadIdx.x;
    for (int j = 0; j < n; ++j) {{
        x0 = x0 * 3 + j; x1 = x1 * 5 - j;
        long long k0 = x0 > 0 ? x0 : 0;
        long long k1 = x1 > -1 ? x1 : -1;
        acc += k0 + k1;
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)acc;
}}
""",
    # one of the two chains chosen by a compare with a launch parameter (ptxas: UISETP, USEL, UIMAD, UIADD3)
    "r3": """extern "C" __global__ void {N}(int* out, const long long* s, int a, int b, int n) {{
    long long x0 = s[0] {S}, x1 = s[1];
    long long acc = threadIdx.x;
    for (int j = 0; j < n; ++j) {{
        x0 = x0 * 3 + j; x1 = x1 * 5 - j;
        long long k0 = (x0 > b) ? x1 : x0;
        acc += k0;
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)acc;
}}
""",
    # 32-bit xor-add chains on launch parameters, folded into a per-thread value each step
    "p4": """extern "C" __global__ void {N}(int* out, const long long* s, int a, int b, int n) {{
    int x0 = a {S}, x1 = a + 1, x2 = a + 2, x3 = a + 3;
    int acc = threadIdx.x;
    for (int j = 0; j < n; ++j) {{
        x0 = (x0 ^ b) + j; x1 = (x1 ^ b) + j; x2 = (x2 ^ b) + j; x3 = (x3 ^ b) + j;
        acc ^= x0 + x1 + x2 + x3;
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}}
""",
}
FORMS = [(f"{kind}_{body}", body, "" if kind == "uni" else "+ threadIdx.x")
         for body in _BODIES for kind in ("uni", "vec")]
# (variant, kernel, grid, block): one CTA per SM of 1, 2, 4, 8 warps a sub-partition, and two of 8
SHAPES = ((132, 128), (132, 256), (132, 512), (132, 1024), (264, 1024))
VARIANTS = [(f"{k}_w{g // 132 * b // 128}", k, g, b) for k, _, _ in FORMS for g, b in SHAPES]
SEEDS = np.array([12345, 67891, 424242, 99991], np.int64)
A, B = 1234567, 0x5bd1e995


def source() -> str:
    return "\n".join(_BODIES[body].format(N=name, S=s) for name, body, s in FORMS)


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source())
    seeds = cp.asarray(SEEDS)
    for name, k, grid, block in VARIANTS:
        out = cp.zeros(grid * block, dtype=cp.int32)
        mod.get_function(k)((grid,), (block,), (out, seeds, cp.int32(A), cp.int32(B), cp.int32(STEPS)))
        cp.cuda.Device(0).synchronize()
        print(f"variant {name} grid {grid} block {block} out0 {int(out[0])}", flush=True)


def _derived(row: dict, grid: int, block: int, sms: int = 132) -> dict:
    cyc = row.get("gpc__cycles_elapsed.max") or 0
    uni = row.get("smsp__inst_executed_pipe_uniform.sum") or 0
    inst = row.get("smsp__inst_executed.sum") or 0
    smsp = sms * 4
    return {"warps_per_smsp": grid * block // 32 // smsp,
            "cycles_per_uniform_inst_per_smsp": cyc / (uni / smsp) if uni else None,
            "cycles_per_inst_per_smsp": cyc / (inst / smsp) if inst else None,
            "uniform_share": uni / inst if inst else None}


def on_gpusim(gpu) -> list:
    """Each variant on one SM (its share of the grid: every SM runs the same), STEPS_GPUSIM steps."""
    import gpusim
    mod = cuda_module(source(), "uniform_rate.cu")
    out = []
    for name, k, grid, block in VARIANTS:
        g = grid // 132
        r = gpusim.launch(mod[k], g, block, np.zeros(g * block, np.int32), SEEDS, np.int32(A), np.int32(B),
                          np.int32(STEPS_GPUSIM), gpu=one_sm(gpu), mode="timing", model="sass")
        row = sim_row(r, STALLS, variant=name, kernel=k, grid=g, block=block, steps=STEPS_GPUSIM)
        row.update(_derived(row, g, block, sms=1))
        out.append(row)
        print(f"variant {name:10s} cycles {r.cycles} per instruction per sub-partition "
              f"{row['cycles_per_inst_per_smsp']:.3f}", flush=True)
    return out


def _rows(launches: list) -> list:
    return [{"variant": v[0], "kernel": name, "grid": v[2], "block": v[3], **m, **_derived(m, v[2], v[3])}
            for v, (name, m) in zip(VARIANTS, launches)]


def _code() -> dict:
    return {"cuda_c": source(), "sass": cubin_sass(source(), "uniform_rate.cu")}


def main():
    doc = ncu_probe(__file__, __doc__.split("\n\n")[0], "regex:(uni|vec)_", METRICS, inner, on_gpusim, _rows,
                    _code)
    for r in doc["results"] if doc else []:
        per = r.get("cycles_per_uniform_inst_per_smsp")
        print(f"{r['variant']:10s} cycles {r['gpc__cycles_elapsed.max']:9.0f}  per instruction "
              f"{r['cycles_per_inst_per_smsp']:.2f}  per uniform instruction "
              f"{'-' if per is None else round(per, 2)}  math_pipe_throttle "
              f"{r.get('smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio') or 0:.2f}")


if __name__ == "__main__":
    main()
