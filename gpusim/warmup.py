"""Compile gpusim's numba core ahead of time (`gpusim warmup`, and the first run of a new install).

Both modes are compiled by launching a one-warp kernel on the `tiny` preset: the compiled code
depends only on the types of the state arrays, not on the preset or the kernel, so every later
launch loads it from the cache (gpusim/jitcache.py). On a machine with more than one core, the
heaviest leaves of the executor (the instruction semantics) and of the memory system are first
compiled in parallel processes, each into the shared cache, with the exact signatures their
callers use; the launches then only compile the composition (`step`, the cycle loop) and link the
rest from the cache.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

from gpusim import jitcache

MODES = ("timing", "functional")
PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry warmup(.param .u64 out)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
"""


def _sample_state():
    """Executor and unit state of the warm-up kernel on `tiny`, for the argument types."""
    from gpusim.kernels import load_ptx
    from gpusim.presets import TINY
    from gpusim.sm.executor import mem_lanes
    from gpusim.sm.state import Lanes, make_mach, make_prog
    from gpusim.timing.state import make_units
    d = load_ptx(PTX)["warmup"].decoded
    P = make_prog(d)
    z8 = np.zeros(64, np.uint8)
    M = make_mach(d, 4, 1, z8, np.zeros(1, np.int64), np.zeros(1, np.int64), z8, (32, 1, 1), (1, 1, 1), 2, 0, 100)
    L = Lanes(M.R, M.si, M.sf, M.sregs)
    ML = mem_lanes.py_func(M)
    return P, M, L, ML, make_units(TINY, d, 4, 1)


def _parts():
    """Two lists of (function, argument types) of about equal compile time."""
    from numba import typeof, types

    from gpusim.sm import alu_float, alu_int, compare, convert, fetch, lsu, memops, simt, warpops
    from gpusim.sm.operands import read_sreg
    P, M, L, ML, U = _sample_state()
    p, m, lanes, ml = typeof(P), typeof(M), typeof(L), typeof(ML)
    i = types.int64
    b = types.boolean
    one = [(alu_float.exec_float, (p, lanes, i, i, i)), (alu_int.exec_int, (p, lanes, i, i, i)),
           (compare.exec_setp, (p, lanes, i, i, i)), (compare.exec_set, (p, lanes, i, i, i)),
           (compare.exec_select, (p, lanes, i, i, i, b)), (compare.exec_mov, (p, lanes, i, i, i)),
           (compare.exec_cvta, (p, lanes, i, i, i)), (warpops.exec_shfl, (p, lanes, i, i, i)),
           (warpops.exec_vote, (p, lanes, i, i, i)), (warpops.exec_redux, (p, lanes, i, i, i)),
           (warpops.exec_activemask, (p, lanes, i, i, i))]
    u = {k: typeof(v) for k, v in U._asdict().items()}
    two = [(convert.exec_cvt, (p, lanes, i, i, i)), (memops.exec_ld, (p, ml, i, i, i, i)),
           (memops.exec_st, (p, ml, i, i, i, i)), (memops.exec_atom, (p, ml, i, i, i, i, b)),
           (simt.barrier, (p, m, i, i, i, i)), (simt.branch, (p, m, i, i, i, i, i)),
           (simt.call, (p, m, i, i, i, i)), (simt.ret_from_func, (p, m, i, i, i)), (simt.exit_lanes, (m, i, i)),
           (read_sreg, (p, m, i, i, i, i)),
           (lsu.memory_timing, (u["lsu"], u["smem"], u["l1"], u["l2"], u["noc"], u["dram"], typeof(M.tr_addr),
                                typeof(M.tr_info), i, i, i, i, i)),
           (fetch.fetch_line, (u["fetch"], u["l2"], u["noc"], u["dram"], i, i, i, i))]
    return one, two


def compile_part(n: int) -> None:
    for fn, sig in _parts()[n]:
        fn.compile(sig)


def _launches(modes) -> None:
    from gpusim.kernels import load_ptx
    from gpusim.launch import launch
    k = load_ptx(PTX)["warmup"]
    for mode in modes:
        out = np.zeros(32, np.uint32)
        jitcache.QUIET["on"] = True
        try:
            launch(k, 1, 32, out, gpu="tiny", mode=mode)
            if mode == "functional":        # cooperative launches run the grid together (run_grid_together)
                launch(k, 1, 32, out, gpu="tiny", mode=mode, cooperative=True)
        finally:
            jitcache.QUIET["on"] = False
        if not (out == np.arange(32)).all():
            raise RuntimeError(f"gpusim warmup: the {mode}-mode check kernel computed a wrong result")
        jitcache.mark_warm(mode)


def warmup(modes=MODES, parallel: bool | None = None) -> float:
    """Compile `modes` (skipping those already cached); seconds spent."""
    todo = [m for m in modes if not jitcache.is_warm(m)]
    t0 = time.perf_counter()
    if not todo:
        return 0.0
    if parallel is None:
        parallel = (os.cpu_count() or 1) > 1 and not os.environ.get("GPUSIM_SERIAL_WARMUP")
    if parallel:
        env = dict(os.environ, GPUSIM_CACHE_DIR=str(jitcache.cache_root()))
        child = subprocess.Popen([sys.executable, "-m", "gpusim.warmup", "--part", "0"], env=env)
        compile_part(1)
        if child.wait() != 0:
            raise RuntimeError("gpusim warmup: the parallel compile process failed")
    _launches(todo)
    return time.perf_counter() - t0


if __name__ == "__main__":      # a parallel part: python -m gpusim.warmup --part N
    compile_part(int(sys.argv[sys.argv.index("--part") + 1]))
