"""Run every example program on a real GPU through numba.cuda, and every PTX program through CuPy,
and check them against their references. Needs a CUDA GPU (not part of the CPU-only test suite).

    python validation/gpu_check.py [--sizes small,default] [--programs a,b] [--no-ptx]

Prints one line per run and exits 1 if anything mismatched.
"""
import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(ROOT), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from compare import compare  # noqa: E402
from numba import cuda  # noqa: E402

from programs import all_programs  # noqa: E402
from programs.argspec import parse_args  # noqa: E402
from programs.ptx_programs import PTX_DIR, PTX_PROGRAMS  # noqa: E402

_jitted = {}


def launch(kernel, grid, block, *args):
    if not hasattr(kernel, "__getitem__"):
        if kernel not in _jitted:
            _jitted[kernel] = cuda.jit(kernel)
        kernel = _jitted[kernel]
    kernel[grid, block](*args)
    cuda.synchronize()


def check_program(mod, size):
    inp = mod.inputs(size, seed=0)
    before = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inp.items()}
    start = time.perf_counter()
    outputs = mod.run(launch, inp)
    elapsed = time.perf_counter() - start
    problems = compare(outputs, mod.reference(before), mod.RTOL, mod.ATOL)
    problems += [f"run() changed input {k!r}" for k in before if not np.array_equal(before[k], inp[k])]
    return elapsed, problems


def check_ptx(name, prog):
    import cupy as cp

    kernel = cp.RawModule(path=str(PTX_DIR / prog["file"])).get_function(prog["kernel"])
    args = parse_args(prog["args"])
    expected = prog["reference"]([a.copy() if isinstance(a, np.ndarray) else a for a in args])
    device_args = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel(prog["grid"], prog["block"], tuple(device_args))
    cp.cuda.runtime.deviceSynchronize()
    outputs = {str(i): cp.asnumpy(device_args[i]) for i in expected}
    return compare(outputs, {str(i): v for i, v in expected.items()}, prog["rtol"], prog["atol"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="small,default")
    parser.add_argument("--programs", help="comma-separated program names (default: all)")
    parser.add_argument("--no-ptx", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # numba warns about host arrays and small grids
    programs = all_programs()
    names = args.programs.split(",") if args.programs else list(programs)
    failed = 0
    for name in names:
        mod = programs[name]
        for which in args.sizes.split(","):
            size = mod.SMALL_SIZE if which == "small" else mod.DEFAULT_SIZE
            elapsed, problems = check_program(mod, size)
            failed += bool(problems)
            print(f"{'FAIL' if problems else 'ok  '} {name} size={size} ({elapsed:.2f} s incl. compile)")
            for problem in problems:
                print(f"     {problem}")
    if not args.no_ptx:
        for name, prog in PTX_PROGRAMS.items():
            problems = check_ptx(name, prog)
            failed += bool(problems)
            print(f"{'FAIL' if problems else 'ok  '} ptx:{name}")
            for problem in problems:
                print(f"     {problem}")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
