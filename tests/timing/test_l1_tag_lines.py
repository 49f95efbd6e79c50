"""A global load that touches many lines costs the SM's LSU the larger of its tag lookups (`lsu.tag_lines`
lines a cycle) and its data wavefronts in the L1's 32 banks, not one cycle per line. On the H100 a warp
load of 32 lines that hit the L1 takes 9.0 cycles when each lane's word sits in its own bank
(validation/probes/lg_queue.py: lane l reads word 33 l) and 33 cycles when all 32 sit in one bank
(validation/probes/lsu_lines.py: word 0 of 32 lines), and a load of one line 1.19. Over a one-line load,
the one-bank load costs 4.1 times what the spread one does."""

import json
from pathlib import Path

import numpy as np
import pytest
from numba import cuda, float32

import gpusim
from gpusim.presets import apply_overrides, get_preset

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100"
WORDS, ITERS, WARPS = 16384, 8, 32      # 8 x 2048 words: no two iterations load the same addresses


def loads(buf, out, stride):
    lane = cuda.threadIdx.x & 31
    warp = cuda.threadIdx.x >> 5
    acc = float32(0)
    for i in range(cuda.threadIdx.x, WORDS, cuda.blockDim.x):
        acc += buf[i]
    cuda.syncthreads()
    base = warp * 1024
    for it in range(ITERS):
        b = base + it * 2048
        s0 = buf[(b + lane * stride) & (WORDS - 1)]
        s1 = buf[(b + 256 + lane * stride) & (WORDS - 1)]
        s2 = buf[(b + 512 + lane * stride) & (WORDS - 1)]
        s3 = buf[(b + 768 + lane * stride) & (WORDS - 1)]
        acc += (s0 + s1) + (s2 + s3)
    out[cuda.threadIdx.x] = acc


def _cycles(stride):
    gpu = apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1})
    buf = (np.arange(WORDS) % 7).astype(np.float32)
    out = np.zeros(WARPS * 32, np.float32)
    r = gpusim.launch(loads, 1, WARPS * 32, buf, out, np.int64(stride), gpu=gpu, mode="timing")
    sectors = 4 if stride == 1 else 32      # one line of 32 words, or a sector in each of 32 lines
    assert r.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == WARPS * (ITERS * 4 * sectors + 16 * 4)
    return r.cycles


def _measured_ratio():
    runs = json.loads((DATA / "probe_lsu_lines.json").read_text())["runs"]
    one_line = next(r for r in runs if r["k_lines"] == 1)["cycles_per_warp_load"]
    one_bank = next(r for r in runs if r["k_lines"] == 32)["cycles_per_warp_load"]
    spread = next(r for r in json.loads((DATA / "probe_lg_queue.json").read_text())["results"]
                  if r["lines_per_load"] == 32 and r["warps_per_sm"] == 32)
    per_load = spread["gpc__cycles_elapsed.max"] / (32 * 64 * 8)
    return (one_bank - one_line) / (per_load - one_line)


def test_many_line_loads_in_one_bank_take_as_much_longer_as_on_the_h100():
    one_line = _cycles(1)
    ratio = (_cycles(32) - one_line) / (_cycles(33) - one_line)     # one bank against a word per bank
    assert 3 <= _measured_ratio() <= 5
    assert ratio == pytest.approx(_measured_ratio(), rel=0.3)      # gpusim 5.2 (one cycle a line: 1.0)
