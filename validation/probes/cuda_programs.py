"""Probe (device with ncu and CuPy; also runs in gpusim): the CUDA C example programs, compiled by nvcc, on a GPU.

gpusim's third front end (CUDA C through `nvcc -arch=sm_90 -ptx`, programs/cuda/) had never been timed against a
GPU: the 140 validation cases are numba and Triton kernels. Here the committed PTX of each of the ten programs
(programs/cuda/*.ptx, the very files `gpusim run NAME_cu` loads) runs at a size that fills the GPU (the
programs' own sizes are test sizes: 8 to 64 CTAs), with the same arguments on both sides (programs.argspec, seed
0). The device loads the PTX with CuPy (the driver's JIT, as for any PTX) and ncu records each launch once,
caches flushed, clocks left alone. None of it is fitted on: a held-out check of code gpusim never saw timed.

The lent device is an H200: the H100's SM and clock (1,980 MHz) with a 60-MB L2 and 4.8 TB/s HBM3e. gpusim's
side therefore runs the h100 preset with the H200's memory as earlier probes measured it (`H200_MEMORY`: the
L2's size, thirty-fifth pass; DRAM bandwidth and channels, l2_reuse_stream). Registers: ncu's
launch__registers_per_thread against the SASS model's (ptxas on the same PTX).

    python3 validation/probes/cuda_programs.py --out validation/data/h100/probe_cuda_programs_h200.json
    python3 validation/probes/cuda_programs.py --gpusim --out PATH      # gpusim's side (SASS model)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from programs.argspec import parse_args  # noqa: E402

CUDA_DIR = ROOT / "programs" / "cuda"
N = 1 << 24          # reductions and histograms: 16M elements, two CTAs an SM
H200_MEMORY = {"l2.size": 62914560, "dram.bandwidth": 2098.6, "dram.channels": 96}
STALLS = ("long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle", "math_pipe_throttle",
          "wait", "not_selected", "no_instruction", "branch_resolving", "membar", "dispatch_stall", "drain",
          "imc_miss", "tex_throttle", "sleeping", "misc", "selected")
STALL_KEY = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
COUNTERS = ("gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "launch__registers_per_thread",
            "sm__warps_active.avg.pct_of_peak_sustained_active", "l1tex__t_sector_hit_rate.pct",
            "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "dram__bytes_write.sum",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "launch__shared_mem_config_size")
METRICS = ",".join(list(COUNTERS) + [STALL_KEY.format(s) for s in STALLS])

# (program, PTX file, kernel, grid, block, arguments in programs.argspec's notation)
VARIANTS = [
    ("matmul_tiled_cu", "matmul_tiled_cu.ptx", "matmul_tiled", (32, 32, 1), (16, 16, 1),
     ["f32[262144]=rand", "f32[262144]=rand", "f32[262144]=zeros", "i32=512"]),
    ("transpose_naive_cu", "transpose_naive_cu.ptx", "transpose_naive", (64, 64, 1), (32, 8, 1),
     ["f32[4194304]=rand", "f32[4194304]=zeros", "i32=2048"]),
    ("transpose_tiled_cu", "transpose_tiled_cu.ptx", "transpose_tiled", (64, 64, 1), (32, 8, 1),
     ["f32[4194304]=rand", "f32[4194304]=zeros", "i32=2048"]),
    ("reduce_warp_cu", "reduce_warp_cu.ptx", "reduce_warp", (264, 1, 1), (256, 1, 1),
     [f"f32[{N}]=rand", "f32[1]=fill:0", f"i32={N}"]),
    ("reduce_cg_cu", "reduce_cg_cu.ptx", "reduce_cg", (264, 1, 1), (256, 1, 1),
     [f"i32[{N}]=rand", "i32[1]=fill:0", f"i32={N}"]),
    ("scan_cu", "scan_cu.ptx", "scan_blelloch", (2048, 1, 1), (256, 1, 1),
     ["i32[1048576]=rand", "i32[1048576]=zeros", "i32[2048]=zeros", "i32=1048576"]),
    ("histogram_cu", "histogram_cu.ptx", "histogram", (264, 1, 1), (256, 1, 1),
     [f"i32[{N}]=rand", "u32[256]=zeros", f"i32={N}"]),
    ("histogram_dsm_cu", "histogram_dsm_cu.ptx", "histogram_dsm", (264, 1, 1), (256, 1, 1),
     [f"i32[{N}]=rand", "u32[1024]=zeros", f"i32={N}"]),
    ("bitonic_sort_cu", "bitonic_sort_cu.ptx", "bitonic_sort", (1056, 1, 1), (512, 1, 1),
     ["f32[1081344]=rand"]),
    ("gemm_mma_cu", "gemm_mma_cu.ptx", "gemm_mma", (64, 32, 1), (128, 1, 1),
     ["f16[1048576]=rand", "f16[1048576]=rand", "f32[1048576]=zeros", "i32=1024", "i32=1024", "i32=1024"]),
]


def inner():
    """On the device (run under ncu): each program's kernel once, from its committed PTX."""
    import cupy as cp

    from validation.probes._device import cupy_function
    for name, ptx, kernel, grid, block, specs in VARIANTS:
        f = cupy_function(CUDA_DIR / ptx, kernel)
        args = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in parse_args(specs, seed=0)]
        f(grid, block, tuple(args))
        cp.cuda.Device().synchronize()
        print(f"variant {name} grid {grid} block {block}", flush=True)


def on_gpusim(gpu) -> list:
    import gpusim
    from gpusim.presets import apply_overrides
    gpu = apply_overrides(gpu, H200_MEMORY)
    out = []
    for name, ptx, kernel, grid, block, specs in VARIANTS:
        k = gpusim.load_ptx(str(CUDA_DIR / ptx))[kernel]
        r = gpusim.launch(k, grid, block, *parse_args(specs, seed=0), gpu=gpu, mode="timing", model="sass")
        m = r.metrics
        row = {"variant": name, "grid": list(grid), "block": list(block), "gpc__cycles_elapsed.max": r.cycles}
        row.update({c: m.get(c) for c in COUNTERS[1:]})
        row.update({STALL_KEY.format(s): m.get(STALL_KEY.format(s)) for s in STALLS})
        out.append(row)
        print(json.dumps({k2: v for k2, v in row.items() if not k2.startswith("smsp__average")}), flush=True)
    return out


def _rows(launches: list) -> list:
    return [{"variant": v[0], "grid": list(v[3]), "block": list(v[4]), "kernel": name, **m}
            for v, (name, m) in zip(VARIANTS, launches)]


def _code() -> dict:
    import hashlib
    return {v[1]: {"sha256": hashlib.sha256((CUDA_DIR / v[1]).read_bytes()).hexdigest(),
                   "source": f"programs/cuda/{v[1]}"} for v in VARIANTS}


def main():
    from validation.probes._device import ncu_probe
    kernels = "regex:^(" + "|".join(sorted({v[2] for v in VARIANTS})) + ")$"
    doc = ncu_probe(__file__, __doc__.split("\n\n")[0], kernels, METRICS, inner, on_gpusim, _rows, _code)
    for r in doc["results"] if doc else []:
        print(r["variant"], r.get("gpc__cycles_elapsed.max"), r.get("launch__registers_per_thread"))


if __name__ == "__main__":
    main()
