"""How much does one load's latency vary when the memory system is busy? (gpusim's L2 and DRAM latencies hardly vary
from line to line; the l1_sweep probe's H200 warps come apart as if they did, DEVIATIONS thirty-sixth pass.)

One CTA of 1024 threads per SM. Lane 0 of warp 0 chases a chain of dependent loads through its own 64 KiB (512
lines in a random cycle, read with ld.global.cg past the L1, so each step is an L2 hit or, where the load pushes
the chain out, a DRAM miss) and stamps clock64 around each step. Warps 1-31 meanwhile load (ld.global.cg, 8 lines a
warp in flight) until it is done:

    idle   nothing: the unloaded latency
    l2     their own 64 KiB each CTA, over and over (L2 hits: the slices busy)
    l2_8   the same from 8 warps a CTA
    dram   their own 16 MiB each CTA, round and round (2 GiB in all: DRAM busy, the chain pushed out of the L2 too)

Per mode: percentiles of the step latency over all SMs (the first 64 steps dropped), the spread of the SMs'
medians, and a 16-cycle histogram. No ncu:

    python3 validation/probes/loaded_latency.py --out $OUT/probe_loaded_latency_h200.json     (about 10 s)
    python3 validation/probes/loaded_latency.py --gpusim [--steps N] [--grid G] [--modes idle,dram] [--set K=V]
        (the same CUDA C in gpusim, h100 preset, SASS model; needs nvcc on PATH; N steps (128), G CTAs (132). A
        gpusim launch starts with cold caches, where the GPU's ran after a warming one: the chain's first lap is
        DRAM misses, so with N >= 576 only the second lap counts)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_provenance, write  # noqa: E402

LINES = 512            # chain lines a CTA (64 KiB)
STEPS = 1024
MODES = {"idle": (0, 0), "l2": (31, 1), "l2_8": (8, 1), "dram": (31, 2)}     # loader warps, what they load
SRC = r"""
extern "C" __global__ void chase(const unsigned int* chain, int steps, const unsigned int* bulk,
                                 long long bulk_words, int loaders, int kind, long long* lat, unsigned int* sink) {
    __shared__ volatile int done;
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) done = 0;
    __syncthreads();
    const unsigned int* c = chain + (size_t)blockIdx.x * 512 * 32;
    if (warp == 0) {
        if (lane == 0) {
            unsigned int p = 0;
            for (int i = 0; i < steps; ++i) {
                long long t0 = clock64();
                unsigned int nxt = __ldcg(c + p * 32);
                if (nxt == 0xFFFFFFFFu) sink[0] = 1u;
                long long t1 = clock64();
                lat[(size_t)blockIdx.x * steps + i] = t1 - t0;
                p = nxt;
            }
            done = 1;
        }
    } else if (warp <= loaders && kind > 0) {
        const unsigned int* b = bulk + (size_t)blockIdx.x * bulk_words;
        long long n = bulk_words / 32, i = warp - 1;
        unsigned int s = 0;
        while (!done) {                  // 8 independent lines a warp in flight
            unsigned int v[8];
            #pragma unroll
            for (int u = 0; u < 8; ++u) v[u] = __ldcg(b + ((i + u * loaders) % n) * 32 + lane);
            #pragma unroll
            for (int u = 0; u < 8; ++u) s += v[u];
            i += 8 * loaders;
        }
        if (s == 0xFFFFFFFFu) sink[1] = s;
    }
}
"""


def _summary(name: str, loaders: int, kind: int, x) -> dict:
    import numpy as np
    med = np.median(x, axis=1)
    hist = np.bincount(np.minimum(x.ravel() // 16, 400))
    return {"mode": name, "loader_warps": loaders, "load": ["none", "l2", "dram"][kind],
            "p01_p10_p50_p90_p99": [float(np.percentile(x, q)) for q in (1, 10, 50, 90, 99)],
            "mean": float(x.mean()), "std": float(x.std()),
            "sm_median_p10_p50_p90": [float(np.percentile(med, q)) for q in (10, 50, 90)],
            "hist_16cycle_bins": {str(16 * i): int(v) for i, v in enumerate(hist) if v}}


def _chain(sms: int):
    import numpy as np
    rng = np.random.default_rng(1)
    chain = np.zeros(sms * LINES * 32, np.uint32)
    for b in range(sms):                 # a random cycle through the CTA's 512 lines, the next line's index at word 0
        order = rng.permutation(LINES)
        nxt = np.empty(LINES, np.uint32)
        nxt[order] = np.roll(order, -1)
        chain[b * LINES * 32:(b + 1) * LINES * 32:32] = nxt
    return chain


def _fmt(q) -> str:
    return " / ".join(f"{v:.0f}" for v in q)


def gpusim_side(argv: list) -> None:
    """The same kernel in gpusim: per mode the step latencies' percentiles beside the record's."""
    import json

    import numpy as np

    import gpusim
    from validation.probes._device import sim_options
    opts, gpu, over = sim_options(argv, steps=128, grid=132, modes=list(MODES))
    steps, grid, modes = opts["steps"], opts["grid"], opts["modes"]
    from validation.probes._device import cuda_module
    k = cuda_module(SRC, "loaded_latency.cu")["chase"]
    rec_path = Path(__file__).resolve().parents[1] / "data" / "h100" / "probe_loaded_latency_h200.json"
    rec = {r["mode"]: r for r in json.loads(rec_path.read_text())["results"]} if rec_path.exists() else {}
    chain = _chain(grid)
    print(f"gpusim (h100{' ' + str(over) if over else ''}, {grid} CTAs, {steps} steps; the H200 {STEPS}): cycles a "
          "step, p1 / p10 / p50 / p90 / p99 (std)")
    for name in modes:
        loaders, kind = MODES[name]
        words = (16 << 20) // 4 if kind == 2 else (64 << 10) // 4
        lat = np.zeros(grid * steps, np.int64)
        k_args = (chain, np.int32(steps), np.ones(grid * words, np.uint32), np.int64(words), np.int32(loaders),
                  np.int32(kind), lat, np.zeros(2, np.uint32))
        r = gpusim.launch(k, grid, 1024, *k_args, gpu=gpu, model="sass")
        x = lat.reshape(grid, steps)[:, LINES if steps >= LINES + 64 else min(64, steps // 4):]
        g, h = _summary(name, loaders, kind, x), rec.get(name, {})
        print(f"{name:5s} gpusim {_fmt(g['p01_p10_p50_p90_p99'])} ({g['std']:.0f}), {r.cycles} cycles   H200 "
              f"{_fmt(h.get('p01_p10_p50_p90_p99', []))} ({h.get('std', float('nan')):.0f})", flush=True)


def run() -> list:
    import cupy as cp
    k = cp.RawModule(code=SRC).get_function("chase")
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    chain_d = cp.asarray(_chain(sms))
    sink = cp.zeros(2, cp.uint32)
    lat = cp.zeros(sms * STEPS, cp.int64)
    rows = []
    for name, (loaders, kind) in [("warm", (0, 0))] + list(MODES.items()):
        words = (16 << 20) // 4 if kind == 2 else (64 << 10) // 4
        bulk = cp.ones(sms * words, cp.uint32)
        k((sms,), (1024,), (chain_d, cp.int32(STEPS), bulk, cp.int64(words), cp.int32(loaders), cp.int32(kind), lat,
                            sink))
        cp.cuda.Device(0).synchronize()
        del bulk
        if name == "warm":
            continue
        rows.append(_summary(name, loaders, kind, cp.asnumpy(lat).reshape(sms, STEPS)[:, 64:]))
        print(name, rows[-1]["p01_p10_p50_p90_p99"], "std", round(rows[-1]["std"], 1), "SM medians",
              rows[-1]["sm_median_p10_p50_p90"], flush=True)
    return rows


def main():
    if "--gpusim" in sys.argv:
        gpusim_side(sys.argv)
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="probe_loaded_latency.json")
    a = ap.parse_args()
    t0 = time.time()
    rows = run()
    write(a.out, {"provenance": {**ncu_provenance(), "script": "validation/probes/loaded_latency.py",
                                 "kernel": SRC.strip(), "grid": "one CTA per SM x 1024 threads",
                                 "wall_s": round(time.time() - t0, 1)},
                  "results": rows})


if __name__ == "__main__":
    main()
