"""gpusim.launch: run a kernel on a simulated GPU, numba.cuda style."""
from __future__ import annotations

import struct
import sys
from dataclasses import dataclass, field

import numpy as np

from gpusim import jitcache
from gpusim.errors import KernelFault, LaunchError
from gpusim.kernels import PTXKernel, numba_kernel
from gpusim.memory.device import DeviceMemory
from gpusim.presets import get_preset
from gpusim.sm.executor import run_grid
from gpusim.sm.results import fault_message, functional_metrics
from gpusim.sm.state import make_mach, make_prog

# warp instructions before the watchdog stops a launch: ~1 minute of functional mode, ~8 of timing
# mode on one core; the largest example program at its default size needs under 40 M
DEFAULT_BUDGET = 200_000_000


@dataclass
class LaunchResult:
    kernel: str
    grid: tuple
    block: tuple
    mode: str
    gpu: str
    metrics: dict = field(default_factory=dict)
    cycles: int = 0
    per_pc: dict = field(default_factory=dict)     # 'warp' / 'thread': arrays indexed by pc
    decoded: object = None
    wall_s: float = 0.0
    timing: object = None

    @property
    def warp_instructions(self) -> int:
        return int(self.metrics["smsp__inst_executed.sum"])

    @property
    def thread_instructions(self) -> int:
        return int(self.metrics["smsp__thread_inst_executed.sum"])


def _dim3(v, what: str) -> tuple:
    if isinstance(v, (int, np.integer)):
        v = (int(v),)
    try:
        t = tuple(int(x) for x in v)
    except (TypeError, ValueError):
        raise LaunchError(f"{what} must be an int or a tuple of 1-3 ints, got {v!r}") from None
    if not 1 <= len(t) <= 3 or any(x < 1 for x in t):
        raise LaunchError(f"{what} must be 1-3 positive ints, got {v!r}")
    return t + (1,) * (3 - len(t))


def _numba_type(a):
    from numba import typeof
    if isinstance(a, np.ndarray):
        return typeof(a)
    if isinstance(a, (bool, np.bool_)):
        return typeof(np.bool_(a))
    if isinstance(a, (int, float, complex, np.generic)):
        return typeof(a)
    raise LaunchError(f"unsupported kernel argument of type {type(a).__name__}: pass numpy arrays or scalars")


def _resolve(kernel, args, signature, fma=False) -> PTXKernel:
    if isinstance(kernel, PTXKernel):
        return kernel
    if not callable(kernel):
        raise LaunchError(f"kernel must be a numba.cuda kernel, a Python function or a PTX kernel, got {kernel!r}")
    if signature is not None:
        sig = signature
        if isinstance(sig, str):         # numba's text form, e.g. "void(float32[::1], int64)"
            from numba.core import sigutils
            try:
                sig = sigutils.normalize_signature(sig)[0]
            except Exception as e:  # noqa: BLE001  (numba raises several kinds for bad text)
                raise LaunchError(f"cannot read signature {signature!r}: {e}") from None
        if hasattr(sig, "args"):
            sig = sig.args
        sig = tuple(sig)
        if len(sig) != len(args):
            raise LaunchError(f"signature has {len(sig)} types but {len(args)} arguments were given")
    else:
        sig = tuple(_numba_type(a) for a in args)
    return numba_kernel(kernel, sig, fma)


def _flatten_args(k: PTXKernel, args, mem: DeviceMemory, copies: list) -> list:
    """Kernel argument values in PTX parameter order, arrays as device pointers (+ numba's descriptor)."""
    numba_style = k.signature is not None
    flat = []
    for idx, a in enumerate(args):
        if isinstance(a, np.ndarray):
            src = a if (a.flags.c_contiguous or a.flags.f_contiguous) else np.ascontiguousarray(a)
            addr = mem.put_array(src)
            copies.append((a, src, addr))
            if numba_style:
                flat += [0, 0, a.size, a.itemsize, addr]
                flat += list(src.shape) + [s for s in src.strides]
            else:
                flat.append(addr)
        elif numba_style:
            t = k.signature[idx]
            if hasattr(t, "ndim"):
                raise LaunchError(f"argument {idx} is {type(a).__name__} but the signature says an array {t}")
            flat.append(np.dtype(str(t)).type(a) if str(t) != "bool" else np.bool_(a))
        else:
            flat.append(a)
    return flat


def _pack_params(k: PTXKernel, values: list) -> np.ndarray:
    d = k.decoded
    buf = bytearray(max(d.param_size, 8))
    if len(values) != len(d.params):
        raise LaunchError(f"kernel '{d.name[:60]}' takes {len(d.params)} parameters, "
                          f"got {len(values)} values")
    for p, v in zip(d.params, values):
        if p.type in ("f32", "f64"):
            data = struct.pack("<f" if p.type == "f32" else "<d", float(v))
        elif p.size <= 8:
            iv = int(v) if not isinstance(v, (float, np.floating)) else int(np.asarray(v).view(
                np.int32 if p.size == 4 else np.int64))
            data = (iv & ((1 << (8 * p.size)) - 1)).to_bytes(p.size, "little")
        else:
            raise LaunchError(f"parameter '{p.name}' of {p.size} bytes (aggregates) is not supported")
        buf[p.offset:p.offset + len(data)] = data
    return np.frombuffer(bytes(buf), np.uint8).copy()


def _max_block(spec) -> int:
    """The most threads one block may have: the per-block limit, and no more than one SM holds."""
    return min(spec.sm.max_threads_per_cta, spec.sm.max_threads, 32 * spec.sm.max_warps)


def _check_regs(regs_per_thread, spec):
    """A user's registers-per-thread override: a positive int no larger than the preset allows."""
    if regs_per_thread is None:
        return
    if isinstance(regs_per_thread, (bool, np.bool_)) or not isinstance(regs_per_thread, (int, np.integer)):
        raise LaunchError(f"regs_per_thread must be an int, got {regs_per_thread!r}")
    if regs_per_thread < 1:
        raise LaunchError(f"regs_per_thread must be at least 1, got {regs_per_thread}")
    if regs_per_thread > spec.sm.max_regs_per_thread:
        raise LaunchError(f"regs_per_thread {regs_per_thread} exceeds the {spec.sm.max_regs_per_thread} "
                          f"registers a thread may use on {spec.name} (sm.max_regs_per_thread)")


MAX_STACK = 512 * 1024     # bytes of local memory a thread may have on sm_90 (and so of call stack)


def _check_stack(stack_size):
    if stack_size is None:
        return
    if isinstance(stack_size, (bool, np.bool_)) or not isinstance(stack_size, (int, np.integer)) \
            or not 0 <= stack_size <= MAX_STACK:
        raise LaunchError(f"stack_size must be a whole number of bytes from 0 to {MAX_STACK}, got {stack_size!r}")


def launch(kernel, grid, block, *args, gpu: str = "h100", mode: str = "timing", shared_mem: int = 0,
           signature=None, max_instructions: int = DEFAULT_BUDGET, fma: bool = False,
           regs_per_thread: int | None = None, stack_size: int | None = None, **opts) -> LaunchResult:
    """Run `kernel[grid, block](*args)` on the simulated GPU `gpu`.

    numpy arrays are copied to simulated device memory and back in place afterwards (as numba.cuda
    does for host arrays). mode: "timing" (the default: results, instruction counters, cycles and
    the timing counters) or "functional" (results and instruction counters only, much faster).
    regs_per_thread overrides the registers-per-thread estimate (timing mode: it sets occupancy).
    stack_size: call-stack bytes per thread for recursive device functions (default 1024, CUDA's
    default cudaLimitStackSize); overflowing it faults with the thread and line named.
    fma (numba kernels): False, the default the public launch contract fixes, keeps separate
    mul.rn/add.rn so float32 results equal numpy's bit for bit; True compiles what numba.cuda runs on
    a GPU (NVVM contracts a*b+c into fma.rn), as the validation suite does.
    """
    import time
    if mode not in ("functional", "timing"):
        raise LaunchError(f"mode must be 'functional' or 'timing', got {mode!r}")
    if not isinstance(max_instructions, (int, np.integer)) or max_instructions < 1:
        raise LaunchError(f"max_instructions must be a positive whole number, got {max_instructions!r}")
    spec = get_preset(gpu) if isinstance(gpu, str) else gpu
    g, b = _dim3(grid, "grid"), _dim3(block, "block")
    nthreads = b[0] * b[1] * b[2]
    if nthreads > _max_block(spec):
        raise LaunchError(f"block of {nthreads} threads exceeds the {_max_block(spec)} allowed per block "
                          f"on {spec.name}")
    if g[1] > 65535 or g[2] > 65535 or g[0] > 2**31 - 1:
        raise LaunchError(f"grid {g} exceeds the limits (2^31-1, 65535, 65535)")
    _check_regs(regs_per_thread, spec)
    _check_stack(stack_size)
    progress = opts.pop("progress", None)
    if opts:
        raise LaunchError(f"unknown launch option(s): {', '.join(sorted(opts))}")
    k = _resolve(kernel, args, signature, fma)
    d = k.decoded
    smem_limit = spec.sm.smem - spec.sm.smem_per_cta_reserved
    if shared_mem < 0 or d.shared_static + shared_mem > smem_limit:
        raise LaunchError(f"a block needs {d.shared_static} bytes of static and {shared_mem} of dynamic shared "
                          f"memory; {spec.name} has {smem_limit} per block at most")
    if mode == "timing" and regs_per_thread is None and d.regs_per_thread > spec.sm.max_regs_per_thread:
        # ptxas never allocates more than the maximum: it spills the rest to local memory. The
        # estimate is capped the same way (the spill traffic itself is not modelled).
        regs_per_thread = spec.sm.max_regs_per_thread
    mem = DeviceMemory(d.globals_size, d.global_inits)
    copies: list = []
    values = _flatten_args(k, args, mem, copies)
    pmem = _pack_params(k, values)
    mem.build()
    cold = not jitcache.is_warm(mode)
    if cold and not jitcache.QUIET["on"]:
        print(f"gpusim: compiling the {mode}-mode simulator core with numba: once per install, about a minute "
              f"(`gpusim warmup` does it ahead of time)", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    if mode == "timing":
        from gpusim.timing.engine import run_timing
        run = run_timing(d, mem, pmem, g, b, spec, shared_mem, max_instructions, regs_per_thread=regs_per_thread,
                         progress=progress, stack_size=stack_size)
        res = LaunchResult(kernel=d.name, grid=g, block=b, mode="timing", gpu=spec.name, decoded=d,
                           metrics=run.metrics, cycles=run.cycles, per_pc=run.per_pc,
                           timing={"occupancy": run.occupancy, "clock_mhz": spec.clock_mhz})
    else:
        res = _run_functional(k, d, mem, pmem, g, b, spec, shared_mem, max_instructions, stack_size)
    res.wall_s = time.perf_counter() - t0
    if cold:
        jitcache.mark_warm(mode)
    for orig, src, addr in copies:
        out = mem.read(addr, src.nbytes).view(src.dtype).reshape(src.shape, order="A" if src.flags.f_contiguous
                                                                  and not src.flags.c_contiguous else "C")
        if src.flags.f_contiguous and not src.flags.c_contiguous:
            out = mem.read(addr, src.nbytes).view(src.dtype).reshape(src.shape, order="F")
        orig[...] = out
    return res


def _run_functional(k, d, mem, pmem, g, b, spec, shared_mem, budget, stack_size=None) -> LaunchResult:
    nthreads = b[0] * b[1] * b[2]
    nwarps = (nthreads + 31) // 32
    P = make_prog(d)
    M = make_mach(d, nwarps, 1, mem.gmem, mem.alo, mem.ahi, pmem, b, g, spec.n_sm, shared_mem, budget,
                  stack_size)
    total = g[0] * g[1] * g[2]
    r = run_grid(P, M, 0, total, 4096)
    if r != 0:
        raise KernelFault(fault_message(d, M, g, b))
    res = LaunchResult(kernel=d.name, grid=g, block=b, mode="functional", gpu=spec.name, decoded=d)
    res.metrics = functional_metrics(M, d)
    res.per_pc = {"warp": M.pc_warp.copy(), "thread": M.pc_thread.copy()}
    return res
