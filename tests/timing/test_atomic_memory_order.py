"""Global atomics with memory order at gpu scope, against the atomic_order probe on the H200
(validation/probes/atomic_order.py, data validation/data/h100/probe_atomic_order_h200.json; PTX of its kernels in
tests/timing/ptx/atomic_order.ptx).

ptxas puts MEMBAR.ALL.GPU + ERRBAR before a release atomic and CCTL.IVALL after an acquire one. The H200 waits on
long_scoreboard at the CCTL (the atomic performed, then the L1 invalidated) and on membar at the next ERRBAR (the
invalidation, and every write its SM has sent). gpusim had only the release: acquire ran 80% fast and all of an
acq_rel atomic's wait was membar (Triton's histogram: long_scoreboard 592, membar 544 cycles per instruction on
the H200; gpusim membar 898, long_scoreboard 8)."""

import json
from pathlib import Path

import numpy as np

import gpusim
from gpusim.kernels import load_ptx
from gpusim.presets import get_preset

ROOT = Path(__file__).resolve().parents[2]
PTX = ROOT / "tests" / "timing" / "ptx" / "atomic_order.ptx"
DATA = json.loads((ROOT / "validation" / "data" / "h100" / "probe_atomic_order_h200.json").read_text())
HW = {r["kernel"]: r for r in DATA["results"]}
GRID, BLOCK, STEPS = 132, 128, 64


def _run(kernel):
    return gpusim.launch(load_ptx(PTX)[kernel], GRID, BLOCK, np.zeros(GRID * BLOCK, np.uint32),
                         gpu=get_preset("h100"), mode="timing", model="sass")


def _stall(r, reason):
    return r.metrics[f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"]


def test_an_acquire_atomic_waits_for_itself_and_a_release_for_the_invalidation_before_it():
    for kernel in ("order_acquire", "order_acq_rel"):
        r = _run(kernel)
        ref = HW[kernel]["gpc__cycles_elapsed.max"]
        assert abs(r.cycles / ref - 1) < 0.10, (kernel, r.cycles, ref)
    r = _run("order_acq_rel")
    long, membar = _stall(r, "long_scoreboard"), _stall(r, "membar")
    assert 0.35 < long / (long + membar) < 0.65, (long, membar)     # the H200: 77.9 and 83.9


def test_a_release_fence_waits_for_the_writes_of_its_whole_sm():
    k = load_ptx(PTX)["fence_scope"]
    per_step = {}
    for busy in (0, 1):
        clk = np.zeros(GRID, np.int64)
        gpusim.launch(k, GRID, BLOCK, np.zeros(GRID * BLOCK, np.uint32), np.zeros(GRID * 3 * 2048 * 32, np.uint32),
                      clk, np.int32(busy), gpu=get_preset("h100"), mode="timing", model="sass")
        per_step[busy] = float(np.median(clk)) / STEPS
    hw = DATA["fence_scope"]["cycles_per_step"]
    assert abs(per_step[0] / hw["quiet"] - 1) < 0.10, (per_step, hw)
    assert per_step[1] > 2 * per_step[0], per_step         # the H200: 1,052 against 427


def test_an_atomics_memory_order_is_found_wherever_ptx_puts_its_qualifier():
    from types import SimpleNamespace

    from gpusim.sm.atomics import release_pcs
    texts = ["atom.acq_rel.gpu.global.add.u32 %r1, [%rd1], 1;",          # the ISA's order
             "@%p4 atom.global.gpu.acq_rel.add.u32 %r8, [%rd4], %r53;",   # Triton's
             "red.release.gpu.global.add.u32 [%rd1], 1;",
             "atom.acquire.gpu.global.add.u32 %r1, [%rd1], 1;",
             "atom.acq_rel.cta.shared.add.u32 %r1, [%r2], 1;",            # CTA scope: no fence
             "atom.global.add.u32 %r1, [%rd1], 1;",
             "membar.gl;"]
    assert release_pcs(SimpleNamespace(n=len(texts), texts=texts)).tolist() == [3, 3, 1, 2, 0, 0, 1]
