"""How much of a working set larger than the L1 does the L1 keep? (Its capacity and replacement, as far as a
kernel sees them.)

One CTA of 1024 threads per SM, each on its own slice of memory, coalesced 4-byte loads:

    cyc  S KB   PASSES passes over S KB in order (an LRU L1 of C KB hits nothing once S > C; a policy that lets
                some lines stay keeps about C / S of them)
    cycs S KB   the same with 100 KB of dynamic shared memory per CTA (a 132-KB carve-out: a smaller L1)
    rev  S KB   passes alternately forwards and backwards (LRU then keeps about C of S)
    hs   H/T KB per round a hot H KB read again and then the next T KB of a stream read once, ROUNDS rounds (the
                l2_reuse_stream pattern at the L1's scale: LRU keeps the hot data while H + T fits)

ncu's L1 hit rate, L2 read sectors from the L1 and cycles per launch, caches flushed before each:

    python3 validation/probes/l1_sweep.py --out $OUT/probe_l1_sweep_h200.json     (about 1 min)
    python3 validation/probes/l1_sweep.py --gpusim [--grid N] [--cases cyc:288,hs:192:64] [--set KEY=VALUE]
        (the same loads in gpusim, h100 preset, SASS model, N CTAs (16; the L1 is per SM), against the record;
        numba ports of the kernels: one load a loop iteration, as nvcc's code for them has)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

PASSES = 8
ROUNDS = 16
SMEM = 100 << 10
CASES = ([("cyc", s, 0) for s in (96, 128, 160, 192, 208, 224, 240, 256, 288, 320, 384, 512)]
         + [("cycs", s, 0) for s in (64, 96, 112, 128, 144, 160, 192, 256)]
         + [("rev", s, 0) for s in (192, 256, 320, 384)]
         + [("hs", h, t) for h, t in ((128, 32), (160, 32), (160, 64), (192, 16), (192, 32), (192, 64), (208, 16))])
METRICS = ("l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
           "lts__t_sectors_srcunit_tex_op_read.sum,gpc__cycles_elapsed.max,launch__shared_mem_config_size")
SRC = r"""
extern "C" __global__ void sweep(const unsigned int* buf, int words, int passes, int reverse, unsigned int* out) {
    extern __shared__ unsigned int pad[];
    const unsigned int* p = buf + (size_t)blockIdx.x * words;
    unsigned int s = 0;
    for (int k = 0; k < passes; ++k) {
        if (reverse && (k & 1)) {
            for (int i = words - 1 - threadIdx.x; i >= 0; i -= blockDim.x) s += p[i];
        } else {
            for (int i = threadIdx.x; i < words; i += blockDim.x) s += p[i];
        }
    }
    if (s == 0xFFFFFFFFu) pad[threadIdx.x] = s;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void hotstream(const unsigned int* hot, int hot_words, const unsigned int* stream,
                                     int chunk_words, int rounds, unsigned int* out) {
    const unsigned int* p = hot + (size_t)blockIdx.x * hot_words;
    const unsigned int* q = stream + (size_t)blockIdx.x * chunk_words * rounds;
    unsigned int s = 0;
    for (int r = 0; r < rounds; ++r) {
        for (int i = threadIdx.x; i < hot_words; i += blockDim.x) s += p[i];
        for (int i = threadIdx.x; i < chunk_words; i += blockDim.x) s += q[r * chunk_words + i];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""


def inner():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    sweep, hotstream = mod.get_function("sweep"), mod.get_function("hotstream")
    sweep.max_dynamic_shared_size_bytes = SMEM
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    out = cp.zeros(sms * 1024, dtype=cp.uint32)
    for kind, a, b in CASES:
        if kind == "hs":
            hw, cw = (a << 10) // 4, (b << 10) // 4
            hot, stream = cp.ones(hw * sms, dtype=cp.uint32), cp.ones(cw * sms * ROUNDS, dtype=cp.uint32)
            hotstream((sms,), (1024,), (hot, cp.int32(hw), stream, cp.int32(cw), cp.int32(ROUNDS), out))
            want = (hw + cw) * ROUNDS // 1024
            del hot, stream
        else:
            w = (a << 10) // 4
            buf = cp.ones(w * sms, dtype=cp.uint32)
            sweep((sms,), (1024,), (buf, cp.int32(w), cp.int32(PASSES), cp.int32(kind == "rev"), out),
                  shared_mem=SMEM if kind == "cycs" else 0)
            want = w * PASSES // 1024
            del buf
        cp.cuda.Device(0).synchronize()
        print(f"launch {kind} {a} {b} correct {bool((out == want).all())}", flush=True)


def _ports():
    """numba ports of `sweep` and `hotstream` (the same addresses in the same order, one load an iteration)."""
    from numba import cuda, uint32

    def sweep(buf, words, passes, reverse, out):
        p0 = cuda.blockIdx.x * words
        s = uint32(0)
        for k in range(passes):
            if reverse and (k & 1):
                i = words - 1 - cuda.threadIdx.x
                while i >= 0:
                    s += buf[p0 + i]
                    i -= cuda.blockDim.x
            else:
                i = cuda.threadIdx.x
                while i < words:
                    s += buf[p0 + i]
                    i += cuda.blockDim.x
        out[cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x] = s

    def hotstream(hot, hot_words, stream, chunk_words, rounds, out):
        p0 = cuda.blockIdx.x * hot_words
        q0 = cuda.blockIdx.x * chunk_words * rounds
        s = uint32(0)
        for r in range(rounds):
            i = cuda.threadIdx.x
            while i < hot_words:
                s += hot[p0 + i]
                i += cuda.blockDim.x
            i = cuda.threadIdx.x
            while i < chunk_words:
                s += stream[q0 + r * chunk_words + i]
                i += cuda.blockDim.x
        out[cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x] = s

    return sweep, hotstream


def gpusim_case(kind: str, kb: int, stream_kb: int = 0, grid: int = 16, gpu=None) -> dict:
    """One of CASES in gpusim (SASS model) on `grid` CTAs of 1024 threads: L1 hit rate, carve-out, cycles."""
    import numpy as np

    import gpusim
    from gpusim.presets import get_preset
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    sweep, hotstream = _ports()
    gpu = gpu or get_preset("h100")
    out = np.zeros(grid * 1024, np.uint32)
    if kind == "hs":
        hw, cw = (kb << 10) // 4, (stream_kb << 10) // 4
        r = gpusim.launch(hotstream, grid, 1024, np.ones(hw * grid, np.uint32), np.int32(hw),
                          np.ones(cw * grid * ROUNDS, np.uint32), np.int32(cw), np.int32(ROUNDS), out, gpu=gpu,
                          model="sass")
        want = (hw + cw) * ROUNDS // 1024
    else:
        w = (kb << 10) // 4
        r = gpusim.launch(sweep, grid, 1024, np.ones(w * grid, np.uint32), np.int32(w), np.int32(PASSES),
                          np.int32(kind == "rev"), out, gpu=gpu, model="sass")
        want = w * PASSES // 1024
    m = r.metrics
    return {"l1tex__t_sector_hit_rate.pct": m["l1tex__t_sector_hit_rate.pct"], "cycles": r.cycles,
            "launch__shared_mem_config_size": m["launch__shared_mem_config_size"], "correct": bool((out == want).all())}


def gpusim_main(argv: list) -> None:
    import json

    from validation.probes._device import sim_options
    opts, gpu, over = sim_options(argv, grid=16, cases=[])
    grid, cases = opts["grid"], opts["cases"]
    path = Path(__file__).resolve().parents[1] / "data" / "h100" / "probe_l1_sweep_h200.json"
    rec = {(r["kernel"], r["kb"], r["stream_kb"]): r for r in json.loads(path.read_text())["results"]}
    print(f"gpusim (h100{' ' + str(over) if over else ''}, {grid} CTAs) against the H200 (132): L1 hit %, carve-out")
    for kind, a, b in CASES:
        tag = f"{kind}:{a}" + (f":{b}" if kind == "hs" else "")
        if kind == "cycs" or (cases and tag not in cases):
            continue
        g, h = gpusim_case(kind, a, b, grid, gpu), rec.get((kind, a, b), {})
        carve = g["launch__shared_mem_config_size"] >> 10
        hit = h.get("l1tex__t_sector_hit_rate.pct", float("nan"))
        hcarve = int(h.get("launch__shared_mem_config_size", 0))
        print(f"{tag:11s} gpusim {g['l1tex__t_sector_hit_rate.pct']:5.1f} {carve:3d} KiB   H200 {hit:5.1f} "
              f"{hcarve >> 10:3d} KiB", flush=True)


def main():
    if "--gpusim" in sys.argv:
        gpusim_main(sys.argv)
        return
    out = ncu_out(inner, "probe_l1_sweep.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:^(sweep|hotstream)$", METRICS)
    results = [{"kernel": kind, "kb": a, "stream_kb": b, "passes": ROUNDS if kind == "hs" else PASSES,
                "smem_per_cta": SMEM if kind == "cycs" else 0, **(launches[i][1] if i < len(launches) else {})}
               for i, (kind, a, b) in enumerate(CASES)]
    write(out, ncu_record("validation/probes/l1_sweep.py", t0, results, stdout, stderr, "launch",
                          kernel=SRC.strip(), grid="one CTA per SM x 1024 threads"))
    for r in results:
        print(r["kernel"], r["kb"], r["stream_kb"], {k: v for k, v in r.items() if "__" in k})


if __name__ == "__main__":
    main()
