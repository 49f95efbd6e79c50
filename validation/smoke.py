"""Functional smoke test of every case's kernel on numba's CUDA simulator (no GPU needed).

    NUMBA_ENABLE_CUDASIM=1 python validation/smoke.py

The simulator runs each thread in Python, so full-size cases would take hours: this builds small
variants of every case from the same factories (same kernels, fewer blocks/steps), runs them and
checks them against their references and `derive`. It also builds the full-size inputs and
references of every registered case (without running them) and checks they agree in shape.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import validation  # noqa: E402,F401
from validation.cases import (  # noqa: E402
    all_cases,
    atomics,
    bandwidth,
    banks,
    chase,
    coalesce,
    compute,
    divergence,
    heldout,
    l2_write,
    mechanisms,
    programs,
    shared_atomics,
    stores,
    waves,
)


def small_cases() -> list:
    out = [
        chase._make("chase_l1", "", chase.chase_global, 16 << 10, 128, 256, 64),
        chase._make("chase_l2", "", chase.chase_global, 64 << 10, 128, 64, 64),
        chase._make("chase_dram", "", chase.chase_global, 1 << 20, 64 << 10, 0, 16),
        chase._make("chase_dram_seq", "", chase.chase_global, 1 << 20, 128, 0, 16, ordered=True),
        chase._make("chase_shared", "", chase.chase_shared, chase.SHARED_WORDS * 4, 4, 0, 64),
        compute._make_lat(), compute._make_tp(grid=2, block=32, iters=4), compute._empty_case(),
        *compute.int_cases(grid=2, block=32, iters=2),
        bandwidth._load_case(grid=2, block=32, per_thread=4),
        bandwidth._copy_case(grid=2, block=32, per_thread=4),
    ]
    out += [coalesce._make(s, grid=2, block=32, per_thread=2) for s in coalesce.STRIDES]
    out += [banks._make(s, grid=1, block=64, iters=2) for s in banks.STRIDES]
    out += [divergence._make(p, grid=1, block=64, work=4) for p in divergence.PATHS]
    out.append(divergence._make(32, uniform=True, grid=1, block=64, work=4))
    out += [atomics._make(n, s, m, grid=2, block=64, reps=2) for n, (s, m) in atomics.MODES.items()]
    out += [waves._make("waves", "", waves.spin, 3, 32, cycles=2000),
            waves._make("smem", "", waves.spin_smem, 3, 64, cycles=2000)]
    out += [stores._make(s, grid=2, block=32, per_thread=2) for s in stores.STRIDES]
    out += [stores._make_rows(w, grid=2, block=32) for w in stores.ROW_WIDTHS]
    out += [shared_atomics._make(n, m, s, grid=2, block=64, reps=3) for n, (m, s) in shared_atomics.MODES.items()]
    out += l2_write.small_cases()
    out += mechanisms.small_cases()
    out += heldout.small_cases()
    out += [programs._make(mod, mod.SMALL_SIZE) for name, mod in programs.all_programs().items()
            if name not in programs.SKIPPED]
    return out


def sim_launch(kernel, grid, block, *args):
    from numba import cuda

    cuda.jit(kernel)[grid, block](*args)


def main() -> int:
    from validation.cudasim_run import _install_warp_intrinsics

    _install_warp_intrinsics()  # the simulator has no warp shuffles; reduce_shuffle needs them
    failures = 0
    for case in small_cases():
        t0 = time.time()
        inp = case.inputs(seed=1)
        before = {k: np.array(v, copy=True) for k, v in inp.items() if isinstance(v, np.ndarray)}
        out = case.run(sim_launch, inp)
        res = case.check(out, case.reference(inp))
        mutated = [k for k, v in before.items() if not np.array_equal(v, inp[k], equal_nan=True)]
        derived = case.derive(out, inp) if case.derive else {}
        ok = res["passed"] and not mutated
        failures += not ok
        print(f"{'ok ' if ok else 'BAD'} {case.NAME:22s} {time.time() - t0:6.2f}s {res} "
              f"{'mutated ' + str(mutated) if mutated else ''} {derived}")
    for name, case in all_cases().items():
        inp = case.inputs(seed=0)
        ref = case.reference(inp)
        missing = [a for a in case.ARGS if a not in inp] + [k for k in ref if k not in case.OUTPUTS
                                                           and k != "final"]
        if missing:
            failures += 1
            print(f"BAD {name}: keys missing {missing}")
    print(f"{len(small_cases())} small variants run, {len(all_cases())} full cases built; "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
