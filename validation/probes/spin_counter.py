"""Probe (device; also runs in gpusim): do uniform-datapath instructions take the ALU's issue capacity?

sched_spin's loop (read %clock64, 64-bit compare, count the trip) in two forms: `spin_uniform` (sched_spin's
`spin_first`) counts trips by a constant, which ptxas keeps on the uniform datapath (UIADD3, UIADD3.X), and
`spin_vector` by a per-thread increment loaded from memory (all ones), which it cannot (IADD3, IADD3.X on the
ALU). Blocks of 1024 threads, one and two per SM. If the uniform instructions took the ALU like vector ones, the
two forms would make the same trips per cycle; if they take no ALU slot, the uniform form is faster wherever the
ALU binds. The younger block's share of trips with two blocks per SM is the scheduler's (sched_spin).
Diagnosis; nothing is fitted on it.

    python3 validation/probes/spin_counter.py --out validation/data/h100/probe_spin_counter_h200.json
    python3 validation/probes/spin_counter.py --gpusim --out PATH
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402
from validation.probes._device import kernel_code, provenance  # noqa: E402
from validation.probes.sched_spin import spin_first as spin_uniform  # noqa: E402   (counts by a constant)

SPIN = 20000
SPIN_GPUSIM = 4000


@cuda.jit
def spin_vector(cycles, inc, rec):
    step = inc[cuda.threadIdx.x]      # 1 in every thread, but not known to the compiler
    t0 = clock64()
    trips = 0
    t = t0
    while t - t0 < cycles:
        t = clock64()
        trips += step
    tid = cuda.threadIdx.x
    if tid % 32 == 0:
        w = (cuda.blockIdx.x * cuda.blockDim.x + tid) // 32
        rec[w, 0] = smid()
        rec[w, 1] = t0
        rec[w, 2] = t
        rec[w, 3] = trips


def summary(rec: np.ndarray, cycles: int) -> dict:
    old_rate, ratio, first = [], [], []
    for s in np.unique(rec[:, 0]):
        r = rec[rec[:, 0] == s]
        r = r[np.argsort(r[:, 1], kind="stable")]
        if len(r) == 64:        # two blocks: the 32 warps that started first are the older block
            old, young = r[:32], r[32:]
            ratio.append(float(np.median(young[:, 3]) / max(1.0, np.median(old[:, 3]))))
            first.append(int(young[:, 1].max() - old[:, 1].min()))
        else:
            old = r
        old_rate.append(float(np.median(old[:, 3]) * 8 / cycles))     # 8 warps of the block per sub-partition
    out = {"old_trips_per_cycle_per_subpartition": float(np.median(old_rate))}
    if ratio:
        out.update({"young_over_old_trips": float(np.median(ratio)), "young_first_read_after": float(np.median(first))})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpusim", action="store_true", help="run in gpusim (h100, SASS model, one SM) instead")
    args = ap.parse_args()
    inc = np.ones(1024, np.int64)
    runs = []
    for name, fn in (("spin_uniform", spin_uniform), ("spin_vector", spin_vector)):
        for per_sm in (1, 2):
            if args.gpusim:
                import gpusim
                from gpusim.presets import apply_overrides, get_preset
                cycles, grid = SPIN_GPUSIM, per_sm
                rec = np.zeros((grid * 32, 4), np.int64)
                gpusim.launch(fn, grid, 1024, np.int64(cycles), inc, rec, mode="timing", model="sass",
                              gpu=apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1}))
                code = None
            else:
                cycles, grid = SPIN, 132 * per_sm
                rec_d, inc_d = cuda.device_array((grid * 32, 4), np.int64), cuda.to_device(inc)
                for _ in range(2):
                    fn[grid, 1024](np.int64(cycles), inc_d, rec_d)
                cuda.synchronize()
                rec = rec_d.copy_to_host()
                code = kernel_code(fn)
            run = {"kernel": name, "blocks_per_sm": per_sm, "spin_cycles": cycles, **summary(rec, cycles)}
            if code is not None and per_sm == 1:
                run.update(code)
            runs.append(run)
            print({k2: v for k2, v in run.items() if k2 not in ("ptx", "sass")}, flush=True)
    doc = {"probe": "spin_counter", "description": __doc__.split("\n\n")[0], "runs": runs,
           "where": "gpusim (h100, SASS model, one SM)" if args.gpusim else "device"}
    if not args.gpusim:
        doc["provenance"] = provenance()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
