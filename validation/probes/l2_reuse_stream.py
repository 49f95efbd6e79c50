"""Does a stream of data used once push out of the L2 data that is used again and again? (Which replacement the
L2 has, as far as it matters to kernels like ho_local_hist_mode, whose counters are read back from DRAM on the
H100 though they fit in its L2.)

One CTA per SM (1024 threads). Each CTA has its own hot slice (HOT MB over all SMs) and its own stream slice
(STREAM MB); in each of ROUNDS rounds it reads its whole hot slice (`rd`; `rmw` adds 1 to it) and then the next
1/ROUNDS of its stream (`cg`: reads both with ld.global.cg, past the L1, so that the L2 sees every access, as
the replay below has it). Under LRU the hot data stays while it and one round's stream fit: DRAM reads are HOT +
STREAM. Under a policy that lets lines age by arrival (FIFO, random), the stream pushes hot lines out and they
are read again. ncu's DRAM bytes per launch, caches flushed before each:

    python3 validation/probes/l2_reuse_stream.py --out $OUT/probe_l2_reuse_stream_h200.json     (about 30 s)
    python3 validation/probes/l2_reuse_stream.py --replay [--set KEY=VALUE ...]   (gpusim's L2 alone, no GPU: the
        same access order through the h100 preset's L2, one SM's line at a time in turn, against the record)
    python3 validation/probes/l2_reuse_stream.py --gpusim [--cases rd:24:64,...] [--set KEY=VALUE ...]   (the
        kernel itself in gpusim, SASS model, nvcc on PATH; about a minute a case)
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

ROUNDS = 16
CASES = [("rd", 16, 64), ("rd", 24, 64), ("rd", 32, 64), ("rd", 40, 64), ("rd", 32, 0),
         ("rmw", 16, 64), ("rmw", 24, 64), ("rmw", 32, 64), ("rmw", 40, 64), ("rmw", 32, 0),
         ("cg", 16, 64), ("cg", 24, 64), ("cg", 32, 64), ("cg", 40, 64), ("cg", 48, 0)]
METRICS = "dram__bytes_read.sum,dram__bytes_write.sum,gpc__cycles_elapsed.max,lts__t_sector_hit_rate.pct"
SRC = r"""
extern "C" __global__ void reuse(unsigned int* hot, unsigned long long hot_words, const unsigned int* stream,
                                 unsigned long long chunk_words, int rounds, int modify, unsigned int* out) {
    unsigned int* p = hot + blockIdx.x * hot_words;
    const unsigned int* q = stream + blockIdx.x * chunk_words * rounds;
    unsigned int s = 0;
    for (int r = 0; r < rounds; ++r) {
        for (unsigned long long i = threadIdx.x; i < hot_words; i += blockDim.x) {
            if (modify == 1) p[i] += 1u; else if (modify == 2) s += __ldcg(p + i); else s += p[i];
        }
        for (unsigned long long i = threadIdx.x; i < chunk_words; i += blockDim.x)
            s += modify == 2 ? __ldcg(q + r * chunk_words + i) : q[r * chunk_words + i];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""


def inner():
    import cupy as cp
    k = cp.RawModule(code=SRC).get_function("reuse")
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    out = cp.zeros(sms * 1024, dtype=cp.uint32)
    for kind, hot_mb, stream_mb in CASES:
        hw = (hot_mb << 20) // 4 // sms
        cw = (stream_mb << 20) // 4 // sms // ROUNDS
        hot = cp.ones(hw * sms, dtype=cp.uint32)
        stream = cp.ones(max(cw * sms * ROUNDS, 1), dtype=cp.uint32)
        mode = {"rd": 0, "rmw": 1, "cg": 2}[kind]
        k((sms,), (1024,), (hot, cp.uint64(hw), stream, cp.uint64(cw), cp.int32(ROUNDS), cp.int32(mode), out))
        cp.cuda.Device(0).synchronize()
        ok = bool((hot == 1 + ROUNDS).all()) if kind == "rmw" else bool((out[:1024] != 0).all())
        print(f"launch {kind} hot {hot_mb} MB stream {stream_mb} MB correct {ok}", flush=True)
        del hot, stream


def replay(sets: list) -> None:
    """The same order of 128-B lines through gpusim's L2 (h100 preset with `sets`): DRAM MB read per case."""
    import numpy as np

    from gpusim.jit import njit
    from gpusim.memory import dram, interconnect, l2
    from validation.probes._device import gpusim_h100

    @njit
    def run(l2s, noc, d, nsm, hot_lines, chunk_lines, rounds, modify):
        now = 0
        stream0 = nsm * hot_lines
        for r in range(rounds):
            for i in range(hot_lines):
                for sm in range(nsm):
                    line = sm * hot_lines + i
                    for k in range(4):
                        l2.l2_access(l2s, noc, d, sm, line * 4 + k, now, False)
                        if modify:
                            l2.l2_access(l2s, noc, d, sm, line * 4 + k, now, True)
                    now += 1
            for i in range(chunk_lines):
                for sm in range(nsm):
                    line = stream0 + (sm * rounds + r) * chunk_lines + i
                    for k in range(4):
                        l2.l2_access(l2s, noc, d, sm, line * 4 + k, now, False)
                    now += 1

    gpu, over = gpusim_h100(sets)
    rec_path = Path(__file__).resolve().parents[1] / "data" / "h100" / "probe_l2_reuse_stream_h200.json"
    rec = {(r["kernel"], r["hot_mb"], r["stream_mb"]): r for r in json.loads(rec_path.read_text())["results"]} \
        if rec_path.exists() else {}
    print(f"gpusim L2 {over or '(h100 preset)'}: DRAM MB read (hot + stream would be the least); recorded GPU beside")
    for kind, hot_mb, stream_mb in CASES:
        d = dram.make_state(gpu.dram)
        n = gpu.n_sm
        run(l2.make_state(gpu.l2), interconnect.make_state(gpu.noc, n, gpu.l2.partitions), d, n,
            (hot_mb << 20) // n // 128, (stream_mb << 20) // n // 128 // ROUNDS, ROUNDS, kind == "rmw")
        got = dram.counters(d)["dram__bytes_read.sum"] / 1e6
        g = rec.get((kind, hot_mb, stream_mb), {}).get("dram__bytes_read.sum", np.nan) / 1e6
        print(f"{kind:4s} hot {hot_mb:2d} stream {stream_mb:2d}: gpusim {got:7.1f}  GPU {g:7.1f}  "
              f"(least {(hot_mb + stream_mb) * 1.048576:.1f})")


def gpusim_side(argv: list) -> None:
    """The probe's CUDA C (nvcc on PATH) in gpusim, SASS model, one CTA an SM: cycles, DRAM MB read and the L1's
    hit rate per case of `--cases` (kind:hot:stream), against the record."""

    import numpy as np

    import gpusim
    from validation.probes._device import sim_options
    opts, gpu, over = sim_options(argv, cases=["rd:24:64"])
    from validation.probes._device import cuda_module
    k = cuda_module(SRC, "reuse.cu")["reuse"]
    rec_path = Path(__file__).resolve().parents[1] / "data" / "h100" / "probe_l2_reuse_stream_h200.json"
    rec = {(r["kernel"], r["hot_mb"], r["stream_mb"]): r for r in json.loads(rec_path.read_text())["results"]}
    sms = gpu.n_sm
    print(f"gpusim (h100{' ' + str(over) if over else ''}) against the H200: cycles, DRAM MB read, L1 hit %")
    for case in opts["cases"]:
        kind, hot_mb, stream_mb = case.split(":")[0], int(case.split(":")[1]), int(case.split(":")[2])
        hw, cw = (hot_mb << 20) // 4 // sms, (stream_mb << 20) // 4 // sms // ROUNDS
        hot, stream = np.ones(hw * sms, np.uint32), np.ones(max(cw * sms * ROUNDS, 1), np.uint32)
        r = gpusim.launch(k, sms, 1024, hot, np.uint64(hw), stream, np.uint64(cw), np.int32(ROUNDS),
                          np.int32({"rd": 0, "rmw": 1, "cg": 2}[kind]), np.zeros(sms * 1024, np.uint32), gpu=gpu,
                          model="sass")
        h = rec.get((kind, hot_mb, stream_mb), {})
        print(f"{case:10s} gpusim {r.cycles:9,d} {r.metrics['dram__bytes_read.sum'] / 1e6:6.1f} "
              f"{r.metrics['l1tex__t_sector_hit_rate.pct']:5.1f}   H200 {h.get('gpc__cycles_elapsed.max', 0):9,.0f} "
              f"{h.get('dram__bytes_read.sum', 0) / 1e6:6.1f}", flush=True)


def main():
    if "--gpusim" in sys.argv:
        gpusim_side(sys.argv)
        return
    if "--replay" in sys.argv:
        replay([sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--set"])
        return
    out = ncu_out(inner, "probe_l2_reuse_stream.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:^reuse$", METRICS)
    results = [{"kernel": kind, "hot_mb": h, "stream_mb": s, "rounds": ROUNDS,
                **(launches[i][1] if i < len(launches) else {})} for i, (kind, h, s) in enumerate(CASES)]
    write(out, ncu_record("validation/probes/l2_reuse_stream.py", t0, results, stdout, stderr, "launch",
                          kernel=SRC.strip(), grid="one CTA per SM x 1024 threads"))
    for r in results:
        print(r["kernel"], r["hot_mb"], r["stream_mb"], {k: v for k, v in r.items() if k.startswith(("dram", "gpc"))})


if __name__ == "__main__":
    main()
