"""gpusim.launch: run a kernel on a simulated GPU, numba.cuda style."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace

import numpy as np

from gpusim import devrt, jitcache, ptxas, sasslisting, sassmap
from gpusim.errors import LaunchBoundsError, LaunchError
from gpusim.isa import opcodes as oc
from gpusim.kernels import PTXKernel, numba_kernel
from gpusim.memory.device import DeviceMemory
from gpusim.params import check_against_signature, flatten_args, numba_type, pack_params
from gpusim.presets import GPUSpec, arch_of, get_preset
from gpusim.sm.executor import run_grid, run_grid_together
from gpusim.sm.pipelines import SLOT
from gpusim.sm.results import functional_metrics
from gpusim.sm.sanitize_report import collect, kernel_fault, parse_checks
from gpusim.sm.state import make_mach, make_prog
from gpusim.spec import check as check_spec

SASS_ORDER = {"on": os.environ.get("GPUSIM_SASS_ORDER", "1") != "0"}     # experiment switch

# warp instructions before the watchdog stops a launch: ~1 minute of functional mode, ~8 of timing
# mode on one core; the largest example program at its default size needs under 40 M
DEFAULT_BUDGET = 200_000_000
REGISTER_ONLY = (oc.C_INT, oc.C_FP32, oc.C_FP64, oc.C_SFU, oc.C_INT64)     # classes that touch no memory
# LaunchResult._repr_html_'s page builder: gpusim/__init__.py registers gpusim.html's, a layer above this one
HTML_RENDERER: list = []


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
    sanitizer: object = None     # with check=...: sm/sanitize_report.py SanitizerResult (reports, totals)
    stdout: str = ""             # what the kernel's printf calls wrote (also printed to sys.stdout)
    symbols: dict = field(default_factory=dict)   # read_symbols=[...]: module .global variable -> bytes after
    events: object = None        # events=...: gpusim/timing/events.py Events (timing mode), else None

    def _repr_html_(self) -> str | None:
        """Jupyter shows a launch as its HTML report (gpusim.html), once a renderer is registered."""
        return HTML_RENDERER[0](self) if HTML_RENDERER else None

    @property
    def hazards(self) -> list:
        """racecheck's distinct hazards (empty without check="racecheck")."""
        return self.sanitizer.hazards if self.sanitizer else []

    @property
    def warp_instructions(self) -> int:
        return int(self.metrics["smsp__inst_executed.sum"])

    @property
    def thread_instructions(self) -> int:
        return int(self.metrics["smsp__thread_inst_executed.sum"])


# sm_90's limits (CUDA C Programming Guide, technical specifications per compute capability)
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _dim3(v, what: str) -> tuple:
    """A grid or block as 3 positive ints; anything else (a float, a bool, a string, too many
    dimensions) is refused rather than converted."""
    if _is_int(v):
        v = (v,)
    if not isinstance(v, (tuple, list)) or not all(_is_int(x) for x in v):
        raise LaunchError(f"{what} must be an int or a tuple of 1-3 ints, got {v!r}")
    t = tuple(int(x) for x in v)
    if not 1 <= len(t) <= 3 or any(x < 1 for x in t):
        raise LaunchError(f"{what} must be 1-3 positive ints, got {v!r}")
    return t + (1,) * (3 - len(t))


def _check_dims(t: tuple, what: str) -> None:
    top = MAX_BLOCK_DIM if what == "block" else MAX_GRID_DIM
    if any(x > m for x, m in zip(t, top)):
        raise LaunchError(f"{what} {t} exceeds the largest {what} dimensions {top}")


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
        for i, (t, a) in enumerate(zip(sig, args)):
            check_against_signature(i, t, a)
    else:
        sig = tuple(numba_type(a) for a in args)
    return numba_kernel(kernel, sig, fma)


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
           regs_per_thread: int | None = None, stack_size: int | None = None, cooperative: bool = False,
           check=None, events: bool | int = False, **opts) -> LaunchResult:
    """Run `kernel[grid, block](*args)` on the simulated GPU `gpu`.

    numpy arrays are copied to simulated device memory and back in place afterwards (as numba.cuda
    does for host arrays). mode: "timing" (the default: results, instruction counters, cycles and
    the timing counters) or "functional" (results and instruction counters only, much faster).
    regs_per_thread overrides the registers-per-thread estimate (timing mode: it sets occupancy).
    stack_size: call-stack bytes per thread for recursive device functions (default 4096: CUDA's
    default cudaLimitStackSize is 1024, and gpusim's frames of PTX registers are larger than
    ptxas's); overflowing it faults with the thread and line named.
    cooperative: a cooperative launch (cudaLaunchCooperativeKernel; numba makes one for kernels that
    use cuda.cg.this_grid().sync()): every block resident at once, refused when the grid does not fit.
    fma (numba kernels): False, the default the public launch contract fixes, keeps separate
    mul.rn/add.rn so float32 results equal numpy's bit for bit; True compiles what numba.cuda runs on
    a GPU (NVVM contracts a*b+c into fma.rn), as the validation suite does.
    check: sanitizers, as compute-sanitizer's --tool: "racecheck", "synccheck", "memcheck" (always on),
    "all", or several ("racecheck,synccheck" or a tuple); the reports are in `result.sanitizer`.
    events (timing mode): record what happened when into `result.events` (gpusim/timing/events.py):
    True samples warp states every EVENTS_INTERVAL cycles to start with, an int every that many cycles
    (intervals merge, and requests are sampled, to stay within fixed caps).
    """
    if mode not in ("functional", "timing"):
        raise LaunchError(f"mode must be 'functional' or 'timing', got {mode!r}")
    if not _is_int(max_instructions) or max_instructions < 1:
        raise LaunchError(f"max_instructions must be a positive whole number, got {max_instructions!r}")
    if not _is_int(shared_mem):
        raise LaunchError(f"shared_mem must be a whole number of bytes, got {shared_mem!r}")
    spec = get_preset(gpu) if isinstance(gpu, str) else gpu
    if not isinstance(spec, GPUSpec):
        raise LaunchError(f"gpu must be a preset name, a .toml file or a GPUSpec, got {gpu!r}")
    check_spec(spec)
    g, b = _dim3(grid, "grid"), _dim3(block, "block")
    nthreads = b[0] * b[1] * b[2]
    if nthreads > _max_block(spec):
        raise LaunchError(f"block of {nthreads} threads exceeds the {_max_block(spec)} allowed per block "
                          f"on {spec.name}")
    _check_dims(b, "block")
    _check_dims(g, "grid")
    _check_regs(regs_per_thread, spec)
    _check_stack(stack_size)
    checks = parse_checks(check)
    progress = opts.pop("progress", None)
    read_symbols = tuple(opts.pop("read_symbols", ()))
    cluster_opt = opts.pop("cluster", None)
    model = opts.pop("model", "ptx")
    if model not in ptxas.MODELS:
        raise LaunchError(f"model must be one of {', '.join(ptxas.MODELS)}, got {model!r}")
    if opts:
        raise LaunchError(f"unknown launch option(s): {', '.join(sorted(opts))}")
    k = _resolve(kernel, args, signature, fma)
    d = k.decoded
    _check_launch_bounds(d, b)
    cluster = _cluster_dims(cluster_opt, d, g, spec, cooperative)
    if cooperative:
        _check_cooperative(d, spec, g, b, shared_mem, regs_per_thread)
    smem_limit = spec.sm.smem - spec.sm.smem_per_cta_reserved
    if shared_mem < 0 or d.shared_static + shared_mem > smem_limit:
        raise LaunchError(f"a block needs {d.shared_static} bytes of static and {shared_mem} of dynamic shared "
                          f"memory; {spec.name} has {smem_limit} per block at most")
    sass, smap, slots = None, None, None
    if model == "sass" and mode == "timing":
        # ptxas's resources for this kernel (gpusim/ptxas.py): its register count sets occupancy
        limit = ptxas.register_limit(k.max_registers)     # numba's max_registers, applied as the driver does
        sass = ptxas.resources(k.module.text, ptxas.arch_for(arch_of(spec), k.module.text), limit).get(k.name)
        if sass is None:
            raise LaunchError(f"ptxas reported no entry function '{k.name}' (model='sass')")
        if regs_per_thread is None:
            # occupancy as the GPU's own compile of the kernel gives it (a numba kernel: without line info)
            sass = replace(sass, registers=_device_registers(k, sass.registers,
                                                             ptxas.arch_for(arch_of(spec), k.module.text), limit))
            regs_per_thread = sass.registers
        # what ptxas made of each PTX instruction (gpusim/sassmap.py): the SASS instructions it issues as
        smap = sassmap.weights(k.module.text, ptxas.arch_for(arch_of(spec), k.module.text), limit)
        if SASS_ORDER["on"]:
            # each basic block issues in ptxas's order (isa/schedule.py, sass_order); a kernel ptxas compiled
            # short of registers keeps each load's store next to it (no loads held in flight)
            d = k.decoded_sass_order(smap.rank, sass.spill_stores == 0)
        elif sass.spill_stores > 0:
            d = k.decoded_stores_kept
        per_pc = sassmap.pc_weights(smap, d.ins[:, oc.F_LINE])
        # (pc, 20): slots, ALU, FMA, aggregated flag, spill loads, spill stores (x SLOT but the flag), and
        # the bytes per lane of the vector shared load ptxas made of the line (0: none; -1: a line with no SASS
        # of its own, a load of it merged into another line's vector load)
        slots = np.rint(per_pc * SLOT).astype(np.int64)
        slots[:, 3] = per_pc[:, 3] > 0
        slots[:, 6] = np.where(slots[:, 0] == 0, -1, per_pc[:, 6])
        slots[:, 8] = per_pc[:, 8] > 0      # 7: ptxas's stall cycles (x SLOT); 8: the line's SASS yields
        slots[:, 9:11] = per_pc[:, 9:11]    # the read barriers the line's SASS sets and waits on (bit masks)
        slots[:, 11] = per_pc[:, 11]        # the constant-bank blocks its ULDCs read first (bit mask, sm/fetch.py)
        # 12: its MUFU instructions (x SLOT): the SFU pipe's share of the line's SASS
        slots[:, 13] = per_pc[:, 13] > 0    # the line opens a join: its SASS holds a BSYNC
        # 14: the cycles (x SLOT) its SASS waits on its own xu results beyond the stall cycles
        # 15: the cycles (x SLOT) its SASS holds the sub-partition's dispatch after it (an IMAD.HI's)
        # 16: the cycles (x SLOT) such a hold is only sampled (an IMAD.WIDE's)
        # 17: at a branch, the SASS instructions (x SLOT) of the block ptxas predicated instead of jumping over it
        # 18: its uniform-datapath pipe cycles (x SLOT)
        # 19: the cycles (x SLOT) its register reads hold the other warps' dispatch (register-bank conflicts)
        # 20: 1 where a warp gone on past a bar.sync may issue it before the barrier completes
        defer = spec.pipes.barrier_defer * np.isin(d.ins[:, oc.F_CLASS], REGISTER_ONLY)
        # 21, 22: at such a branch, the block's shared accesses and dependent load steps, which a warp that jumps
        # over it issues with no lane on (memory/shared_banks.py idle_accesses)
        slots = np.column_stack([slots, sasslisting.deferred_pcs(smap.opcodes, d.ins[:, oc.F_LINE], defer),
                                 sassmap.predicated_shared_pcs(smap, d.ins[:, oc.F_LINE])])
    if mode == "timing" and regs_per_thread is None and d.regs_per_thread > spec.sm.max_regs_per_thread:
        # ptxas never allocates more than the maximum: it spills the rest to local memory. The
        # estimate is capped the same way (the PTX model does not time the spill traffic; the SASS model does).
        regs_per_thread = spec.sm.max_regs_per_thread
    _check_capacity(d, args, spec)
    mem = DeviceMemory(d.globals_size, d.global_inits)
    copies: list = []
    values = flatten_args(k, args, mem, copies)
    pmem = pack_params(k, values)
    try:
        res = _run(k, d, mem, pmem, g, b, spec, mode, shared_mem, max_instructions, regs_per_thread, progress,
                   copies, stack_size, cooperative, checks, cluster, _events_interval(events), slots,
                   sass.spill_stores if sass is not None else 0)
    except MemoryError:
        raise LaunchError(f"this machine has not the memory to simulate this launch on {spec.name} "
                          f"(device memory {mem.size} B, local memory {d.local_size} B per thread)") from None
    _device_output(res, d, mem, read_symbols)
    if res.timing is not None:
        res.timing["model"] = model if sass is not None else "ptx"
        if sass is not None:
            res.timing["ptxas"] = sass          # registers, spill bytes, stack (the SASS model)
            res.timing["sass_map"] = {"sass_instructions": smap.total, "unmapped": smap.unmapped,
                                      "spill_lines": dict(smap.spill_lines), "tools": smap.tools}
    return res


def _device_output(res, d, mem, read_symbols) -> None:
    """After the kernel: its printf output, formatted on the host and written to stdout as the driver
    does at the end of a launch, and the module variables asked for."""
    for name in read_symbols:
        if name not in d.global_symbols:
            raise LaunchError(f"read_symbols: the module has no .global variable '{name}'")
        addr, size = d.global_symbols[name]
        res.symbols[name] = bytes(mem.read(addr, size))
    if "__gpusim_printf_top" not in d.global_symbols:
        return
    top = int.from_bytes(bytes(mem.read(d.global_symbols["__gpusim_printf_top"][0], 8)), "little")
    text, lost = devrt.printf_records(mem.read, d.global_symbols["__gpusim_printf_fifo"][0], top, d.const_bytes)
    res.stdout = text
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()
    if lost:
        print(f"gpusim: printf output of {lost} bytes was lost: the kernel wrote more than the "
              f"{devrt.FIFO_BYTES}-byte printf FIFO holds (as on the GPU)", file=sys.stderr)


def _cluster_dims(opt, d, g, spec, cooperative):
    """(cluster dims, explicit): from launch(cluster=...) or the kernel's .reqnctapercluster; (1, 1, 1),
    False without clusters. The driver's rules: the grid is whole clusters, at most max_cluster CTAs."""
    req = d.directives.get("reqnctapercluster")
    req = tuple(int(x) for x in req) + (1,) * (3 - len(req)) if req else None
    if opt is None and req is None:
        if "explicitcluster" in d.directives:
            raise LaunchError("the kernel is compiled for thread-block clusters (.explicitcluster): launch it "
                              "with cluster=(x, y, z)")
        return (1, 1, 1), False
    cl = _dim3(opt, "cluster") if opt is not None else req
    if req is not None and cl != req:
        raise LaunchError(f"cluster={cl}: the kernel requires clusters of {req} CTAs (.reqnctapercluster)")
    n = cl[0] * cl[1] * cl[2]
    if n > spec.gigathread.max_cluster:
        raise LaunchError(f"a cluster of {n} CTAs exceeds the {spec.gigathread.max_cluster} {spec.name} allows "
                          "(gigathread.max_cluster" + ("; no clusters before sm_90)" if spec.gigathread.max_cluster
                                                       == 1 else ", the portable cluster size)"))
    if any(gd % c for gd, c in zip(g, cl)):
        raise LaunchError(f"grid {g} is not a whole number of clusters of {cl} in every dimension")
    if cooperative and n > 1:
        raise LaunchError("a cooperative launch with clusters is not simulated (launch one or the other)")
    return cl, True


def _device_registers(k, lined: int, arch: str, limit: tuple = ()) -> int:
    """Registers per thread ptxas gives the PTX a GPU runs for kernel k (PTXKernel.device_ptx): for a numba
    kernel, numba's compile without line info. `lined`: the launched (line-info) PTX's, kept where that
    compile fails or ptxas reports no single entry in it."""
    try:
        text = k.device_ptx()
    except Exception:       # noqa: BLE001 - NVVM failing here leaves the launched PTX's count, not an error
        return lined
    if text == k.module.text:
        return lined
    try:
        found = ptxas.resources(text, arch, limit)
    except LaunchError:
        return lined
    return next(iter(found.values())).registers if len(found) == 1 else lined


def _check_launch_bounds(d, b) -> None:
    """A kernel compiled with .maxntid (launch bounds) cannot run a larger block; one with .reqntid
    runs only that block shape: the driver refuses either launch (CUDA_ERROR_INVALID_VALUE)."""
    n = b[0] * b[1] * b[2]
    mx = [int(x) for x in d.directives.get("maxntid", [])]
    if mx and n > int(np.prod(mx)):
        raise LaunchBoundsError(f"CUDA_ERROR_INVALID_VALUE: a block of {n} threads exceeds the kernel's launch "
                                f"bounds (.maxntid {', '.join(map(str, mx))}: {int(np.prod(mx))} threads)")
    req = [int(x) for x in d.directives.get("reqntid", [])]
    if req and tuple(req + [1] * (3 - len(req))) != tuple(b):
        raise LaunchBoundsError(f"CUDA_ERROR_INVALID_VALUE: the kernel requires blocks of {tuple(req)} threads "
                                f"(.reqntid), got {tuple(b)}")


def _check_capacity(d, args, spec) -> None:
    """Module variables and argument arrays must fit the preset's device memory (dram.capacity)."""
    need = d.globals_size + sum(a.nbytes for a in args if isinstance(a, np.ndarray))
    if need > spec.dram.capacity:
        raise LaunchError(f"the launch needs {need} bytes of device memory ({d.globals_size} of .global "
                          f"variables); {spec.name} has {spec.dram.capacity} (dram.capacity)")


EVENTS_INTERVAL = 32      # cycles between warp-state samples with events=True (merged as the run grows)


def _events_interval(events) -> int:
    if events is True:
        return EVENTS_INTERVAL
    if events is False or events is None:
        return 0
    if not isinstance(events, int) or events < 1:
        raise LaunchError(f"events must be True, False or an interval of at least 1 cycle, got {events!r}")
    return int(events)


def _run(k, d, mem, pmem, g, b, spec, mode, shared_mem, max_instructions, regs_per_thread, progress, copies,
         stack_size, cooperative, checks, cluster, events=0, slots=None, spill_bytes=0):
    import time
    mem.build()
    cold = not jitcache.is_warm(mode)
    if cold and not jitcache.QUIET["on"]:
        print(f"gpusim: compiling the {mode}-mode simulator core with numba: once per install, a few minutes "
              f"(`gpusim warmup` does it ahead of time)", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    if mode == "timing":
        from gpusim.timing.engine import run_timing
        run = run_timing(d, mem, pmem, g, b, spec, shared_mem, max_instructions, regs_per_thread=regs_per_thread,
                         progress=progress, stack_size=stack_size, checks=checks, cluster=cluster,
                         events=events, slots=slots, spill_bytes=spill_bytes)
        res = LaunchResult(kernel=d.name, grid=g, block=b, mode="timing", gpu=spec.name, decoded=d,
                           metrics=run.metrics, cycles=run.cycles, per_pc=run.per_pc,
                           timing={"occupancy": run.occupancy, "clock_mhz": spec.clock_mhz},
                           sanitizer=run.sanitizer, events=run.events)
    else:
        res = _run_functional(k, d, mem, pmem, g, b, spec, shared_mem, max_instructions, stack_size, cooperative,
                              checks, cluster)
    res.wall_s = time.perf_counter() - t0
    if cold:
        jitcache.mark_warm(mode)
    for orig, src, addr in copies:
        if isinstance(orig, np.void):      # a record argument: its fields take the kernel's writes
            back = mem.read(addr, src.nbytes).view(orig.dtype)[0]
            for name in orig.dtype.names or ():
                orig[name] = back[name]
            continue
        out = mem.read(addr, src.nbytes).view(src.dtype).reshape(src.shape, order="A" if src.flags.f_contiguous
                                                                  and not src.flags.c_contiguous else "C")
        if src.flags.f_contiguous and not src.flags.c_contiguous:
            out = mem.read(addr, src.nbytes).view(src.dtype).reshape(src.shape, order="F")
        orig[...] = out
    return res


def _check_cooperative(d, spec, g, b, shared_mem, regs_per_thread):
    from gpusim.timing.occupancy import occupancy
    total = g[0] * g[1] * g[2]
    nthreads = b[0] * b[1] * b[2]
    occ = occupancy(spec, nthreads, regs_per_thread or min(d.regs_per_thread, spec.sm.max_regs_per_thread),
                    d.shared_static + shared_mem, total)
    fit = occ.ctas_per_sm * spec.n_sm
    if total > fit:
        raise LaunchError(f"a cooperative launch of {total} blocks does not fit on {spec.name}: at most {fit} "
                          f"({occ.ctas_per_sm} per SM x {spec.n_sm} SMs, limited by {occ.limiter}) can be resident "
                          "at once, as cudaLaunchCooperativeKernel requires (cudaErrorCooperativeLaunchTooLarge)")


def _run_functional(k, d, mem, pmem, g, b, spec, shared_mem, budget, stack_size=None,
                    cooperative=False, checks=(0, ()), cluster=((1, 1, 1), False)) -> LaunchResult:
    nthreads = b[0] * b[1] * b[2]
    nwarps = (nthreads + 31) // 32
    total = g[0] * g[1] * g[2]
    ncl = cluster[0][0] * cluster[0][1] * cluster[0][2]
    together = total if cooperative else ncl      # CTAs resident at once
    P = make_prog(d)
    M = make_mach(d, nwarps * together, together, mem.gmem, mem.alo, mem.ahi, pmem, b, g, spec.n_sm, shared_mem,
                  budget, stack_size, checks=checks[0], cluster=cluster[0], explicit_cluster=cluster[1])
    r = run_grid_together(P, M, total, 256) if cooperative else run_grid(P, M, 0, total // ncl, 4096)
    if r != 0:
        raise kernel_fault(d, M, g, b, checks[1])
    res = LaunchResult(kernel=d.name, grid=g, block=b, mode="functional", gpu=spec.name, decoded=d)
    res.metrics = functional_metrics(M, d)
    res.per_pc = {"warp": M.pc_warp.copy(), "thread": M.pc_thread.copy()}
    res.sanitizer = collect(d, M, b, checks[1])
    return res
