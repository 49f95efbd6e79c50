"""A global load that touches many lines costs the SM's LSU the larger of its tag lookups (`lsu.tag_lines`
lines a cycle) and its data wavefronts in the L1's 32 banks, not one cycle per line. On the H100, with 32
warps per SM issuing independent loads that hit the L1, a warp load of 32 lines takes 9.0 cycles when each
lane's word sits in its own bank (validation/probes/lg_queue.py: lane l reads word 33 l) and 32.9 cycles when
all 32 sit in one bank (validation/probes/lsu_lines.py: word 0 of 32 lines). The kernel here is lg_queue's:
one block of 32 warps on one SM, 64 iterations of 8 independent loads."""

import json
from pathlib import Path

import numpy as np
import pytest
from numba import cuda, float32

import gpusim
from gpusim.presets import apply_overrides, get_preset

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100"
WORDS, ITERS, WARPS = 16384, 64, 32


def loads(buf, out, stride):
    lane = cuda.threadIdx.x & 31
    warp = cuda.threadIdx.x >> 5
    acc = float32(0)
    for i in range(cuda.threadIdx.x, WORDS, cuda.blockDim.x):       # fill the L1
        acc += buf[i]
    cuda.syncthreads()
    base = (warp * 1024) & (WORDS - 1)
    m = WORDS - 1
    for it in range(ITERS):
        b = (base + it * 2048) & m
        x = lane * stride
        s0 = buf[(b + x) & m]
        s1 = buf[(b + 256 + x) & m]
        s2 = buf[(b + 512 + x) & m]
        s3 = buf[(b + 768 + x) & m]
        s4 = buf[(b + 1024 + x) & m]
        s5 = buf[(b + 1280 + x) & m]
        s6 = buf[(b + 1536 + x) & m]
        s7 = buf[(b + 1792 + x) & m]
        acc += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    out[cuda.threadIdx.x] = acc


def _cycles_per_load(stride):
    gpu = apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1})
    buf = (np.arange(WORDS) % 7).astype(np.float32)
    out = np.zeros(WARPS * 32, np.float32)
    r = gpusim.launch(loads, 1, WARPS * 32, buf, out, np.int64(stride), gpu=gpu, mode="timing", model="sass")
    sectors = 4 if stride == 1 else 32      # one line of 32 words, or a sector in each of 32 lines
    assert r.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == WARPS * (ITERS * 8 * sectors + 16 * 4)
    return r.cycles / (WARPS * ITERS * 8)


def _h100():
    spread = next(r for r in json.loads((DATA / "probe_lg_queue.json").read_text())["results"]
                  if r["lines_per_load"] == 32 and r["warps_per_sm"] == 32)
    one_bank = next(r for r in json.loads((DATA / "probe_lsu_lines.json").read_text())["runs"] if r["k_lines"] == 32)
    return spread["gpc__cycles_elapsed.max"] / (WARPS * ITERS * 8), one_bank["cycles_per_warp_load"]


def test_a_32_line_load_costs_its_tag_lookups_when_every_lane_has_its_own_bank():
    spread, _ = _h100()
    assert spread == pytest.approx(9.0, abs=0.1)
    assert _cycles_per_load(33) == pytest.approx(spread, rel=0.1)      # gpusim 8.8 (one cycle a line: 32)


def test_a_32_line_load_in_one_bank_costs_its_32_wavefronts():
    _, one_bank = _h100()
    assert _cycles_per_load(32) == pytest.approx(one_bank, rel=0.1)    # gpusim 32.7, the H100 32.9
