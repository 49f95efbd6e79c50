"""Run one example program under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) and save or check it.

    python validation/cudasim_run.py --program vecadd [--size N] [--seed S] [--out FILE.npz] [--check]

The simulator must be selected before numba is first imported, so this script is its own process:
never import it from a process that uses numba.cuda's real compiler. The program's `run` gets a
launch that does `cuda.jit(kernel)[grid, block](*args)` (a kernel that is already a dispatcher is
used as it is). --out writes the outputs as `out:NAME` and the inputs as `in:NAME` to an npz.
--check compares the outputs with the program's reference under its RTOL/ATOL (0/0: bit-exact),
checks that `run` left its inputs untouched, and exits 1 on any mismatch.

numba's simulator has no warp shuffles; this script adds shfl_sync, shfl_up_sync, shfl_down_sync,
shfl_xor_sync and syncwarp to it, implemented with one barrier per warp. They ignore the mask and
require every thread of the warp to make the same calls (as the example programs do).
"""
import os

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba is imported anywhere

import argparse  # noqa: E402
import importlib  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(ROOT), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from compare import compare  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda.simulator.kernelapi import FakeCUDAModule  # noqa: E402

WARP = 32
BARRIER_TIMEOUT_S = 60.0
_warp_lock = threading.Lock()


def _warp_state(thread):
    """(barrier, slots) shared by the simulated threads of the calling thread's warp."""
    manager = thread._manager
    warp = thread.thread_id // WARP
    with _warp_lock:
        states = manager.__dict__.setdefault("_gpusim_warps", {})
        if warp not in states:
            nthreads = int(np.prod(manager._block_dim))
            lanes = min(WARP, nthreads - warp * WARP)
            states[warp] = (threading.Barrier(lanes, timeout=BARRIER_TIMEOUT_S), [None] * WARP)
        return states[warp]


def _exchange(value, source_lane):
    """Each lane publishes `value` and gets lane source_lane(lane)'s (its own where that is out of range)."""
    thread = threading.current_thread()
    lane = thread.thread_id % WARP
    barrier, slots = _warp_state(thread)
    slots[lane] = value
    barrier.wait()
    src = source_lane(lane)
    result = slots[src] if 0 <= src < WARP and slots[src] is not None else value
    barrier.wait()
    return result


def _shfl_sync(self, mask, value, src_lane):
    return _exchange(value, lambda lane: src_lane % WARP)


def _shfl_up_sync(self, mask, value, delta):
    return _exchange(value, lambda lane: lane - delta)


def _shfl_down_sync(self, mask, value, delta):
    return _exchange(value, lambda lane: lane + delta)


def _shfl_xor_sync(self, mask, value, lane_mask):
    return _exchange(value, lambda lane: lane ^ lane_mask)


def _syncwarp(self, mask=0xFFFFFFFF):
    _exchange(None, lambda lane: lane)


WARP_INTRINSICS = {
    "shfl_sync": _shfl_sync,
    "shfl_up_sync": _shfl_up_sync,
    "shfl_down_sync": _shfl_down_sync,
    "shfl_xor_sync": _shfl_xor_sync,
    "syncwarp": _syncwarp,
}


def _install_warp_intrinsics():
    for name, fn in WARP_INTRINSICS.items():
        if not hasattr(FakeCUDAModule, name):
            setattr(FakeCUDAModule, name, fn)


_jitted = {}


def launch(kernel, grid, block, *args):
    """numba.cuda's kernel[grid, block](*args) on host arrays, through the simulator."""
    if not hasattr(kernel, "__getitem__"):
        if kernel not in _jitted:
            _jitted[kernel] = cuda.jit(kernel)
        kernel = _jitted[kernel]
    kernel[grid, block](*args)


def _same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--program", required=True, help="program NAME (a module in programs/)")
    parser.add_argument("--size", type=int, help="problem size (default: the program's SMALL_SIZE)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="write outputs and inputs to this .npz")
    parser.add_argument("--check", action="store_true", help="compare with the reference; exit 1 on mismatch")
    args = parser.parse_args(argv)

    _install_warp_intrinsics()
    prog = importlib.import_module(f"programs.{args.program}")
    size = prog.SMALL_SIZE if args.size is None else args.size
    inp = prog.inputs(size, seed=args.seed)
    before = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inp.items()}
    start = time.perf_counter()
    outputs = prog.run(launch, inp)
    elapsed = time.perf_counter() - start

    if args.out is not None:
        arrays = {f"out:{k}": np.asarray(v) for k, v in outputs.items()}
        arrays.update({f"in:{k}": np.asarray(v) for k, v in inp.items()})
        np.savez(args.out, **arrays)
    print(f"{prog.NAME} size={size}: simulated in {elapsed:.2f} s")
    if not args.check:
        return 0
    problems = compare(outputs, prog.reference(before), prog.RTOL, prog.ATOL)
    problems += [f"run() changed input {k!r}" for k in before if not _same(before[k], inp[k])]
    for problem in problems:
        print(f"MISMATCH {prog.NAME}: {problem}")
    if not problems:
        print(f"{prog.NAME}: matches reference (rtol={prog.RTOL}, atol={prog.ATOL})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
