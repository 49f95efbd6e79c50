"""Probe (device; also runs in gpusim): how many 128-B lines per cycle does an SM's LSU take for loads
that hit the L1?

One CTA of 1024 threads per SM reads a 128-KiB buffer that stays in its L1 (warmed by an untimed pass).
Each warp load spreads its 32 lanes over k lines (k = 1, 2, 4, 8, 16, 32; lane j reads word j // k of
line j % k of a 4-KiB region; eight independent loads per iteration, each one LDG at an immediate offset
from one address), so about 256 loads per SM are in flight and, from k = 4 on, the LSU, not the latency or
the issue slots, sets the rate. Lane 0 of every warp records
%smid and the %clock64 reads around its loop; per SM the loop's span over the loads it issued gives
cycles per warp load, and lines per cycle = k / that. Same kernel, same sizes in gpusim
(tests/timing/test_lsu_lines_probe.py).

    python3 validation/probes/lsu_lines.py --out validation/data/h100/probe_lsu_lines.json
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, float32  # noqa: E402

from validation.cases._intrinsics import clock64, smid  # noqa: E402

KS = (1, 2, 4, 8, 16, 32)
GRID, BLOCK, ITERS = 132, 1024, 32
WORDS = 32768                     # 128 KiB: 32 regions of 4 KiB (32 lines each)
REGION = np.uint64(1024)          # unsigned indices: no wrap-around checks, one LDG [R+imm] per load
R1, R2, R3, R4, R5, R6, R7 = (np.uint64(1024 * j) for j in range(1, 8))
MASK = np.uint64(15)


def lines_k(buf, k, iters, out, rec):
    lane = cuda.threadIdx.x & 31
    w = cuda.threadIdx.x >> 5
    base = np.uint64((lane % k) * 32 + lane // k)
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = float32(0.0)
    for it in range(32):                               # untimed warm pass over the whole buffer
        s0 += buf[np.uint64(it) * REGION + base]
    t0 = clock64()
    for it in range(iters):
        i = ((np.uint64(it) * np.uint64(8) + np.uint64(w)) & MASK) * REGION + base
        s0 += buf[i]
        s1 += buf[i + R1]
        s2 += buf[i + R2]
        s3 += buf[i + R3]
        s4 += buf[i + R4]
        s5 += buf[i + R5]
        s6 += buf[i + R6]
        s7 += buf[i + R7]
    t1 = clock64()
    out[cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x] = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    if lane == 0:
        g = cuda.blockIdx.x * (cuda.blockDim.x >> 5) + w
        rec[g, 0] = smid()
        rec[g, 1] = t0
        rec[g, 2] = t1


def analyse(rec: np.ndarray, k: int, iters: int) -> dict:
    """Cycles per warp load and lines per cycle per SM (median over SMs)."""
    per_sm = []
    for s in np.unique(rec[:, 0]):
        r = rec[rec[:, 0] == s]
        span = float(r[:, 2].max() - r[:, 1].min())
        loads = 8 * iters * r.shape[0]
        per_sm.append(span / loads)
    cyc = float(np.median(per_sm))
    return {"k_lines": k, "cycles_per_warp_load": cyc, "lines_per_cycle": k / cyc, "sms": len(per_sm)}


def run(launch, k: int, iters: int = ITERS, grid: int = GRID) -> np.ndarray:
    buf = (np.arange(WORDS) % 8).astype(np.float32)
    out = np.zeros(grid * BLOCK, np.float32)
    rec = np.zeros((grid * BLOCK // 32, 3), np.int64)
    launch(lines_k, grid, BLOCK, buf, np.int64(k), np.int64(iters), out, rec)
    lane = np.arange(grid * BLOCK) & 31
    w = (np.arange(grid * BLOCK) % BLOCK) >> 5
    base = (lane % k) * 32 + lane // k
    expect = np.zeros(grid * BLOCK, np.float64)
    for it in range(32):
        expect += buf[it * 1024 + base]
    for it in range(iters):
        for j in range(8):
            expect += buf[((it * 8 + w) & 15) * 1024 + j * 1024 + base]
    assert np.array_equal(out, expect.astype(np.float32)), "wrong sums"     # small integers: exact
    return rec


def main():
    from validation.probes._device import device_launch, measure, out_path, write
    out = out_path()
    launch = device_launch()
    write(out, measure("lsu_lines", __doc__, (analyse(run(launch, k), k, ITERS) for k in KS),
                       grid=GRID, block=BLOCK, iters=ITERS))


if __name__ == "__main__":
    main()
