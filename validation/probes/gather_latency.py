"""How long does a warp wait for a load whose lanes touch N different lines? (the latest of N sectors)

A warp that gathers N lines waits for the slowest of them. If one line's latency varied from line to line, that
wait would grow with N; gpusim's L2 hit and DRAM latencies hardly vary (probe loaded_latency, thirty-sixth pass),
so in gpusim it stays near a single load's. ho_spmv_csr_scalar's loop gathers x[col] from about 20 lines a warp
per step; gpusim runs it 9-17% fast.

One warp a CTA chases a random chain of nodes; a node is a 4-KiB block of 32 lines and word 0 of each holds the
next node. Each step lanes 0..N-1 read word 0 of lines 0..N-1 of the node, the warp sums the values (REDUX) and
takes lane 0's as the next node, so the step ends when all N are in; clock64 around each step. The same code for
every N (lanes >= N load nothing). Modes (`MODES`):

    l2           a cycle of 32 nodes a CTA (128 KiB, 17 MB in all), one CTA an SM, warmed by a first launch,
                 ld.global.cg (past the L1): L2 hits
    l2_fresh     a fresh node each step, 32 CTAs, warmed by a first launch (16 MiB): L2 hits, ld.global.cg
    l2_fresh_ld  the same with plain ld.global (the L1 starts each launch empty, so these miss it too)
    dram         a fresh node each step, one CTA an SM, the L2 flushed first (256 MiB written, another 256 MiB
                 read): DRAM misses, ld.global.cg
    dram_ld      the same with plain ld.global
    l2_busy      8 warps a CTA, one CTA an SM, each warp its own cycle of 8 nodes (at N = 32: 33 MB in all),
                 warmed, .cg: the same loads from a busy SM (spmv's gathers come 16 warps an SM)

Per mode and N: percentiles and mean of the step cycles over all SMs (the first steps dropped). No ncu:

    python3 validation/probes/gather_latency.py --out $OUT/probe_gather_latency_h200.json        (about 10 s)
    python3 validation/probes/gather_latency.py --gpusim [--steps S] [--grid G] [--modes l2,dram_ld] [--n 1,32]
        [--set K=V]     (the same CUDA C in gpusim, h100 preset, SASS model; nvcc on PATH)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_provenance, write  # noqa: E402

NODE_WORDS = 32 * 32          # a node: 32 lines of 128 B
L2_NODES = 32
# mode: (a cycle of this many nodes, else (0) a fresh node each step; warmed into the L2 (else flushed); plain ld.global
# (else ld.global.cg); CTAs (0: one per SM); steps; steps dropped; warps a CTA, each its own chain)
MODES = {"l2": (L2_NODES, True, False, 0, 512, 64, 1),
         "l2_fresh": (0, True, False, 32, 128, 8, 1),
         "l2_fresh_ld": (0, True, True, 32, 128, 8, 1),
         "dram": (0, False, False, 0, 256, 16, 1),
         "dram_ld": (0, False, True, 0, 256, 16, 1),
         "l2_busy": (8, True, False, 0, 256, 32, 8)}
NS = (1, 2, 4, 8, 16, 32)
SRC = r"""
extern "C" __global__ void gather(const unsigned int* chain, long long cta_words, int steps, int n,
                                  unsigned int mask, int cached, long long* lat, unsigned int* sink) {
    int lane = threadIdx.x & 31;
    int w = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);      // each warp its own chain
    const unsigned int* c = chain + (size_t)w * cta_words;
    unsigned int p = 0, acc = 0;
    for (int i = 0; i < steps; ++i) {
        long long t0 = clock64();
        unsigned int v = 0;
        if (lane < n) v = cached ? c[(size_t)p * 1024 + lane * 32] : __ldcg(c + (size_t)p * 1024 + lane * 32);
        unsigned int s = __reduce_add_sync(0xFFFFFFFFu, v);
        unsigned int nxt = __shfl_sync(0xFFFFFFFFu, v, 0) ^ (s & mask);
        acc += s;
        long long t1 = clock64();
        if (lane == 0) lat[(size_t)w * steps + i] = t1 - t0;
        p = nxt;
    }
    if (acc == 0xFFFFFFFFu) sink[0] = acc;
}
"""


def _chain(ctas: int, nodes: int, seed: int):
    """Per CTA a random cycle through `nodes` nodes: word 0 of every line of node k holds the node after k."""
    import numpy as np
    rng = np.random.default_rng(seed)
    chain = np.zeros(ctas * nodes * NODE_WORDS, np.uint32)
    for b in range(ctas):
        order = np.concatenate([[0], 1 + rng.permutation(nodes - 1)])
        nxt = np.empty(nodes, np.uint32)
        nxt[order] = np.roll(order, -1)
        view = chain[b * nodes * NODE_WORDS:(b + 1) * nodes * NODE_WORDS].reshape(nodes, 32, 32)
        view[:, :, 0] = nxt[:, None]
    return chain


def _summary(mode: str, n: int, x) -> dict:
    import numpy as np
    return {"mode": mode, "n": n, "p10_p50_p90_p99": [float(np.percentile(x, q)) for q in (10, 50, 90, 99)],
            "mean": float(x.mean()), "std": float(x.std())}


def _nodes(mode: str, steps: int) -> int:
    return MODES[mode][0] or steps + 1


def run() -> list:
    import cupy as cp
    k = cp.RawModule(code=SRC, options=("-arch=sm_90",)).get_function("gather")
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    sink = cp.zeros(1, cp.uint32)
    rows = []
    flush_w, flush_r = cp.zeros(64 << 20, cp.uint32), cp.ones(64 << 20, cp.uint32)
    for mode, (_, warm, cached, ctas, steps, drop, warps) in MODES.items():
        grid = (ctas or sms) * warps            # chains: one a warp
        nodes = _nodes(mode, steps)
        for n in NS:
            chain = cp.asarray(_chain(grid, nodes, seed=n))
            lat = cp.zeros(grid * steps, cp.int64)
            args = (chain, cp.int64(nodes * NODE_WORDS), cp.int32(steps), cp.int32(n), cp.uint32(0),
                    cp.int32(cached), lat, sink)
            flush_w.fill(n)                     # the L2 flushed: written, then another buffer read
            int(flush_r.sum())
            if warm:
                k((grid // warps,), (32 * warps,), args)     # brings the nodes into the L2
            cp.cuda.Device(0).synchronize()
            k((grid // warps,), (32 * warps,), args)
            cp.cuda.Device(0).synchronize()
            x = cp.asnumpy(lat).reshape(grid, steps)[:, drop:]
            rows.append(_summary(mode, n, x))
            print(mode, n, rows[-1]["p10_p50_p90_p99"], "mean", round(rows[-1]["mean"], 1), flush=True)
            del chain, lat
    return rows


def gpusim_side(argv: list) -> None:
    """The same kernel in gpusim, beside the record."""
    import json

    import numpy as np

    import gpusim
    from validation.probes._device import sim_options
    opts, gpu, over = sim_options(argv, steps=0, grid=0, modes=list(MODES), n=[str(v) for v in NS])
    from validation.probes._device import cuda_module
    k = cuda_module(SRC, "gather_latency.cu")["gather"]
    rec_path = Path(__file__).resolve().parents[1] / "data" / "h100" / "probe_gather_latency_h200.json"
    rec = {(r["mode"], r["n"]): r for r in json.loads(rec_path.read_text())["results"]} if rec_path.exists() else {}
    print(f"gpusim (h100{' ' + str(over) if over else ''}): cycles a step, mean and p10 / p50 / p90 (a gpusim "
          "launch starts with cold caches: the l2 mode drops its first lap; the l2_fresh modes read DRAM here)")
    for mode in opts["modes"]:
        cycle, _, cached, ctas, steps, drop, warps = MODES[mode]
        grid = (opts["grid"] or ctas or 132) * warps
        steps = opts["steps"] or (128 if cycle else min(steps, 64))
        drop = cycle + 8 if cycle else 8      # cold caches: a cycle's first lap misses
        nodes = _nodes(mode, steps)
        for n in (int(v) for v in opts["n"]):
            lat = np.zeros(grid * steps, np.int64)
            args = (_chain(grid, nodes, seed=n), np.int64(nodes * NODE_WORDS), np.int32(steps), np.int32(n),
                    np.uint32(0), np.int32(cached), lat, np.zeros(1, np.uint32))
            gpusim.launch(k, grid // warps, 32 * warps, *args, gpu=gpu, model="sass")
            g = _summary(mode, n, lat.reshape(grid, steps)[:, drop:])
            h = rec.get((mode, n), {})
            hq = " / ".join(f"{v:.0f}" for v in h.get("p10_p50_p90_p99", [])[:3])
            print(f"{mode:11s} N={n:2d}  gpusim {g['mean']:6.1f}  " + " / ".join(f"{v:.0f}" for v in
                  g["p10_p50_p90_p99"][:3]) + f"   H200 {h.get('mean', float('nan')):6.1f}  {hq}", flush=True)


def main():
    if "--gpusim" in sys.argv:
        gpusim_side(sys.argv)
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="probe_gather_latency.json")
    a = ap.parse_args()
    t0 = time.time()
    rows = run()
    write(a.out, {"provenance": {**ncu_provenance(), "script": "validation/probes/gather_latency.py",
                                 "kernel": SRC.strip(), "grid": "one CTA of 32 threads per SM",
                                 "wall_s": round(time.time() - t0, 1)},
                  "results": rows})


if __name__ == "__main__":
    main()
