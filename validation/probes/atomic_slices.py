"""Probe (device only): on how many L2 slices do the atomics on a small array land, and does it depend on where
the array is?

gatomic_wrap256 (every warp RED writes one 128-B line of a 1-KiB array) has ncu's busiest slice performing a
quarter of the array's sector operations, while three other 1-KiB arrays recorded the same way
(gatomic_bins256, ho_hist256_global_uniform, prog_histogram) have theirs perform half. Here the same kernel,
thread t adds 1 eight times to word base + t % words (528 blocks of 256 threads, as the gatomics cases), runs
on arrays of 64, 256 and 1024 words placed at several byte offsets inside one 64-MiB allocation. Per run,
ncu's lts__t_sectors_op_red .max over .sum / 1.5 (ncu counts an operation from the far partition at a slice of
each) is the busiest slice's share of the operations, and gpc__cycles_elapsed.max / the busiest slice's count
is its cycles per operation.

    python3 validation/probes/atomic_slices.py --out validation/data/h100/probe_atomic_slices.json
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):      # numba-cuda calls it at import; numpy 2.5 dropped it
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, int32, int64  # noqa: E402

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

METRICS = ("gpc__cycles_elapsed.max,lts__t_sectors_op_red.max,lts__t_sectors_op_red.sum,"
           "lts__t_sectors_op_red.min,smsp__inst_executed.sum")
GRID, BLOCK, REPS = 528, 256, 8
WORDS = (64, 256, 1024)
OFFSETS = (0, 256, 512, 1024, 2048, 4096, 8192, 65536, 1 << 20, 2 << 20, 5 << 20, 17 << 20, 33 << 20)
BUF_WORDS = 64 << 18          # 64 MiB of int32


def wrap_red(buf, base, mask, reps):
    t = cuda.grid(1)
    idx = base + (t & mask)
    for _ in range(reps):
        cuda.atomic.add(buf, idx, 1)


def inner():
    k = cuda.jit((int32[::1], int64, int64, int64))(wrap_red)
    buf = cuda.to_device(np.zeros(BUF_WORDS, np.int32))
    for words in WORDS:
        for off in OFFSETS:
            buf[:] = 0
            k[GRID, BLOCK](buf, off // 4, words - 1, REPS)
            cuda.synchronize()
            got = buf[off // 4: off // 4 + words].copy_to_host()
            ok = bool((got == GRID * BLOCK * REPS // words).all())
            print(f"kernel words {words} offset {off} correct {ok}", flush=True)


def main():
    out = ncu_out(inner, "probe_atomic_slices.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:wrap_red", METRICS)
    results = []
    i = 0
    for words in WORDS:
        for off in OFFSETS:
            m = launches[i][1] if i < len(launches) else {}
            i += 1
            home = m.get("lts__t_sectors_op_red.sum", 0) / 1.5
            mx = m.get("lts__t_sectors_op_red.max", 0)
            results.append({"words": words, "offset_bytes": off, **m,
                            "busiest_share": mx / home if home else None,
                            "cycles_per_busiest_op": m.get("gpc__cycles_elapsed.max", 0) / mx if mx else None})
    import inspect
    write(out, ncu_record("validation/probes/atomic_slices.py", t0, results, stdout, stderr, "kernel",
                          kernel=inspect.getsource(wrap_red), grid=GRID, block=BLOCK, reps=REPS))
    for r in results:
        print(r["words"], r["offset_bytes"], r.get("gpc__cycles_elapsed.max"), r.get("lts__t_sectors_op_red.max"),
              r["busiest_share"], r["cycles_per_busiest_op"])


if __name__ == "__main__":
    main()
