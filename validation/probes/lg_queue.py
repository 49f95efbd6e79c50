"""Probe (device only): does the LSU's instruction queue count instructions or the lines they touch?

gpusim stalls a warp on lg_throttle when 64 cycles of LSU work are queued (`lsu.queue`): two 32-line
loads fill it. The H100 shows no lg_throttle on many-line loads (coalesce_s32, ho_gather_random), and the
MIO queue turned out to count instructions (ninth pass). Here one CTA per SM of W = 1..32 warps runs
loops of 8 independent global loads that hit the L1 (a 64-KiB buffer read once before), each load
touching L = 1 line (lane l reads word l of a line) or L = 32 lines (lane l reads a word of line l).
ncu gives the stall mix per kernel: if the queue counts instructions, lg_throttle appears at the same
W for L = 1 and L = 32; if it counts lines (work), at a W 32x smaller for L = 32. At W <= 4 the L1 fill
(from DRAM: ncu flushes the caches) dominates the cycles; the stall mix is the loop's. Lane l of an L = 32
load reads word 33 l: every lane in its own L1 bank, so the W = 32 run also gives the rate of conflict-free
many-line loads (validation/DEVIATIONS.md, ninth pass).

    python3 validation/probes/lg_queue.py --out validation/data/h100/probe_lg_queue.json
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

WARPS = (1, 2, 4, 8, 16, 32)
LINES = (1, 32)
ITERS, WORDS = 64, 16384          # 64 KiB of float: stays in the L1
GRID = 132
STALLS = ("lg_throttle", "long_scoreboard", "mio_throttle", "drain", "not_selected", "wait", "selected")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "l1tex__t_sector_hit_rate.pct",
                      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"])


def source() -> str:
    out = []
    for lines in LINES:
        # lane l's word: the same line for L = 1, line l for L = 32 (word l of it, no bank pattern to mind)
        lane = "lane" if lines == 1 else "lane * 33"
        out.append(f'''extern "C" __global__ void lgq_l{lines}(const float* __restrict__ buf, float* out, int shift) {{
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    float acc = 0.f;
    for (int i = threadIdx.x; i < {WORDS}; i += blockDim.x) acc += buf[i];      // fill the L1
    __syncthreads();
    int base = (warp * 1024 + shift) & {WORDS - 1};
    for (int it = 0; it < {ITERS}; ++it) {{
        float s0, s1, s2, s3, s4, s5, s6, s7;
        int b = (base + it * 2048) & {WORDS - 1};
        s0 = buf[(b + 0 * 256 + {lane}) & {WORDS - 1}];
        s1 = buf[(b + 1 * 256 + {lane}) & {WORDS - 1}];
        s2 = buf[(b + 2 * 256 + {lane}) & {WORDS - 1}];
        s3 = buf[(b + 3 * 256 + {lane}) & {WORDS - 1}];
        s4 = buf[(b + 4 * 256 + {lane}) & {WORDS - 1}];
        s5 = buf[(b + 5 * 256 + {lane}) & {WORDS - 1}];
        s6 = buf[(b + 6 * 256 + {lane}) & {WORDS - 1}];
        s7 = buf[(b + 7 * 256 + {lane}) & {WORDS - 1}];
        acc += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}}
''')
    return "\n".join(out)


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source())
    buf = cp.arange(WORDS, dtype=cp.float32) % 7
    for lines in LINES:
        for w in WARPS:
            out = cp.zeros(GRID * 32 * w, dtype=cp.float32)
            mod.get_function(f"lgq_l{lines}")((GRID,), (32 * w,), (buf, out, cp.int32(0)))
            cp.cuda.Device(0).synchronize()
            print(f"kernel lgq_l{lines} warps {w} sum {float(out.sum())}", flush=True)


def main():
    out = ncu_out(inner, "probe_lg_queue.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:lgq_", METRICS)
    results = []
    order = [(lines, w) for lines in LINES for w in WARPS]
    for (lines, w), (name, m) in zip(order, launches):
        results.append({"kernel": name, "lines_per_load": lines, "warps_per_sm": w, **m})
    write(out, ncu_record("validation/probes/lg_queue.py", t0, results, stdout, stderr, "kernel",
                          kernels=source(), grid=f"{GRID} x 32*W"))
    for r in results:
        print(r["kernel"], r["warps_per_sm"], {k.split("stalled_")[-1].split("_per")[0]: v for k, v in r.items()
                                               if "stalled" in k}, r.get("gpc__cycles_elapsed.max"))


if __name__ == "__main__":
    main()
