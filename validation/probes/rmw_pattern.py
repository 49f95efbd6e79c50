"""Why the L2 read-modify-write sweep (l2_rmw_8mb) is slower on the GPU than in gpusim: its first pass, reading
8 MB from DRAM, is where the time goes (its store-only twin, l2_store_8mb, agrees within 2%). Five one-pass
variants of the sweep separate the suspects, each timed after the L2 is flushed clean (256 MiB written, then
another 256 MiB read, as validation/record.py does):

- store_slices: buf[i] = 1 over each CTA's own slice (one CTA of 1,024 threads per SM; the slices 64 KB apart)
- load_slices: the slice summed (no stores)
- rmw_slices: buf[i] += 1 over the slice (l2_rmw_8mb's kernel, one pass)
- copy_slices: dst[i] = src[i] + 1 (the load and the store to different lines)
- rmw_interleaved: buf[i] += 1 with the CTAs' warps interleaved over the whole buffer at each step (the same
  accesses per warp; at any moment the GPU reads one contiguous stretch instead of 132 far apart)
- rmw_nodep: the word read, then 7 stored to it (the store does not wait for the load's data)
- rmw_lag: each step stores to the line the step before read (its load issued one step ahead)
- rmw_twice: rmw_slices' two passes (the second one's loads hit the L1)
- load_then_store: the slice summed, then the sum stored over it (stores that hit the L1, no loads in flight)
- rmw_b256 / rmw_b128: rmw_slices with 8 / 4 warps a CTA (the same slices); rmw_nodep_b32: rmw_nodep, one warp
- rmw_sm66: rmw_slices on 66 CTAs (half the SMs, half the data); rmw_b64 / _b512: 2 / 16 warps a CTA
- rmw_aligned[_bN]: rmw_slices with 15,872 words a CTA (a multiple of 32: each warp's 128 B one line), N threads
- rmw_jumpS / load_jumpS: each CTA's 64-KB slice as 16 steps of one 4-KB chunk, taken S chunks apart (S = 1: in
  order, as rmw_slices); the loads alone for S = 1 and 5

    python3 validation/probes/rmw_pattern.py --out PATH          (on the GPU: 5 runs each, median)
    python3 validation/probes/rmw_pattern.py --gpusim [--set K=V]  (the same kernels in gpusim, h100, SASS model)
    python3 validation/probes/rmw_pattern.py --read PATH          (a recorded file's table)

Each variant's time is printed as a ratio to store_slices' on the same side, so the clocks cancel.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
if not hasattr(np, "row_stack"):       # numba-cuda calls it; numpy 2.5 dropped it
    np.row_stack = np.vstack
from numba import cuda  # noqa: E402

N_SM, BLOCK = 132, 1024
WORDS = (8 << 20) // 4 // N_SM          # each CTA's slice of the 8-MB buffer (l2_rmw_8mb's)
VARIANTS = ("store_slices", "load_slices", "rmw_slices", "copy_slices", "rmw_interleaved", "rmw_nodep",
            "rmw_lag", "rmw_twice", "load_then_store", "rmw_b256", "rmw_b128", "rmw_nodep_b32", "rmw_sm66",
            "rmw_jump1", "rmw_jump3", "rmw_jump5", "rmw_jump7", "load_jump1", "load_jump5",
            "rmw_b64", "rmw_b512", "rmw_aligned", "rmw_aligned_b64", "rmw_aligned_b128", "rmw_aligned_b256",
            "rmw_aligned_b512")
CHUNKS = 16             # the jump variants: each CTA's 64-KB slice as 16 chunks of 4 KB (one step of 1,024 threads)
ALIGNED = 15872         # words a CTA, a multiple of 32: every warp's 128 B one line (the rmw_aligned variants)
# variant -> (kernel, grid, block[, words a CTA]); the rest run N_SM x BLOCK over WORDS
SHAPES = {"rmw_b256": ("rmw_slices", N_SM, 256), "rmw_b128": ("rmw_slices", N_SM, 128),
          "rmw_nodep_b32": ("rmw_nodep", N_SM, 32), "rmw_sm66": ("rmw_slices", N_SM // 2, BLOCK),
          "rmw_b64": ("rmw_slices", N_SM, 64), "rmw_b512": ("rmw_slices", N_SM, 512),
          **{f"rmw_aligned{s}": ("rmw_slices", N_SM, b, ALIGNED) for s, b in
             (("", BLOCK), ("_b64", 64), ("_b128", 128), ("_b256", 256), ("_b512", 512))}}


def store_slices(words, buf, src):
    base = cuda.blockIdx.x * words
    i = cuda.threadIdx.x
    while i < words:
        buf[base + i] = 1
        i += cuda.blockDim.x


def load_slices(words, buf, src):
    base = cuda.blockIdx.x * words
    i = cuda.threadIdx.x
    s = 0
    while i < words:
        s += src[base + i]
        i += cuda.blockDim.x
    if s == 0xFFFFFFFF:
        buf[0] = s


def rmw_slices(words, buf, src):
    base = cuda.blockIdx.x * words
    i = cuda.threadIdx.x
    while i < words:
        buf[base + i] += 1
        i += cuda.blockDim.x


def copy_slices(words, buf, src):
    base = cuda.blockIdx.x * words
    i = cuda.threadIdx.x
    while i < words:
        buf[base + i] = src[base + i] + 1
        i += cuda.blockDim.x


def rmw_interleaved(words, buf, src):
    step = cuda.gridDim.x * cuda.blockDim.x
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    end = words * cuda.gridDim.x
    while i < end:
        buf[i] += 1
        i += step


def rmw_nodep(words, buf, src):
    base = cuda.blockIdx.x * words
    i = cuda.threadIdx.x
    s = 0
    while i < words:
        s += buf[base + i]
        buf[base + i] = 7
        i += cuda.blockDim.x
    if s == 0xFFFFFFFF:
        src[0] = s


def rmw_lag(words, buf, src):
    base = cuda.blockIdx.x * words
    i = cuda.threadIdx.x
    v = buf[base + i] if i < words else 0
    while i < words:
        j = i + cuda.blockDim.x
        w = buf[base + j] if j < words else 0
        buf[base + i] = v + 1
        v = w
        i = j


def rmw_twice(words, buf, src):
    base = cuda.blockIdx.x * words
    for k in range(2):
        i = cuda.threadIdx.x
        while i < words:
            buf[base + i] += 1
            i += cuda.blockDim.x


def load_then_store(words, buf, src):
    base = cuda.blockIdx.x * words
    i = cuda.threadIdx.x
    s = 0
    while i < words:
        s += buf[base + i]
        i += cuda.blockDim.x
    i = cuda.threadIdx.x
    while i < words:
        buf[base + i] = s
        i += cuda.blockDim.x


def _jump(stride, store):
    """buf[i] += 1 (or, store False, the sum) over the CTA's 64-KB slice, its 16 4-KB chunks (one per step) in the
    order k * stride mod 16: consecutive steps `stride` chunks apart."""
    def kernel(words, buf, src):
        base = cuda.blockIdx.x * (CHUNKS * 1024)
        s = 0
        for k in range(CHUNKS):
            i = base + ((k * stride) % CHUNKS) * 1024 + cuda.threadIdx.x
            if store:
                buf[i] += 1
            else:
                s += src[i]
        if s == 0xFFFFFFFF:
            buf[0] = s
    return kernel


KERNELS = {"store_slices": store_slices, "load_slices": load_slices, "rmw_slices": rmw_slices,
           "copy_slices": copy_slices, "rmw_interleaved": rmw_interleaved, "rmw_nodep": rmw_nodep,
           "rmw_lag": rmw_lag, "rmw_twice": rmw_twice, "load_then_store": load_then_store,
           **{f"rmw_jump{j}": _jump(j, True) for j in (1, 3, 5, 7)},
           **{f"load_jump{j}": _jump(j, False) for j in (1, 5)}}


def shape(v: str) -> tuple:
    """(kernel name, grid, block, words a CTA) of a variant."""
    k = SHAPES.get(v, (v, N_SM, BLOCK))
    return k if len(k) == 4 else k + (WORDS,)


def table(times: dict) -> list:
    """(variant, time, ratio to store_slices) per variant."""
    base = times["store_slices"]
    return [(v, times[v], times[v] / base) for v in VARIANTS if v in times]


def read(record: dict) -> None:
    for side in ("gpu", "gpusim"):
        if side in record:
            print(side, record.get("unit", {}).get(side, ""))
            for v, t, r in table(record[side]):
                print(f"  {v:16s} {t:10.1f}  {r:5.2f}x store_slices")


def in_gpusim(argv: list) -> dict:
    import gpusim
    from validation.probes._device import gpusim_h100
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    gpu, over = gpusim_h100(sets)
    times = {}
    for v in VARIANTS:
        buf = np.zeros(CHUNKS * 1024 * N_SM, np.uint32)
        src = np.arange(CHUNKS * 1024 * N_SM, dtype=np.uint32)
        name, grid, block, words = shape(v)
        r = gpusim.launch(cuda.jit(KERNELS[name]), grid, block, np.int64(words), buf, src, gpu=gpu, mode="timing",
                          model="sass")
        times[v] = float(r.metrics["gpc__cycles_elapsed.max"])
        print(v, times[v], flush=True)
    return {"gpusim": times, "overrides": over, "unit": {"gpusim": "cycles"}}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--read":
        read(json.loads(Path(sys.argv[2]).read_text()))
        return
    if "--gpusim" in sys.argv:
        read(in_gpusim(sys.argv[1:]))
        return
    from validation.probes._device import kernel_code, out_path, provenance, write
    from validation.record import Timer

    path = out_path()
    timer = Timer()         # its flush: 256 MiB written, then another 256 MiB read (a clean L2)
    buf = cuda.to_device(np.zeros(CHUNKS * 1024 * N_SM, np.uint32))
    src = cuda.to_device(np.arange(CHUNKS * 1024 * N_SM, dtype=np.uint32))
    kern = {v: cuda.jit(k) for v, k in KERNELS.items()}
    runs: dict = {v: [] for v in VARIANTS}
    for rep in range(8):
        for v in VARIANTS:
            timer.flush()
            a, b = cuda.event(), cuda.event()
            a.record()
            name, grid, block, words = shape(v)
            kern[name][grid, block](np.int64(words), buf, src)
            b.record()
            b.synchronize()
            if rep:             # the first round compiles and warms the code
                runs[v].append(cuda.event_elapsed_time(a, b) * 1000.0)
    times = {v: float(np.median(x)) for v, x in runs.items()}
    rec = {"probe": "rmw_pattern", "description": __doc__.split("\n\n")[0], "gpu": times, "gpu_runs_us": runs,
           "unit": {"gpu": "us (cuda events, median of 7, L2 flushed clean before each)"},
           "code": {v: kernel_code(k) for v, k in kern.items()}, "provenance": provenance()}
    write(path, rec)
    read(rec)


if __name__ == "__main__":
    main()
