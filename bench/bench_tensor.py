"""Tensor-core speed: Triton's fp16 matmul (tutorial 03: wgmma on h100, mma.sync on a100, cp.async
pipelining) at 512x512x512 in functional and timing mode, and the fp8 (e4m3, wgmma) matmul. Prints the
simulation wall time (median of the repeats; Triton's compile is done once beforehand and not counted),
warp-instructions/s and the tensor instructions executed.

    python bench/bench_tensor.py [--repeats 3] [--size 512]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _one(prog, gpu, mode, size, repeats):
    import gpusim.triton as gt
    inp = prog.inputs(size, seed=0)
    runs = []

    def launch(fn, grid, *a, **meta):
        runs.append(gt.jit_launch(fn, grid, *a, gpu=gpu, mode=mode, **meta))
        return runs[-1]
    t0 = time.perf_counter()
    prog.run(launch, inp)                # compiles (Triton and the core), checks nothing
    first = time.perf_counter() - t0
    walls = []
    for _ in range(repeats):
        runs.clear()
        out = prog.run(launch, inp)
        walls.append(sum(r.wall_s for r in runs))
    ref = prog.reference(inp)
    ok = all(abs(out[k].astype("f8") - v.astype("f8")).max() <= prog.ATOL + prog.RTOL * abs(v).max()
             for k, v in ref.items())
    r = runs[-1]
    tensor = sum(int(v) for k, v in r.metrics.items() if k.startswith("sm__inst_executed_pipe_tensor_op"))
    return statistics.median(walls), first, r.warp_instructions, tensor, ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--size", type=int, default=512)
    a = ap.parse_args(argv)
    from programs.triton import matmul_fp8, matmul_fp16
    rows = [("triton_matmul_fp16", matmul_fp16, "h100"), ("triton_matmul_fp16", matmul_fp16, "a100"),
            ("triton_matmul_fp8", matmul_fp8, "h100")]
    print(f"{'program':20s} {'gpu':5s} {'mode':10s} {'size':>5s} {'wall s':>8s} {'first s':>8s} "
          f"{'warp-inst':>10s} {'warp-inst/s':>12s} {'tensor inst':>11s} ok")
    for name, prog, gpu in rows:
        for mode in ("functional", "timing"):
            wall, first, wi, tensor, ok = _one(prog, gpu, mode, a.size, a.repeats)
            print(f"{name:20s} {gpu:5s} {mode:10s} {a.size:5d} {wall:8.2f} {first:8.2f} {wi:10,d} "
                  f"{wi / wall:12,.0f} {tensor:11,d} {ok}")


if __name__ == "__main__":
    main()
