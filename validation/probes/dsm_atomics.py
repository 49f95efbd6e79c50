"""Probe (device with ncu, nvcc and CuPy; also runs in gpusim): atomics into another CTA's shared memory.

histogram_cu's kernel runs on the H200 in 189.6k cycles, its distributed-shared-memory twin histogram_dsm_cu in
745.6k, where gpusim gives 433.7k (validation/probes/cuda_programs.py, DEVIATIONS fiftieth pass): its inputs fall
in 128 bins, all owned by the rank-0 CTA of each cluster, so every cluster's atomics go to one SM's shared memory.
Here clusters of 4 CTAs of 256 threads (33 clusters, one CTA an SM) each run ITERS atomicAdds a thread to a
`cluster.map_shared_rank` address, one pattern a launch:

  0 own          the CTA's own shared memory, a word per thread (no conflict)
  1 neighbour    the next rank's, a word per thread: remote, spread over the cluster
  2 rank0        rank 0's, a word per thread: remote for three CTAs, all to one SM
  3 rank0_bins   rank 0's, one of 128 words drawn per thread and step (histogram_dsm's pattern)
  4 own_bins     the CTA's own, one of 128 words drawn per thread and step (histogram_cu's pattern)
  5 rank0_one    rank 0's, one word for every thread

ncu gives each launch's cycles (caches flushed, clocks left alone); the kernel's CUDA C is compiled by nvcc to PTX
on each side (the PTX that ran is in the record). A measurement for a model of the owner's side of remote
atomics, which gpusim does not have (its dsm unit charges the requesting SM's network port, fitted on remote loads).

    python3 validation/probes/dsm_atomics.py --out validation/data/h100/probe_dsm_atomics_h200.json
    python3 validation/probes/dsm_atomics.py --gpusim --out PATH
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

ITERS = 256
GRID, BLOCK = 132, 256
MODES = ("own", "neighbour", "rank0", "rank0_bins", "own_bins", "rank0_one")
SRC = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(4, 1, 1)
dsm_atomics(unsigned* out, int iters, int mode)
{
    __shared__ unsigned part[1024];
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) part[i] = 0;
    cluster.sync();
    unsigned rank = cluster.block_rank();
    unsigned x = threadIdx.x * 2654435761u + blockIdx.x * 40503u + 1u;
    unsigned target = mode == 0 || mode == 4 ? rank : mode == 1 ? (rank + 1) & 3 : 0;
    for (int k = 0; k < iters; ++k) {
        x = x * 1664525u + 1013904223u;
        unsigned idx = mode == 3 || mode == 4 ? (x >> 9) & 127 : mode == 5 ? 0 : threadIdx.x;
        atomicAdd(cluster.map_shared_rank(part, target) + idx, 1u);
    }
    cluster.sync();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) atomicAdd(&out[i], part[i]);
}
"""
METRICS = ",".join(["gpc__cycles_elapsed.max", "smsp__inst_executed.sum",
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
                    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
                    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
                    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
                    "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
                    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
                    "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio"])


def ptx() -> str:
    return nvcc_ptx(SRC, "dsm_atomics.cu")


def inner():
    import cupy as cp
    k = cupy_function(ptx(), "dsm_atomics")
    for mode, name in enumerate(MODES):
        out = cp.zeros(1024, cp.uint32)
        k((GRID,), (BLOCK,), (out, np.int32(ITERS), np.int32(mode)))
        cp.cuda.Device().synchronize()
        print(f"variant {name} sum {int(out.sum())}", flush=True)


def on_gpusim(gpu) -> list:
    import gpusim
    k = gpusim.load_ptx(ptx())["dsm_atomics"]
    rows = []
    for mode, name in enumerate(MODES):
        out = np.zeros(1024, np.uint32)
        r = gpusim.launch(k, GRID, BLOCK, out, np.int32(ITERS), np.int32(mode), gpu=gpu, mode="timing", model="sass")
        assert int(out.sum()) == GRID * BLOCK * ITERS, name
        row = {"variant": name, "gpc__cycles_elapsed.max": r.cycles,
               "smsp__inst_executed.sum": r.metrics.get("smsp__inst_executed.sum")}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def _rows(launches: list) -> list:
    return [{"variant": v, "kernel": name, **m} for v, (name, m) in zip(MODES, launches)]


def _code() -> dict:
    return {"cuda": SRC, "ptx": ptx()}


def main():
    doc = ncu_probe(__file__, __doc__.split("\n\n")[0], "regex:^dsm_atomics$", METRICS, inner, on_gpusim, _rows, _code)
    for r in doc["results"] if doc else []:
        print(r["variant"], r.get("gpc__cycles_elapsed.max"))


if __name__ == "__main__":
    main()
