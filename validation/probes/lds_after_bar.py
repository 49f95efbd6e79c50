"""Probe (device; also runs in gpusim): how long a pair of shared loads takes right after a barrier.

The H100's per-SASS tables (validation/data/h100/ncu/sass_stalls*/) put 60-90 cycles of short_scoreboard per
execution on the add after the shared loads that follow a BAR.SYNC in ho_scan_exclusive (91), ho_reduce6_unrolled
(41-73) and ho_bitonic_sort_shared (60), where gpusim gives about 29, and their shared pipe is only ~18% busy.
Here one CTA of 256 threads per SM walks STEPS steps of ho_scan_exclusive's pattern, timed with %clock64:

  0 bar_sts   barrier; two shared loads; an add on both; barrier; a shared store (the scan's step)
  1 bar       barrier; two shared loads; an add on both (no store, one barrier)
  2 nobar     two shared loads; an add on both; a shared store (no barrier)
  3 bar_sts_stg  the scan's step and a global store of 4 bytes a thread at a 16-byte stride (4 lines a warp,
              partial sectors, as the scan's tail writes), queued in the MIO ahead of the next step's loads

`--grid 1056` runs 8 CTAs per SM (ho_scan_exclusive's occupancy) instead of one.

Per form: cycles per step (median over the warps). Forms 0-2 are diagnosis; `lsu.combine_window` is fitted on
form 3's whole-kernel cycles at 1, 4 and 8 CTAs per SM (ncu's gpc__cycles_elapsed.max and store counters,
validation/data/h100/probe_lds_after_bar_stores_h200.json): the H200's L1 stops merging a warp's stores to the
same lines when they come a scan step apart.

    python3 validation/probes/lds_after_bar.py --out validation/data/h100/probe_lds_after_bar_h200.json
    python3 validation/probes/lds_after_bar.py --gpusim [--set K=V] [--grid G --only F] --out PATH
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, uint32  # noqa: E402

from validation.cases._intrinsics import clock64  # noqa: E402

FORMS = ("bar_sts", "bar", "nobar", "bar_sts_stg")
STEPS = 128
BLOCK = 256


def lds_bar_sts(k, out, rec):
    s = cuda.shared.array(512, uint32)
    tid = cuda.threadIdx.x
    s[tid] = uint32(tid)
    s[tid + 256] = uint32(tid * 3)
    acc = uint32(tid + k)
    t0 = clock64()
    for i in range(STEPS):
        cuda.syncthreads()
        acc += s[(tid + i) & 255] + s[256 + ((tid + 2 * i) & 255)]
        cuda.syncthreads()
        s[tid] = acc & uint32(255)
    t1 = clock64()
    out[cuda.blockIdx.x * BLOCK + tid] = acc
    if tid & 31 == 0:
        w = (cuda.blockIdx.x * BLOCK + tid) >> 5
        rec[w, 0] = t0
        rec[w, 1] = t1


def lds_bar(k, out, rec):
    s = cuda.shared.array(512, uint32)
    tid = cuda.threadIdx.x
    s[tid] = uint32(tid)
    s[tid + 256] = uint32(tid * 3)
    acc = uint32(tid + k)
    t0 = clock64()
    for i in range(STEPS):
        cuda.syncthreads()
        acc += s[(tid + i) & 255] + s[256 + ((tid + 2 * i + acc) & 255)]
    t1 = clock64()
    out[cuda.blockIdx.x * BLOCK + tid] = acc
    if tid & 31 == 0:
        w = (cuda.blockIdx.x * BLOCK + tid) >> 5
        rec[w, 0] = t0
        rec[w, 1] = t1


def lds_nobar(k, out, rec):
    s = cuda.shared.array(512, uint32)
    tid = cuda.threadIdx.x
    s[tid] = uint32(tid)
    s[tid + 256] = uint32(tid * 3)
    acc = uint32(tid + k)
    cuda.syncthreads()
    t0 = clock64()
    for i in range(STEPS):
        acc += s[(tid + i) & 255] + s[256 + ((tid + 2 * i) & 255)]
        s[tid] = acc & uint32(255)
    t1 = clock64()
    out[cuda.blockIdx.x * BLOCK + tid] = acc
    if tid & 31 == 0:
        w = (cuda.blockIdx.x * BLOCK + tid) >> 5
        rec[w, 0] = t0
        rec[w, 1] = t1


def lds_bar_sts_stg(k, out, rec):
    s = cuda.shared.array(512, uint32)
    tid = cuda.threadIdx.x
    s[tid] = uint32(tid)
    s[tid + 256] = uint32(tid * 3)
    acc = uint32(tid + k)
    g = (cuda.blockIdx.x * BLOCK + tid) * 4
    t0 = clock64()
    for i in range(STEPS):
        cuda.syncthreads()
        acc += s[(tid + i) & 255] + s[256 + ((tid + 2 * i) & 255)]
        cuda.syncthreads()
        s[tid] = acc & uint32(255)
        out[g + (i & 3)] = acc
    t1 = clock64()
    out[cuda.blockIdx.x * BLOCK + tid] = acc
    if tid & 31 == 0:
        w = (cuda.blockIdx.x * BLOCK + tid) >> 5
        rec[w, 0] = t0
        rec[w, 1] = t1


KERNELS = (lds_bar_sts, lds_bar, lds_nobar, lds_bar_sts_stg)


def run(launch, form: int, grid: int) -> dict:
    out = np.zeros(grid * BLOCK * 4, np.uint32)
    rec = np.zeros((grid * BLOCK // 32, 2), np.int64)
    res = launch(KERNELS[form], grid, BLOCK, np.uint32(0), out, rec)
    per_step = (rec[:, 1] - rec[:, 0]) / STEPS
    row = {"form": FORMS[form], "cycles_per_step": float(np.median(per_step)), "min": float(per_step.min()),
           "max": float(per_step.max()), "warps": int(per_step.size)}
    if res is not None:     # gpusim: the whole kernel's cycles, as ncu's gpc__cycles_elapsed.max on the device
        row["kernel_cycles"] = int(res.cycles)
    return row


def main():
    from validation.probes._device import clock_probe
    clock_probe("lds_after_bar", __doc__,
                lambda launch, args: (run(launch, f, args.grid) for f in range(len(FORMS))
                                      if args.only < 0 or f == args.only),
                settings={"steps": STEPS, "block": BLOCK}, grid=(int, 132), only=(int, -1))


if __name__ == "__main__":
    main()
