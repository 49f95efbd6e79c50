"""Probe (device with ncu, nvcc and CuPy; also runs in gpusim): shared-memory accesses a warp issues with every lane
predicated off.

scan_cu's H200 run counts 0.84M shared wavefronts that ncu files as `op_misc` and puts on no SASS instruction,
about as many as the LDS/STS its warps issue with no lane on (ptxas predicates the scan tree's `if (t < d)` blocks;
DEVIATIONS, fiftieth pass). Here one CTA of 256 threads per SM (132) runs ITERS trips of `if (t < lim) { a load and
a store of shared memory }`, which ptxas predicates, for lim = 256 (every lane on), 32 (one warp on, seven with
every lane off) and 0 (every lane off in every warp), and ncu counts the shared wavefronts by operation and the
cycles. If each all-off access takes a wavefront, op_misc is 2 x ITERS x the all-off warps.

    python3 validation/probes/predicated_shared.py --out validation/data/h100/probe_predicated_shared_h200.json
    python3 validation/probes/predicated_shared.py --gpusim --out PATH
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import cupy_function, ncu_probe, nvcc_ptx  # noqa: E402

ITERS = 4096
GRID, BLOCK = 132, 256
LIMITS = (256, 32, 0)
SRC = r"""
extern "C" __global__ void pred_shared(unsigned* out, int iters, int lim)
{
    __shared__ unsigned s[1024];
    int t = threadIdx.x;
    s[t] = t;
    s[t + 256] = 0;
    s[t + 512] = 2 * t;
    s[t + 768] = 0;
    __syncthreads();
    unsigned acc = t;
    for (int k = 0; k < iters; ++k) {
        acc = acc * 1664525u + 1013904223u;
        if (t < lim) {
            acc += s[(t + k) & 511];
            s[512 + t] = acc;
        }
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}
"""
METRICS = ",".join(["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__inst_executed_op_shared_ld.sum",
                    "smsp__inst_executed_op_shared_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum",
                    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
                    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"])


def ptx() -> str:
    return nvcc_ptx(SRC, "pred_shared.cu")


def inner():
    import cupy as cp
    k = cupy_function(ptx(), "pred_shared")
    for lim in LIMITS:
        out = cp.zeros(GRID * BLOCK, cp.uint32)
        k((GRID,), (BLOCK,), (out, np.int32(ITERS), np.int32(lim)))
        cp.cuda.Device().synchronize()
        print(f"variant lim {lim}", flush=True)


def on_gpusim(gpu) -> list:
    import gpusim
    k = gpusim.load_ptx(ptx())["pred_shared"]
    rows = []
    for lim in LIMITS:
        out = np.zeros(GRID * BLOCK, np.uint32)
        r = gpusim.launch(k, GRID, BLOCK, out, np.int32(ITERS), np.int32(lim), gpu=gpu, mode="timing", model="sass")
        m = r.metrics
        row = {"variant": f"lim {lim}", "gpc__cycles_elapsed.max": r.cycles,
               **{key: m.get(key) for key in ("smsp__inst_executed.sum",
                                              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                                              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum")}}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def _rows(launches: list) -> list:
    return [{"variant": f"lim {lim}", "kernel": name, **m} for lim, (name, m) in zip(LIMITS, launches)]


def _code() -> dict:
    return {"cuda": SRC, "ptx": ptx()}


def main():
    doc = ncu_probe(__file__, __doc__.split("\n\n")[0], "regex:^pred_shared$", METRICS, inner, on_gpusim, _rows, _code)
    for r in doc["results"] if doc else []:
        print(r["variant"], {k: v for k, v in r.items() if k not in ("variant", "kernel")})


if __name__ == "__main__":
    main()
