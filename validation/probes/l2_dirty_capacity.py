"""The L2 capacity SM-private data sees when it is read, written, or both: DRAM traffic of three sweeps.

One CTA per SM (132 x 1024 threads) sweeps its own slice of a buffer of F bytes `PASSES` times: `rd` sums
it (clean data), `wr` writes every word (whole lines, no reads needed), `rmw` adds 1 to every word (as
probe l2_capacity). Where the F bytes stay in the L2 the DRAM reads are F for rd and rmw (the first pass)
and 0 for wr; where they do not, later passes read them again. The l2_capacity probe found the rmw sweep
re-reading from 32-36 MB, well below the 50 MB the L2 has. If only written data sees the smaller
capacity, a written line takes more room than a read one: half of each SM's lines live in the far L2
partition, and a write that crosses the fabric may leave a copy in the near one (1.5 F of lines for F of
data would fill 50 MB at 33 MB). Run on the device from the repository root:

    python3 validation/probes/l2_dirty_capacity.py --out $OUT/probe_l2_dirty_capacity.json

It runs itself under ncu (one profiled launch per kernel and size, caches flushed before each) and writes
the metrics per launch with the GPU, driver and tool versions.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

SIZES_MB = (16, 24, 28, 32, 36, 40, 44, 48, 56, 64)
KERNELS = ("rd", "wr", "rmw")
PASSES = 4
METRICS = ("dram__bytes_read.sum,dram__bytes_write.sum,gpc__cycles_elapsed.max,lts__t_sector_hit_rate.pct,"
           "lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum")
SRC = r"""
extern "C" __global__ void rd(const unsigned int* buf, unsigned long long words_per_cta, int passes,
                              unsigned int* out) {
    const unsigned int* p = buf + blockIdx.x * words_per_cta;
    unsigned int s = 0;
    for (int k = 0; k < passes; ++k)
        for (unsigned long long i = threadIdx.x; i < words_per_cta; i += blockDim.x)
            s += p[i] ^ k;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void wr(unsigned int* buf, unsigned long long words_per_cta, int passes,
                              unsigned int* out) {
    unsigned int* p = buf + blockIdx.x * words_per_cta;
    for (int k = 0; k < passes; ++k)
        for (unsigned long long i = threadIdx.x; i < words_per_cta; i += blockDim.x)
            p[i] = (unsigned int)(i + k);
}
extern "C" __global__ void rmw(unsigned int* buf, unsigned long long words_per_cta, int passes,
                               unsigned int* out) {
    unsigned int* p = buf + blockIdx.x * words_per_cta;
    for (int k = 0; k < passes; ++k)
        for (unsigned long long i = threadIdx.x; i < words_per_cta; i += blockDim.x)
            p[i] += 1u;
}
"""


def inner():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    out = cp.zeros(sms * 1024, dtype=cp.uint32)
    for name in KERNELS:
        k = mod.get_function(name)
        for mb in SIZES_MB:
            words = (mb << 20) // 4 // sms
            buf = cp.ones(words * sms, dtype=cp.uint32)
            k((sms,), (1024,), (buf, cp.uint64(words), cp.int32(PASSES), out))
            cp.cuda.Device(0).synchronize()
            if name == "rd":
                ok = bool((out[:1024] != 0).all())
            elif name == "wr":
                ok = int(buf[words - 1]) == words - 1 + PASSES - 1
            else:
                ok = bool((buf == PASSES + 1).all())
            print(f"launch {name} {mb} MB words_per_cta {words} correct {ok}", flush=True)
            del buf


def main():
    out = ncu_out(inner, "probe_l2_dirty_capacity.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:^(rd|wr|rmw)$", METRICS)
    order = [(name, mb) for name in KERNELS for mb in SIZES_MB]
    results = [{"kernel": name, "size_mb": mb, "passes": PASSES,
                **(launches[i][1] if i < len(launches) else {})} for i, (name, mb) in enumerate(order)]
    write(out, ncu_record("validation/probes/l2_dirty_capacity.py", t0, results, stdout, stderr, "launch",
                          kernel=SRC.strip(), grid="one CTA per SM x 1024 threads"))
    for r in results:
        shown = ("dram", "gpc", "lts__t_sector_hit")
        print(r["kernel"], r["size_mb"], {k: v for k, v in r.items() if k.startswith(shown)})


if __name__ == "__main__":
    main()
