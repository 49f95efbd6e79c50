"""Probe (device only): why a CTA's warps get their DRAM data far apart: do they start apart, or does the data
come back apart?

The H100 samples barrier stalls after DRAM loads 3-13x as often as gpusim (tri_sum 6.26 against 0.49 cycles per
instruction, the grid-stride reductions, prog_sgemm_tiled, the burst cases): a CTA's warps reach its first
barrier far apart. The burst cases time the arrival from the CTA's first warp start, with the L2 flushed by
writing 256 MiB (so it starts full of dirty lines). Here every warp's lane 0 records %smid, %warpid (its
sub-partition is warpid % 4), the clock at the kernel's first statement and the clock once its loads are in, so
the spread of a CTA's data can be split into the spread of its warps' starts and that of their waits. Each
shape runs after two kinds of flush: `dirty` (256 MiB written, as the burst cases) and `clean` (then 256 MiB of
another buffer read, so the L2 holds clean lines only, as after ncu's cache control).

Shapes: lines8_w4 (burst_w4: 2,112 CTAs of 128 threads, 8 loads 512 B apart per thread), lines8_light (132 CTAs
of 256: one per SM), vec_w4 (tri_sum's footprint: 1,024 CTAs of 128, each warp two contiguous 512-B blocks).

    python3 validation/probes/cta_spread.py --out validation/data/h100/probe_cta_spread_h200.json
    python3 validation/probes/cta_spread.py --read validation/data/h100/probe_cta_spread_h200.json
    python3 validation/probes/cta_spread.py --gpusim [--set KEY=VALUE] [--out PATH]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):      # numba-cuda calls it at import; numpy 2.5 dropped it
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64, smid, warpid  # noqa: E402

SHAPES = (("lines8_w4", 2112, 128), ("lines8_light", 132, 256), ("vec_w4", 1024, 128))


def lines8(a, out, rec):
    t0 = clock64()
    tid = cuda.threadIdx.x
    bd = cuda.blockDim.x
    base = cuda.blockIdx.x * bd * 8 + tid
    s = (a[base] + a[base + bd] + a[base + 2 * bd] + a[base + 3 * bd] + a[base + 4 * bd] + a[base + 5 * bd]
         + a[base + 6 * bd] + a[base + 7 * bd])
    out[cuda.blockIdx.x * bd + tid] = s
    t1 = clock64()
    cuda.syncthreads()
    if tid % 32 == 0:
        w = (cuda.blockIdx.x * bd + tid) // 32
        rec[w, 0] = smid()
        rec[w, 1] = warpid()
        rec[w, 2] = t0
        rec[w, 3] = t1


def vec(a, out, rec):
    t0 = clock64()
    tid = cuda.threadIdx.x
    bd = cuda.blockDim.x
    base = cuda.blockIdx.x * bd * 8 + 4 * tid
    h = bd * 4
    s = (a[base] + a[base + 1] + a[base + 2] + a[base + 3] + a[base + h] + a[base + h + 1] + a[base + h + 2]
         + a[base + h + 3])
    out[cuda.blockIdx.x * bd + tid] = s
    t1 = clock64()
    cuda.syncthreads()
    if tid % 32 == 0:
        w = (cuda.blockIdx.x * bd + tid) // 32
        rec[w, 0] = smid()
        rec[w, 1] = warpid()
        rec[w, 2] = t0
        rec[w, 3] = t1



def analyse(rec: np.ndarray, warps_per_cta: int) -> dict:
    """rec[w] = (smid, warpid, t_start, t_data) per warp, warps in CTA order."""
    r = rec.reshape(-1, warps_per_cta, 4).astype(np.float64)
    start, data = r[..., 2], r[..., 3]
    wait = data - start
    cta0 = start.min(axis=1, keepdims=True)

    def spread(x):
        return float(np.mean(x.max(axis=1) - x.min(axis=1)))

    def behind(x):         # what a barrier right after would cost: mean of (the CTA's last - the warp's)
        return float(np.mean(x.max(axis=1, keepdims=True) - x))
    smsp = (r[..., 1] % 4).astype(int)
    by_smsp = [float(np.median((data - cta0)[smsp == k])) for k in range(4) if (smsp == k).any()]
    # of the data's spread, how much the starts explain: the CTA's data times minus each warp's start offset
    return {"ctas": int(r.shape[0]), "start_spread": spread(start), "data_spread": spread(data),
            "wait_spread": spread(wait), "barrier_after_data": behind(data), "barrier_if_starts_equal": behind(wait),
            "start_behind": behind(start), "wait_p10_p50_p90": [float(np.percentile(wait, q)) for q in (10, 50, 90)],
            "arrival_p10_p50_p90": [float(np.percentile(data - cta0, q)) for q in (10, 50, 90)],
            "arrival_median_by_smsp": by_smsp,
            "corr_start_vs_data_in_cta": _corr((start - cta0).ravel(), (data - cta0).ravel())}


def _corr(x: np.ndarray, y: np.ndarray):
    """Pearson correlation; None where either side does not vary."""
    if x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def read(record: dict) -> None:
    for r in record["runs"]:
        a = r["analysis"]
        print(f"{r['shape']:13s} {r['flush']:5s} start spread {a['start_spread']:6.0f}  data spread "
              f"{a['data_spread']:6.0f}  wait spread {a['wait_spread']:6.0f}  barrier after data "
              f"{a['barrier_after_data']:6.0f} (equal starts {a['barrier_if_starts_equal']:6.0f})  wait p50 "
              f"{a['wait_p10_p50_p90'][1]:6.0f}  by smsp {[round(x) for x in a['arrival_median_by_smsp']]}")


def in_gpusim(argv: list) -> None:
    """The same shapes in gpusim (h100, SASS model; `--set KEY=VALUE` overrides), each launch on a cold, clean L2:
    the figures `read` prints, with the flush column saying gpusim."""
    import gpusim
    from validation.probes._device import gpusim_h100, write
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    out = argv[argv.index("--out") + 1] if "--out" in argv else None
    gpu, over = gpusim_h100(sets)
    runs = []
    for shape, grid, block in SHAPES:
        kern = lines8 if shape.startswith("lines8") else vec
        a = np.arange(grid * block * 8, dtype=np.int32)
        rec = np.zeros((grid * block // 32, 4), np.int64)
        r = gpusim.launch(kern, grid, block, a, np.zeros(grid * block, np.int32), rec, gpu=gpu, mode="timing",
                          model="sass")
        runs.append({"shape": shape, "grid": grid, "block": block, "flush": "gpusim", "repeat": 0,
                     "cycles": int(r.cycles), "analysis": analyse(rec, block // 32)})
    record = {"probe": "cta_spread", "where": "gpusim (h100, SASS model)", "overrides": over, "runs": runs}
    if out:
        write(out, record)
    read(record)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--read":
        read(json.loads(Path(sys.argv[2]).read_text()))
        return
    if "--gpusim" in sys.argv:
        in_gpusim(sys.argv[1:])
        return
    from validation.probes._device import kernel_code, out_path, provenance, write

    def fill(buf):
        i = cuda.grid(1)
        while i < buf.size:
            buf[i] = i
            i += cuda.gridsize(1)

    def touch(buf, sink):
        i = cuda.grid(1)
        s = 0
        while i < buf.size:
            s += buf[i]
            i += cuda.gridsize(1)
        if s == -1:
            sink[0] = s

    path = out_path()
    kern = {"lines8": cuda.jit(lines8), "vec": cuda.jit(vec)}
    f, t = cuda.jit(fill), cuda.jit(touch)
    a = cuda.device_array(64 << 20, np.int32)
    out = cuda.device_array(2112 * 256, np.int32)
    flush = cuda.device_array(64 << 20, np.int32)
    reader = cuda.device_array(64 << 20, np.int32)
    sink = cuda.device_array(1, np.int32)
    f[1056, 256](a)
    f[1056, 256](reader)
    runs = []
    for shape, grid, block in SHAPES:
        k = kern[shape.split("_")[0]]
        for fl in ("dirty", "clean"):
            for rep in range(3):
                rec = cuda.to_device(np.zeros((grid * block // 32, 4), np.int64))
                f[1056, 256](flush)
                if fl == "clean":
                    t[1056, 256](reader, sink)
                cuda.synchronize()
                k[grid, block](a, out, rec)
                cuda.synchronize()
                h = rec.copy_to_host()
                res = {"shape": shape, "grid": grid, "block": block, "flush": fl, "repeat": rep,
                       "analysis": analyse(h, block // 32),
                       "raw_smid_warpid_t0_t1": h.tolist() if grid * block <= 132 * 256 else None}
                print(shape, fl, rep, json.dumps(res["analysis"]), flush=True)
                runs.append(res)
    write(path, {"probe": "cta_spread", "description": __doc__.split("\n\n")[0], "runs": runs,
                 "code": {n: kernel_code(k) for n, k in kern.items()}, "provenance": provenance()})


if __name__ == "__main__":
    main()
