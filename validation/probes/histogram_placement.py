"""Probe (device only): does prog_histogram's time depend on where its 1-KiB histogram lands?

prog_histogram (programs/histogram.py: 1,024 blocks count 1 Mi values into shared memory, then each adds its 256
bins to the global histogram with coalesced REDs) ran 27.3k cycles in its recording and 17.9-18.6k in four
later runs (validation/data/h100/ncu/repeats_2026-11-27). gpusim, whose arrays are 512-B aligned, gives 28.1k:
its end is the 8,192 warp REDs on the two atomic units the array covers. Here the same kernel and input run with
the histogram at several byte offsets inside one 64-MiB allocation; per run ncu's gpc__cycles_elapsed.max and
lts__t_sectors_op_red .max / (.sum / 1.5) (the busiest slice's share of the operations, as
validation/probes/atomic_slices.py reads it).

    python3 validation/probes/histogram_placement.py --out validation/data/h100/probe_histogram_placement.json
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):      # numba-cuda calls it at import; numpy 2.5 dropped it
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

METRICS = "gpc__cycles_elapsed.max,lts__t_sectors_op_red.max,lts__t_sectors_op_red.sum,smsp__inst_executed.sum"
OFFSETS = (0, 128, 256, 384, 512, 640, 768, 896, 1024, 4096, 65536, 1 << 20, 5 << 20, 33 << 20)
BUF_WORDS = 64 << 18          # 64 MiB of int32


def inner():
    from programs import histogram as h
    k = cuda.jit(h.KERNELS[0][1])(h.histogram)
    data = h.inputs(h.DEFAULT_SIZE, 0)["data"]
    want = h.reference({"data": data})["hist"]
    d = cuda.to_device(data)
    buf = cuda.to_device(np.zeros(BUF_WORDS, np.int32))
    grid = (data.size + h.BLOCK * h.ITEMS_PER_THREAD - 1) // (h.BLOCK * h.ITEMS_PER_THREAD)
    for off in OFFSETS:
        buf[:] = 0
        hist = buf[off // 4: off // 4 + h.BINS]
        k[grid, h.BLOCK](d, hist, data.size)
        cuda.synchronize()
        print(f"kernel offset {off} correct {bool((hist.copy_to_host() == want).all())}", flush=True)


def main():
    out = ncu_out(inner, "probe_histogram_placement.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:histogram", METRICS)
    results = []
    for i, off in enumerate(OFFSETS):
        m = launches[i][1] if i < len(launches) else {}
        home = m.get("lts__t_sectors_op_red.sum", 0) / 1.5
        mx = m.get("lts__t_sectors_op_red.max", 0)
        results.append({"offset_bytes": off, **m, "busiest_share": mx / home if home else None})
    write(out, ncu_record("validation/probes/histogram_placement.py", t0, results, stdout, stderr, "kernel",
                          program="programs/histogram.py", offsets=list(OFFSETS)))
    for r in results:
        print(r["offset_bytes"], r.get("gpc__cycles_elapsed.max"), r.get("lts__t_sectors_op_red.max"),
              r["busiest_share"])


if __name__ == "__main__":
    main()
