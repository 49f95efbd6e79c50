"""Probe (device, ncu; also runs in gpusim): the dispatch_stall the H100 samples after a wide integer multiply.

In the H100's per-SASS tables the instruction after an IMAD.HI carries 1.4-2.3 cycles of dispatch_stall
(int_imad_hi_throughput: 4.11 cycles per instruction in all; gpusim samples no dispatch_stall outside an mma), and
prog_divergence's 64-bit division by a constant has 3.94 cycles per instruction of it, in its top 3. Here each
thread runs 4 independent chains of STEPS steps; a step is one multiply (inline PTX: `mul.lo.u32` -> IMAD,
`mul.hi.u32` -> IMAD.HI.U32, `mul.wide.u32` -> IMAD.WIDE.U32 and a LOP3 folding its halves; the `_r` forms with
the multiplier in a vector register, the others read it from a uniform one) and, on another
register of the chain, an independent shift-and-xor (SHF + LOP3). One CTA per SM of 128 threads (one warp per
sub-partition) or 1024 (eight). ncu gives the cycles, the instructions per pipe and the stall mix per kernel.

    python3 validation/probes/dispatch_pairs.py --out validation/data/h100/probe_dispatch_pairs_h200.json
    python3 validation/probes/dispatch_pairs.py --gpusim        (gpusim, one SM, against the record)
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import cubin_sass, ncu_out, ncu_record, under_ncu, write  # noqa: E402

OPS = {
    "lo": 'asm volatile("mul.lo.u32 %0, %1, %2;" : "=r"(a{c}) : "r"(a{c}), "r"(m));',
    "hi": 'asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(a{c}) : "r"(a{c} | 1u), "r"(m));',
    "wide": '{{ unsigned long long p; asm volatile("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(a{c}), "r"(m)); '
            'a{c} = (unsigned)p ^ (unsigned)(p >> 32); }}',
    # the multiplier in a vector register (`mr`, per thread) instead of the kernel parameter ptxas keeps in a uniform
    # one (UR): int_imad_wide_throughput's IMAD.WIDE read register operands and showed little dispatch_stall
    "hi_r": 'asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(a{c}) : "r"(a{c} | 1u), "r"(mr));',
    "wide_r": '{{ unsigned long long p; asm volatile("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(a{c}), "r"(mr)); '
              'a{c} = (unsigned)p ^ (unsigned)(p >> 32); }}',
}
BLOCKS = (128, 1024)
STEPS, CHAINS, GRID = 256, 4, 132
STALLS = ("dispatch_stall", "math_pipe_throttle", "wait", "not_selected", "selected", "short_scoreboard",
          "no_instruction", "mio_throttle", "long_scoreboard", "barrier", "branch_resolving", "misc", "imc_miss")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__inst_executed_pipe_alu.sum",
                      "smsp__inst_executed_pipe_fma.sum", "smsp__inst_executed_pipe_fmaheavy.sum"])
RECORD = "validation/data/h100/probe_dispatch_pairs_h200.json"


def kernels() -> list:
    return [(op, block, f"disp_{op}_{block}") for op in OPS for block in BLOCKS]


def source() -> str:
    out = []
    for op, block, name in kernels():
        init = "\n    ".join(f"unsigned a{c} = 0x9E3779B9u * (threadIdx.x + {c} + 1), z{c} = threadIdx.x * {c + 3};"
                             for c in range(CHAINS))
        body = "\n".join(f"        {OPS[op].format(c=c)}\n        z{c} = z{c} ^ (z{c} >> 3) ^ j;"
                         for c in range(CHAINS))
        total = " + ".join(f"a{c} + z{c}" for c in range(CHAINS))
        out.append(f'''extern "C" __global__ void __launch_bounds__({block}) {name}(unsigned* out, unsigned m) {{
    unsigned mr = m ^ (threadIdx.x & 1u);
    {init}
    for (unsigned j = 0; j < {STEPS}; ++j) {{
{body}
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = {total};
}}
''')
    return "\n".join(out)


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source(), options=("-arch=sm_90",))
    for op, block, name in kernels():
        out = cp.zeros(GRID * block, dtype=cp.uint32)
        mod.get_function(name)((GRID,), (block,), (out, cp.uint32(0x2545F491)))
        cp.cuda.Device(0).synchronize()
        print(f"kernel {name} sum {int(out.sum())}", flush=True)


def per_step(m: dict, block: int) -> dict:
    """Cycles per step and the stall reasons as cycles a warp spends in them per step (chains and warps: the
    per-issue ratio times the instructions, over the warps' steps)."""
    warps = GRID * block // 32
    inst = m.get("smsp__inst_executed.sum") or 0.0
    out = {"cycles_per_step": (m.get("gpc__cycles_elapsed.max") or 0.0) / STEPS,
           "inst_per_step": inst / (warps * STEPS)}
    for s in STALLS:
        out[s] = m.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", 0.0) * inst / (warps * STEPS)
    return out


def one_sm_step(r, block: int) -> dict:
    """`per_step` of a gpusim launch of one CTA on a one-SM h100: one SM's warps of the probe's GRID."""
    sim = per_step({**r.metrics, "gpc__cycles_elapsed.max": r.cycles}, block)
    return {k: v if k == "cycles_per_step" else v * GRID for k, v in sim.items()}


def in_gpusim() -> None:
    import numpy as np

    import gpusim
    from gpusim.presets import get_preset
    from gpusim.spec import override
    from validation.probes._device import cuda_module
    root = Path(__file__).resolve().parents[2]
    rec = {r["kernel"]: r for r in json.loads((root / RECORD).read_text())["results"]} if (root / RECORD).exists() \
        else {}
    gpu = override(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1})
    mod = cuda_module(source(), "dispatch_pairs.cu")
    for op, block, name in kernels():
        r = gpusim.launch(mod[name], 1, block, np.zeros(block, np.uint32), np.uint32(0x2545F491), mode="timing",
                          gpu=gpu, model="sass")
        sim = one_sm_step(r, block)
        hw = rec.get(name, {})
        cells = [f"{k} {hw.get(k, float('nan')):.1f}/{sim[k]:.1f}" for k in ("cycles_per_step", "inst_per_step")
                 + STALLS if max(abs(hw.get(k, 0)), abs(sim[k])) >= 0.3]
        print(f"{name:16s} GPU/gpusim " + ", ".join(cells), flush=True)


def main():
    if "--gpusim" in sys.argv:
        return in_gpusim()
    out = ncu_out(inner, "probe_dispatch_pairs.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:disp_", METRICS)
    results = [{"kernel": name, "op": op, "block": block, **per_step(m, block), "metrics": m}
               for (op, block, _), (name, m) in zip(kernels(), launches)]
    write(out, ncu_record("validation/probes/dispatch_pairs.py", t0, results, stdout, stderr, "kernel",
                          kernels=source(), sass=cubin_sass(source(), "dispatch_pairs.cu"), grid=GRID,
                          steps=STEPS, chains=CHAINS))
    for r in results:
        print(r["kernel"], {k: round(v, 2) for k, v in r.items() if isinstance(v, float)})


if __name__ == "__main__":
    main()
