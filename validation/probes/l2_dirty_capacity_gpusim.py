"""The l2_dirty_capacity probe's sweeps in gpusim (SASS model, h100 preset), against the H100's recording.

    python validation/probes/l2_dirty_capacity_gpusim.py rd 32 40 44        # kernel (rd | wr | rmw), sizes in MB
    python validation/probes/l2_dirty_capacity_gpusim.py rmw 36 --set l2.size=41943040

Per size: cycles, DRAM bytes read and written, against data/h100/probe_l2_dirty_capacity.json. The kernels
are numba ports of the probe's CUDA C (one CTA of 1024 threads per SM, 4 passes over its own slice).
Needs no GPU; a size takes 20-60 s.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from numba import cuda, uint32

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from validation.cases.l2_write import l2_rmw_sweep  # noqa: E402

PASSES, SMS, BLOCK = 4, 132, 1024


def rd_sweep(words, passes, buf, out):
    base = cuda.blockIdx.x * words
    s = uint32(0)
    for k in range(passes):
        i = cuda.threadIdx.x
        while i < words:
            s += buf[base + i] ^ uint32(k)
            i += cuda.blockDim.x
    out[cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x] = s


def wr_sweep(words, passes, buf, out):
    base = cuda.blockIdx.x * words
    for k in range(passes):
        i = cuda.threadIdx.x
        while i < words:
            buf[base + i] = uint32(i + k)
            i += cuda.blockDim.x


def main():
    import gpusim
    from gpusim.presets import apply_overrides, get_preset
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", choices=("rd", "wr", "rmw"))
    ap.add_argument("sizes", nargs="+", type=int)
    ap.add_argument("--set", action="append", default=[], help="a preset override, key=value")
    a = ap.parse_args()
    over = {}
    for kv in a.set:
        k, v = kv.split("=", 1)
        over[k] = float(v) if "." in v else int(v) if v.lstrip("-").isdigit() else v
    spec = apply_overrides(get_preset("h100"), over) if over else get_preset("h100")
    rec = json.loads((ROOT / "validation/data/h100/probe_l2_dirty_capacity.json").read_text())
    hw = {(r["kernel"], r["size_mb"]): r for r in rec["results"]}
    for mb in a.sizes:
        words = (mb << 20) // 4 // SMS
        buf, out = np.ones(words * SMS, np.uint32), np.zeros(SMS * BLOCK, np.uint32)
        if a.kernel == "rmw":
            r = gpusim.launch(l2_rmw_sweep, SMS, BLOCK, np.int64(words), np.int64(PASSES), buf, gpu=spec,
                              model="sass")
        else:
            r = gpusim.launch(rd_sweep if a.kernel == "rd" else wr_sweep, SMS, BLOCK, np.int64(words),
                              np.int64(PASSES), buf, out, gpu=spec, model="sass")
        m, h, f = r.metrics, hw[(a.kernel, mb)], float(mb << 20)
        hc = h["gpc__cycles_elapsed.max"]
        print(f"{a.kernel} {mb} MB: cycles {r.cycles} (H100 {hc:.0f}, {100 * (r.cycles / hc - 1):+.1f}%), "
              f"DRAM read {m['dram__bytes_read.sum'] / f:.2f} F (H100 {h['dram__bytes_read.sum'] / f:.2f}), "
              f"written {m['dram__bytes_write.sum'] / f:.2f} F (H100 {h['dram__bytes_write.sum'] / f:.2f})",
              flush=True)


if __name__ == "__main__":
    main()
