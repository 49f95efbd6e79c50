"""Probe (device only; `--gpusim` runs it in gpusim): what a global atomic's memory order costs, and as what.

Triton's histogram makes each bin update an `atom.global.gpu.acq_rel.add` whose result nobody reads. ptxas
emits MEMBAR.ALL.GPU + ERRBAR before it (the release) and CCTL.IVALL after it (the acquire: the L1 is
invalidated once the atomic is performed). On the H200 that program's atomics wait about 55% on
long_scoreboard (at the CCTL.IVALL) and 45% on membar (at the ERRBAR); gpusim charges all of it to membar
(data/h100/ncu/sass_stalls_triton_2026-11-28/tri_histogram.sass_stalls.csv). Here each thread issues STEPS
atomics (add 1, result unused) to its own word, lanes on consecutive words (no contention), in one of four
orders: relaxed (no fences), release, acquire and acq_rel, all at gpu scope; 132 CTAs of 128 threads (one warp per
sub-partition). ncu gives the cycles, the instructions and every stall reason per kernel.

    python3 validation/probes/atomic_order.py --out validation/data/h100/probe_atomic_order_h200.json
    python3 validation/probes/atomic_order.py --gpusim             (gpusim beside the recorded GPU's figures)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

ORDERS = {"relaxed": "atom.global.add.u32", "release": "atom.global.gpu.release.add.u32",
          "acquire": "atom.global.gpu.acquire.add.u32", "acq_rel": "atom.global.gpu.acq_rel.add.u32"}
GRID, BLOCK, STEPS = 132, 128, 64
STALLS = ("long_scoreboard", "membar", "wait", "short_scoreboard", "not_selected", "selected", "no_instruction",
          "mio_throttle", "lg_throttle", "drain", "dispatch_stall", "misc", "math_pipe_throttle", "imc_miss",
          "branch_resolving", "barrier", "tex_throttle", "sleeping")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum"])


def source() -> str:
    out = []
    for name, op in ORDERS.items():
        out.append(f'''extern "C" __global__ void order_{name}(unsigned int* buf) {{
    unsigned int* p = buf + blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int old;
    for (int j = 0; j < {STEPS}; ++j) {{
        asm volatile("{op} %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
    }}
}}
''')
    return "\n".join(out)


BUSY_STORES = 2048      # per streaming lane: 4-byte stores, a warp's 32 lanes on one 128-B line each time


def busy_source() -> str:
    """Does a gpu-scope release wait for the SM's writes or only for its own warp's? Warp 0 of each CTA runs the
    release chain of `order_release` and times it with %clock64; in the `busy` variant the CTA's warps 1-3 stream
    stores (BUSY_STORES a lane, distinct lines) meanwhile, in the `quiet` one they exit at once."""
    op = ORDERS["release"]
    return f'''extern "C" __global__ void fence_scope(unsigned int* buf, unsigned int* big, long long* clk, int busy) {{
    unsigned int warp = threadIdx.x >> 5;
    if (warp == 0) {{
        unsigned int* p = buf + blockIdx.x * blockDim.x + threadIdx.x;
        unsigned int old;
        long long t0 = clock64();
        for (int j = 0; j < {STEPS}; ++j) {{
            asm volatile("{op} %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
        }}
        long long t1 = clock64();
        if (threadIdx.x == 0) clk[blockIdx.x] = t1 - t0;
    }} else if (busy) {{
        unsigned int* q = big + ((size_t)blockIdx.x * 3 + (warp - 1)) * {BUSY_STORES} * 32 + (threadIdx.x & 31);
        for (int j = 0; j < {BUSY_STORES}; ++j) q[j * 32] = j;
    }}
}}
'''


def fence_scope(launch_kernel) -> dict:
    """Warp 0's cycles per release step, quiet and busy (median over the CTAs)."""
    import numpy as np
    out = {}
    for busy in (0, 1):
        clk = launch_kernel(busy)
        out["busy" if busy else "quiet"] = float(np.median(clk)) / STEPS
    return out


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source())
    for name in ORDERS:
        buf = cp.zeros(GRID * BLOCK, dtype=cp.uint32)
        mod.get_function(f"order_{name}")((GRID,), (BLOCK,), (buf,))
        cp.cuda.Device(0).synchronize()
        print(f"kernel order_{name} ok {bool((buf == STEPS).all())}", flush=True)


def in_gpusim(data="validation/data/h100/probe_atomic_order_h200.json") -> list:
    """The kernels in gpusim (h100 preset, SASS model; nvcc compiles the CUDA C here) beside the GPU's."""
    import json

    import numpy as np

    import gpusim
    root = Path(__file__).resolve().parents[2]
    path = root / data
    hw = {r["kernel"]: r for r in json.loads(path.read_text())["results"]} if path.exists() else {}
    from validation.probes._device import cuda_module
    mod = cuda_module(source(), "atomic_order.cu")
    rows = []
    for name in ORDERS:
        k = f"order_{name}"
        r = gpusim.launch(mod[k], GRID, BLOCK, np.zeros(GRID * BLOCK, np.uint32), mode="timing", gpu="h100",
                          model="sass")
        st = {s: r.metrics.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", 0.0)
              for s in ("long_scoreboard", "membar")}
        ref = hw.get(k, {})
        gst = {s: ref.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") for s in st}
        rows.append((k, ref.get("gpc__cycles_elapsed.max"), r.cycles, st, gst))
        print(f"{k:18s} GPU {ref.get('gpc__cycles_elapsed.max')}  gpusim {r.cycles}  gpusim {st}  GPU {gst}",
              flush=True)
    return rows


def scope_on_device() -> dict:
    import cupy as cp
    mod = cp.RawModule(code=busy_source())
    f = mod.get_function("fence_scope")

    def run(busy):
        buf = cp.zeros(GRID * BLOCK, dtype=cp.uint32)
        big = cp.zeros(GRID * 3 * BUSY_STORES * 32, dtype=cp.uint32)
        clk = cp.zeros(GRID, dtype=cp.int64)
        for _ in range(3):
            f((GRID,), (BLOCK,), (buf, big, clk, np.int32(busy)))
        cp.cuda.Device(0).synchronize()
        return clk.get()
    import numpy as np
    return fence_scope(run)


def scope_in_gpusim() -> dict:
    import numpy as np

    import gpusim
    from validation.probes._device import cuda_module
    k = cuda_module(busy_source(), "fence_scope.cu")["fence_scope"]

    def run(busy):
        clk = np.zeros(GRID, np.int64)
        gpusim.launch(k, GRID, BLOCK, np.zeros(GRID * BLOCK, np.uint32),
                      np.zeros(GRID * 3 * BUSY_STORES * 32, np.uint32), clk, np.int32(busy), mode="timing",
                      gpu="h100", model="sass")
        return clk
    return fence_scope(run)


def main():
    if "--gpusim" in sys.argv:
        print("fence scope, warp 0's cycles per release step:", scope_in_gpusim(), flush=True)
        return in_gpusim()
    if "--scope" in sys.argv:       # device: the fence-scope kernel alone, printed as JSON
        import json
        print(json.dumps({"fence_scope_cycles_per_step": scope_on_device()}))
        return
    out = ncu_out(inner, "probe_atomic_order.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:order_", METRICS)
    results = [{"kernel": name, "order": o, **m} for o, (name, m) in zip(ORDERS, launches)]
    write(out, ncu_record("validation/probes/atomic_order.py", t0, results, stdout, stderr, "kernel",
                          kernels=source(), grid=GRID, block=BLOCK, steps=STEPS))
    for r in results:
        print(r["kernel"], r.get("gpc__cycles_elapsed.max"),
              {s: r.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") for s in STALLS[:4]})


if __name__ == "__main__":
    main()
