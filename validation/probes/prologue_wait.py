"""Probe (device; also runs in gpusim): how long a new CTA's warps take through the kernel's prologue while
older CTAs keep the SM's ALU busy.

prog_divergence's kernel (4,096 CTAs of 256 threads, 8 per SM: about four waves) with lane 0 of each warp
reading %clock64 first, after the index and bounds-check work that opens the kernel (before its load), and at
the end. On the H100 ncu samples 60% of this kernel's stalls on that opening integer work (math_pipe_throttle,
not_selected, dispatch_stall). gpusim's SASS model runs the oldest CTA strictly first
(`scheduler.starve_cycles_sass` 0); with a 200-cycle starvation guard, as before the twenty-fifth pass, it put 7%
of the warp cycles there (`--set scheduler.starve_cycles_sass=200`). Per warp: the prologue (first to second
read) and the body (second to third), as medians and 90th percentiles over the kernel's warps, over its
first-wave warps and over the later ones, and the share of all warp cycles spent in the prologue. Diagnosis;
nothing is fitted on it.

    python3 validation/probes/prologue_wait.py --out validation/data/h100/probe_prologue_wait_h200.json
    python3 validation/probes/prologue_wait.py --gpusim [--set scheduler.starve_cycles_sass=200] --out PATH
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

N = 1 << 20
BLOCK = 256


def divergence_stamped(x, out, n, st):
    t0 = clock64()
    i = cuda.grid(1)
    if i < n:
        lane = cuda.threadIdx.x % 32
        t1 = clock64()
        v = x[i]
        if lane % 2 == 0:
            v = v * 3 + 1
        else:
            v = v // 2
        if v < 0:
            v = -v
        else:
            v = v + lane
        acc = 0
        for k in range(lane + 1):
            acc += (v + k) % 7
        out[i] = acc + v
        t2 = clock64()
        if lane == 0:
            w = i >> 5
            st[w, 0] = smid()
            st[w, 1] = t0
            st[w, 2] = t1
            st[w, 3] = t2


def summary(st: np.ndarray) -> dict:
    st = st.astype(np.float64)
    pro, body = st[:, 2] - st[:, 1], st[:, 3] - st[:, 2]
    first = np.zeros(len(st), bool)
    for s in np.unique(st[:, 0]):            # a warp of the first wave: it started before any warp on its SM ended
        on = st[:, 0] == s
        first[on] = st[on, 1] < st[on, 3].min()

    def q(v):
        return {"median": float(np.median(v)), "p90": float(np.percentile(v, 90))} if len(v) else None

    return {"warps": int(len(st)), "first_wave_warps": int(first.sum()),
            "prologue": q(pro), "body": q(body), "prologue_first_wave": q(pro[first]),
            "prologue_later": q(pro[~first]), "body_first_wave": q(body[first]), "body_later": q(body[~first]),
            "prologue_share_of_warp_cycles": float(pro.sum() / (pro.sum() + body.sum()))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpusim", action="store_true", help="run in gpusim (h100, SASS model) instead of the GPU")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="gpusim: a preset override")
    args = ap.parse_args()
    grid = N // BLOCK
    x = np.random.default_rng(0).integers(-(1 << 20), 1 << 20, N, dtype=np.int32)
    out = np.zeros(N, np.int32)
    st = np.zeros((N // 32, 4), np.int64)
    if args.gpusim:
        import gpusim
        from validation.probes._device import gpusim_h100
        gpu, over = gpusim_h100(args.set)
        r = gpusim.launch(divergence_stamped, grid, BLOCK, x, out, np.int64(N), st,
                          gpu=gpu, mode="timing", model="sass")
        doc = {"where": "gpusim (h100, SASS model)", "overrides": over, "cycles": r.cycles}
    else:
        from validation.probes._device import kernel_code, provenance
        k = cuda.jit(divergence_stamped)
        dx, do, dst = cuda.to_device(x), cuda.to_device(out), cuda.to_device(st)
        for _ in range(3):          # the last of three launches (code warm)
            k[grid, BLOCK](dx, do, np.int64(N), dst)
        cuda.synchronize()
        st = dst.copy_to_host()
        doc = {"where": "device", "provenance": provenance(), **kernel_code(k)}
    doc.update({"probe": "prologue_wait", "description": __doc__.split("\n\n")[0], "grid": grid, "block": BLOCK,
                **summary(st)})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({k: v for k, v in doc.items() if k not in ("description", "provenance", "ptx", "sass")}))


if __name__ == "__main__":
    main()
