"""Probe (device only): how long the H100 takes per step of a dependent chain of one integer SASS instruction,
against the stall cycles ptxas gives it.

gpusim's SASS model holds a warp after each instruction for ptxas's stall cycles (the control word), which is
what the H100 samples as `wait`. On a lone chain of 32-bit divisions by a kernel parameter (probe conv_rate,
conv_divu32_1: IMAD.HI, IMAD, ISETP -> predicated VIADD/IADD3, SEL, LOP3) the H200 waits 5.85 cycles per
instruction, gpusim 4.71, and the kernel runs 19% faster in gpusim, where chains of LOP3 with I2FP or F2I agree
to 1%. Here one warp (grid 1, block 32) runs 512 dependent steps of one kind (16 a loop trip) and reads %clock64
around the loop:
cycles per step for each SASS instruction kind (the SASS of every kernel is in the record, with its stall
cycles).

    python3 validation/probes/int_latency.py --out validation/data/h100/probe_int_latency_h200.json
    python3 validation/probes/int_latency.py --gpusim      (gpusim, h100 preset, SASS model, against the record)
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

STEPS = 512
PER_TRIP = 16          # steps written out per loop trip, so the loop's own work is 1/16 of a step
# kind -> one step of the chain on `y` (a, b, c: kernel parameters); chains of xor or add alone are left out:
# ptxas folds sixteen of them into one or two instructions
STEP = {
    "imad": 'asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(y) : "r"(a), "r"(b));',
    "imadhi": 'asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(y) : "r"(a), "r"(b));',
    "imadwide": 'asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(w) : "r"((unsigned)w), "r"(a));',
    "shf": 'asm volatile("shf.l.wrap.b32 %0, %0, %0, %1;" : "+r"(y) : "r"(c));',
    "setp_selp": 'asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, %1; selp.b32 %0, %2, %3, p; }" '
                 ': "+r"(y) : "r"(a), "r"(b), "r"(c));',
    "setp_padd": 'asm volatile("{ .reg .pred p; setp.gt.u32 p, %0, %1; @p add.u32 %0, %0, %2; }" '
                 ': "+r"(y) : "r"(a), "r"(b));',
    "divu32": 'asm volatile("div.u32 %0, %0, %1;" : "+r"(y) : "r"(c)); y ^= a;',
    # added in the second recording (the first seven agree with the first to 0.1 cycle)
    "xorshift": 'asm volatile("{ .reg .b32 t; shl.b32 t, %0, 13; xor.b32 %0, %0, t; }" : "+r"(y));',
    "popc": 'asm volatile("popc.b32 %0, %0;" : "+r"(y));',
    "flo": 'asm volatile("bfind.u32 %0, %0;" : "+r"(y));',
    "prmt": 'asm volatile("prmt.b32 %0, %0, %1, 0x1230;" : "+r"(y) : "r"(a));',
    "ffma": 'asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f) : "f"(fa), "f"(fb));',
    "hfma2": 'asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(y) : "r"(a), "r"(b));',
    "dfma": 'asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(g) : "d"(ga), "d"(gb));',
    # added in the third recording: divisions by a value that changes every step (numba's % and // on indices),
    # whose reciprocal (I2F.U32.RP, MUFU.RCP, F2I) ptxas cannot hoist
    "divvar": 'asm volatile("{ .reg .b32 t; or.b32 t, %0, 1; div.u32 %0, %1, t; }" : "+r"(y) : "r"(a));',
    "remvar": 'asm volatile("{ .reg .b32 t; or.b32 t, %0, 3; rem.u32 %0, %1, t; }" : "+r"(y) : "r"(a));',
}


def source() -> str:
    out = []
    for kind, step in STEP.items():
        body = "\n        ".join([step] * PER_TRIP)
        out.append(f'''extern "C" __global__ void lat_{kind}(unsigned long long* cyc, unsigned* res, unsigned a,
                                        unsigned b, unsigned c) {{
    unsigned y = threadIdx.x * 2654435761u + 12345u;
    unsigned long long w = y;
    float f = 1.0f + threadIdx.x, fa = __uint_as_float(0x3F7F0000u | (a & 0xFF)), fb = __uint_as_float(b & 0x3EFFFFFFu);
    double g = f, ga = fa, gb = fb;
    unsigned long long t0 = clock64();
    #pragma unroll 1
    for (int j = 0; j < {STEPS // PER_TRIP}; ++j) {{
        {body}
    }}
    unsigned long long t1 = clock64();
    cyc[threadIdx.x] = t1 - t0;
    res[threadIdx.x] = y ^ (unsigned)w ^ (unsigned)(w >> 32) ^ __float_as_uint(f) ^ (unsigned)__double_as_longlong(g);
}}
''')
    return "\n".join(out)


ARGS = (0x9E3779B9, 0x7F4A7C15, 7)


def on_device() -> list:
    import cupy as cp
    mod = cp.RawModule(code=source(), options=("-arch=sm_90",))
    rows = []
    for kind in STEP:
        cyc = cp.zeros(32, dtype=cp.uint64)
        res = cp.zeros(32, dtype=cp.uint32)
        f = mod.get_function(f"lat_{kind}")
        runs = []
        for _ in range(5):
            f((1,), (32,), (cyc, res, *(cp.uint32(x) for x in ARGS)))
            cp.cuda.Device(0).synchronize()
            runs.append(int(cyc.get()[0]))
        rows.append({"kind": kind, "cycles_runs": runs, "cycles_per_step": sorted(runs)[2] / STEPS})
        print(rows[-1], flush=True)
    return rows


def in_gpusim() -> list:
    import numpy as np

    import gpusim
    from validation.probes._device import cuda_module
    path = Path(__file__).resolve().parents[1] / "data" / "h100" / "probe_int_latency_h200.json"
    hw = {r["kind"]: r for r in json.loads(path.read_text())["runs"]} if path.exists() else {}
    mod = cuda_module(source(), "int_latency.cu")
    rows = []
    for kind in STEP:
        cyc = np.zeros(32, np.uint64)
        gpusim.launch(mod[f"lat_{kind}"], 1, 32, cyc, np.zeros(32, np.uint32), *(np.uint32(x) for x in ARGS),
                      mode="timing", gpu="h100", model="sass")
        sim = int(cyc[0]) / STEPS
        ref = hw.get(kind, {}).get("cycles_per_step")
        rows.append({"kind": kind, "gpusim": sim, "gpu": ref})
        print(f"{kind:10s} GPU {ref if ref is not None else float('nan'):6.2f}  gpusim {sim:6.2f} cycles a step",
              flush=True)
    return rows


def main():
    if "--gpusim" in sys.argv:
        return in_gpusim()
    from validation.probes._device import cubin_sass, ncu_provenance, out_path, write
    out = out_path()
    t0 = time.time()
    rows = on_device()
    write(out, {"probe": "validation/probes/int_latency.py", "description": __doc__.split("\n\n")[0],
                "steps": STEPS, "args": list(ARGS), "kernels": source(), "sass": cubin_sass(source(), "int_latency.cu"),
                "runs": rows,
                "provenance": {**ncu_provenance(), "wall_s": round(time.time() - t0, 1)}})


if __name__ == "__main__":
    main()
