"""Probe (device; also runs in gpusim): do global loads and stores slow a warp's shared-memory loads?

On the H100, ho_scan_exclusive (the CUDA samples' scanExclusiveShared: four 16-B-strided global loads and
stores per thread around a Hillis-Steele scan in shared memory) waits 4.79 cycles per instruction on
short_scoreboard, most of it on the add after each step's two LDS; gpusim gives 0.87, and its shared pipe
carries only shared accesses. If an SM's global loads (and stores) put their data through the same L1 data
banks as shared memory, a shared load waits behind their wavefronts. Here warp 0 of a 1,024-thread CTA walks a
conflict-free dependent chain through shared memory (`p = s[p]`, one wavefront a step) and times it with
%clock64, while the CTA's 31 other warps do, by mode:

  0 idle         nothing (they exit): the chase alone
  1 ld_1line     global loads that hit the L1, 4 B a lane, one 128-B line a load (1 wavefront)
  2 ld_4lines    global loads that hit the L1, 4 B a lane 16 B apart, four lines a load (4 wavefronts)
  3 st_4lines    global stores, 4 B a lane 16 B apart, four lines a store
  4 lds          shared loads, conflict-free (the control: the chase's own pipe)

Each mode runs twice: all 31 warps streaming, and apart: only the 24 on the other three sub-partitions (warp w
on sub-partition w % 4), so the chase does not share its scheduler with them. Per SM (median over the SMs):
cycles per chase step (the chase's span over its steps) and the streaming warps' span, so one sees that they
overlapped. On the H200 the chase takes 47.1 cycles a step alone, 125 / 153 / 80 with loads / stores / shared
loads streaming on its sub-partition, 50.3 / 60.1 / 47.0 with them on the others only (validation/DEVIATIONS.md,
twenty-seventh pass).

    python3 validation/probes/smem_share.py --out validation/data/h100/probe_smem_share_h200.json
    python3 validation/probes/smem_share.py --gpusim [--grid 1] [--set K=V] --out PATH
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, float32, int32  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402

MODES = ("idle", "ld_1line", "ld_4lines", "st_4lines", "lds")
BLOCK, CHASE, STREAM = 1024, 512, 48           # chase steps; streaming iterations (8 accesses each)
WORDS = 8192                                    # 32 KiB per CTA: 8 regions of 4 KiB, L1-resident


def smem_share(buf, how, out, rec):
    s = cuda.shared.array(1024, int32)
    tid = cuda.threadIdx.x
    lane = tid & 31
    w = tid >> 5
    s[tid] = (tid + 32) & 1023          # each lane's chain stays in its bank: one wavefront a step
    base = cuda.blockIdx.x * WORDS
    acc = float32(0.0)
    mode = how & 7
    if (how >> 3) != 0 and (w & 3) == 0:    # the chase's sub-partition: its other warps idle
        mode = 0
    if w > 0 and mode >= 1 and mode <= 2:     # warm the CTA's 32 KiB in the L1
        for r in range(8):
            acc += buf[base + r * 1024 + (tid & 1023)]
    cuda.syncthreads()
    t0 = clock64()
    if w == 0:
        p = lane
        for _ in range(CHASE):
            p = s[p]
        acc += float32(p)
    elif mode == 1 or mode == 2:
        off = lane if mode == 1 else 4 * lane
        d = 32 if mode == 1 else 1          # the four loads of a group: other lines, or the same four
        for it in range(STREAM):
            r0 = base + ((it + w) & 7) * 1024 + off
            acc += buf[r0] + buf[r0 + d] + buf[r0 + 2 * d] + buf[r0 + 3 * d]
            r1 = base + ((it + w + 4) & 7) * 1024 + off
            acc += buf[r1] + buf[r1 + d] + buf[r1 + 2 * d] + buf[r1 + 3 * d]
    elif mode == 3:
        off = 4 * lane
        for it in range(STREAM):
            r0 = base + ((it + w) & 7) * 1024 + off
            buf[r0] = acc
            buf[r0 + 1] = acc
            buf[r0 + 2] = acc
            buf[r0 + 3] = acc
            r1 = base + ((it + w + 4) & 7) * 1024 + off
            buf[r1] = acc
            buf[r1 + 1] = acc
            buf[r1 + 2] = acc
            buf[r1 + 3] = acc
            acc += float32(1.0)
    elif mode == 4:
        for it in range(STREAM):
            q = (lane + 32 * (it + w)) & 1023
            acc += float32(s[q] + s[q ^ 32] + s[q ^ 64] + s[q ^ 96] + s[q ^ 128] + s[q ^ 160] + s[q ^ 192]
                           + s[q ^ 224])
    t1 = clock64()
    out[cuda.blockIdx.x * BLOCK + tid] = acc
    if lane == 0:
        g = cuda.blockIdx.x * (BLOCK >> 5) + w
        rec[g, 0] = smid()
        rec[g, 1] = t0
        rec[g, 2] = t1


def run(launch, mode: int, grid: int, apart: bool) -> np.ndarray:
    buf = (np.arange(grid * WORDS) % 8).astype(np.float32)
    out = np.zeros(grid * BLOCK, np.float32)
    rec = np.zeros((grid * BLOCK // 32, 3), np.int64)
    launch(smem_share, grid, BLOCK, buf, np.int64(mode + 8 * apart), out, rec)
    chase = out[::BLOCK]
    assert np.all(chase == np.float32(0 + 32 * CHASE % 1024)), "wrong chase result"
    return rec


def analyse(rec: np.ndarray, mode: int, apart: bool) -> dict:
    """Per SM (median over SMs): cycles per chase step, and the streaming warps' span in cycles."""
    warps = BLOCK // 32
    step, span = [], []
    for c in range(rec.shape[0] // warps):
        r = rec[c * warps:(c + 1) * warps]
        step.append((r[0, 2] - r[0, 1]) / CHASE)
        span.append(float(r[1:, 2].max() - r[1:, 1].min()))
    return {"mode": MODES[mode], "apart": apart, "cycles_per_chase_step": float(np.median(step)),
            "chase_cycles": float(np.median(step)) * CHASE, "stream_span_cycles": float(np.median(span)),
            "ctas": len(step)}


def main():
    from validation.probes._device import clock_probe
    clock_probe("smem_share", __doc__, lambda launch, args: (analyse(run(launch, m, args.grid, a), m, a)
                                                            for a in (False, True) for m in range(len(MODES))),
                settings={"block": BLOCK, "chase": CHASE, "stream": STREAM}, grid=(int, 132))


if __name__ == "__main__":
    main()
