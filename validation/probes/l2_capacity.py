"""L2 capacity for SM-private data, as the H100 shows it: DRAM traffic of a read-modify-write sweep.

One CTA per SM (132 x 1024 threads) adds 1 to every word of its own slice of a buffer of F bytes, `PASSES`
times over. Where the F bytes stay in the L2, the DRAM reads are about F (the first pass) and the writes
about 0; where they do not, every pass reads and writes them again. ho_local_hist_mode (34.6 MB of
thread-private local data) writes 89 MB back to DRAM on the H100, so the capacity such data sees may be
below the 50 MB the L2 has (gpusim's L2 holds it all). Run on the device from the repository root:

    python3 validation/probes/l2_capacity.py --out $OUT/probe_l2_capacity.json

It runs itself under ncu (one profiled launch per size, caches flushed before each) and writes the
metrics per size with the GPU, driver and tool versions.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

SIZES_MB = (8, 16, 20, 24, 28, 32, 36, 40, 44, 48, 64)
PASSES = 4
METRICS = ("dram__bytes_read.sum,dram__bytes_write.sum,gpc__cycles_elapsed.max,lts__t_sector_hit_rate.pct,"
           "lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum")
SRC = r"""
extern "C" __global__ void rmw(unsigned int* buf, unsigned long long words_per_cta, int passes) {
    unsigned int* p = buf + blockIdx.x * words_per_cta;
    for (int k = 0; k < passes; ++k)
        for (unsigned long long i = threadIdx.x; i < words_per_cta; i += blockDim.x)
            p[i] += 1u;
}
"""


def inner():
    import cupy as cp
    k = cp.RawKernel(SRC, "rmw")
    sms = cp.cuda.Device(0).attributes["MultiProcessorCount"]
    for mb in SIZES_MB:
        words = (mb << 20) // 4 // sms
        buf = cp.zeros(words * sms, dtype=cp.uint32)
        k((sms,), (1024,), (buf, cp.uint64(words), cp.int32(PASSES)))
        cp.cuda.Device(0).synchronize()
        ok = bool((buf == PASSES).all())
        print(f"size {mb} MB words_per_cta {words} correct {ok}", flush=True)
        del buf


def main():
    out = ncu_out(inner, "probe_l2_capacity.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "rmw", METRICS)
    results = [{"size_mb": mb, "passes": PASSES, **(launches[i][1] if i < len(launches) else {})}
               for i, mb in enumerate(SIZES_MB)]
    write(out, ncu_record("validation/probes/l2_capacity.py", t0, results, stdout, stderr, "size",
                          kernel=SRC.strip(), grid="one CTA per SM x 1024 threads"))
    for r in results:
        print(r)


if __name__ == "__main__":
    main()
