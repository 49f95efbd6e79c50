"""What the drop-in changes inside numba-cuda, and how it undoes it.

numba-cuda needs a GPU at three points: the compute capability it compiles for (asked of the
driver), the memory and streams of its host API, and the kernel launch. Each is replaced here; its
compiler, typing and code generation stay exactly as they are, so gpusim runs the PTX numba-cuda
itself produces (with NVVM's defaults, floating-point contraction included, as on the GPU).
"""
from __future__ import annotations

from gpusim.dropin import arrays, streams
from gpusim.dropin.linking import CC, ptx_kernel


class SimDevice:
    """What numba's get_current_device() returns: the simulated GPU."""

    def __init__(self, settings):
        self._settings = settings
        self.id = 0
        self.compute_capability = CC[:2]
        self.uuid = "GPU-gpusim"
        self.supports_float16 = True        # sm_90 has both
        self.supports_bfloat16 = True
        self.supports_fp8 = True            # sm_89 and later

    @property
    def name(self) -> bytes:
        return f"gpusim {self._spec().name}".encode()

    def _spec(self):
        from gpusim.presets import get_preset
        g = self._settings["gpu"]
        return get_preset(g) if isinstance(g, str) else g

    def __getattr__(self, attr):
        sm = self._spec().sm
        table = {"MULTIPROCESSOR_COUNT": self._spec().n_sm, "MAX_THREADS_PER_BLOCK": sm.max_threads_per_cta,
                 "WARP_SIZE": 32, "MAX_SHARED_MEMORY_PER_BLOCK": sm.smem - sm.smem_per_cta_reserved,
                 "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024, "MAX_BLOCK_DIM_Z": 64,
                 "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535, "MAX_GRID_DIM_Z": 65535,
                 "COMPUTE_CAPABILITY_MAJOR": CC[0], "COMPUTE_CAPABILITY_MINOR": CC[1],
                 "MAX_REGISTERS_PER_BLOCK": sm.regs, "CLOCK_RATE": int(self._spec().clock_mhz * 1000)}
        if attr in table:
            return table[attr]
        raise AttributeError(f"gpusim's simulated device has no attribute {attr!r}")

    def get_primary_context(self):
        return SimContext(self)

    def reset(self):
        pass


class SimContext:
    def __init__(self, device):
        self.device = device

    def get_memory_info(self):
        total = 80 << 30
        return total, total

    def synchronize(self):
        pass

    def reset(self):
        pass

    def create_stream(self):
        return streams.stream()

    def create_event(self, timing=True):
        return streams.event(timing)

    @property
    def memory_manager(self):
        return None


def _host_value(kernel, ty, val):
    """An argument as gpusim takes it: numba's argument extensions applied, then cuda.In (copied to
    the device only), cuda.Out / cuda.InOut (copied back) unwrapped, as numba's launch does."""
    import numpy as np
    from numba.cuda import args as hints
    for ext in getattr(kernel, "extensions", None) or ():
        ty, val = ext.prepare_args(ty, val, stream=0, retr=[])
    _sentry_contiguous(val.value if isinstance(val, hints.ArgHint) else val)
    if isinstance(val, hints.In):
        v = val.value
        return v.copy() if isinstance(v, np.ndarray) else v
    if isinstance(val, hints.ArgHint):
        return val.value
    return val


def _launch_fn(settings, record):
    def launch(self, args, griddim, blockdim, stream=0, sharedmem=0):
        from gpusim.launch import launch as gpusim_launch
        k = ptx_kernel(self)
        args = [_host_value(self, t, v) for t, v in zip(self.argument_types, args)]
        syms = _exception_symbols(k.decoded.name) if self.debug else ()
        from gpusim.errors import LaunchBoundsError
        try:
            res = gpusim_launch(k, griddim, blockdim, *args, gpu=settings["gpu"], mode=settings["mode"],
                                shared_mem=int(sharedmem), cooperative=bool(getattr(self, "cooperative", False)),
                                read_symbols=syms)
        except LaunchBoundsError as e:      # what numba-cuda raises when the driver refuses the launch
            from cuda.core._utils.cuda_utils import CUDAError
            raise CUDAError(str(e)) from e
        streams.advance(res)
        record(res)
        if self.debug:
            _raise_kernel_exception(self, res)
    return launch


def _exception_symbols(entry: str) -> tuple:
    """The module variables a debug kernel records an exception in (numba's `<entry>__errcode__`, and
    the thread and block that raised it)."""
    return (f"{entry}__errcode__",) + tuple(f"{entry}__{w}{d}__" for w in ("tid", "ctaid") for d in "zyx")


def _raise_kernel_exception(kernel, res):
    """Raise what the kernel raised, as numba's launch does after a debug kernel: the exception class
    and arguments the kernel's error code names, prefixed with the source line and thread."""
    import os
    vals = {n: int.from_bytes(b[:4], "little", signed=True) for n, b in res.symbols.items()}
    entry = res.decoded.name
    code = vals.get(f"{entry}__errcode__", 0)
    if code == 0:
        return
    tid = [vals[f"{entry}__tid{d}__"] for d in "zyx"]
    ctaid = [vals[f"{entry}__ctaid{d}__"] for d in "zyx"]
    exccls, exc_args, loc = kernel.call_helper.get_exception(code)
    locinfo = "" if loc is None else "In function %r, file %s, line %s, " % (loc[0], os.path.abspath(loc[1]), loc[2])
    prefix = "%stid=%s ctaid=%s" % (locinfo, tid, ctaid)
    exc_args = (("%s: %s" % (prefix, exc_args[0]),) + tuple(exc_args[1:])) if exc_args else (prefix,)
    raise exccls(*exc_args)


def _forall_block_fn(settings):
    def block_size(self, dispatcher):
        """ForAll's block size when none is given: the largest that reaches the most resident warps
        per SM for this kernel (what the driver's cuOccupancyMaxPotentialBlockSize finds)."""
        if self.thread_per_block:
            return self.thread_per_block
        from gpusim.presets import get_preset
        from gpusim.timing.occupancy import occupancy
        spec = get_preset(settings["gpu"]) if isinstance(settings["gpu"], str) else settings["gpu"]
        d = ptx_kernel(next(iter(dispatcher.overloads.values()))).decoded
        regs = min(d.regs_per_thread, spec.sm.max_regs_per_thread)
        best, best_warps = 32, -1
        for tpb in range(min(1024, spec.sm.max_threads_per_cta), 0, -32):
            occ = occupancy(spec, tpb, regs, d.shared_static + int(self.sharedmem), 1)
            warps = occ.ctas_per_sm * occ.warps_per_cta
            if warps > best_warps:
                best, best_warps = tpb, warps
        return best
    return block_size


def _auto_device(obj, stream=0, copy=True, user_explicit=False):
    """numba's auto_device: (device array, whether it is new) for an array-like or scalar."""
    if isinstance(obj, arrays.DeviceArray):
        return obj, False
    _sentry_contiguous(obj)
    return arrays.to_device(obj, stream=stream, copy=copy), True


def _sentry_contiguous(obj):
    """numba copies a host array to the device as one block: a non-contiguous one is refused with
    numba's ValueError (gpusim's launch would copy it, which numba on a GPU does not)."""
    import numpy as np
    from numba.cuda.cudadrv.devicearray import sentry_contiguous
    if isinstance(obj, np.ndarray) and not isinstance(obj, arrays.DeviceArray):
        sentry_contiguous(obj)


def _needs_driver(self, *args, **kwargs):
    from gpusim.errors import GpusimError
    raise GpusimError("loading compiled machine code into a CUDA context (get_cufunc) needs the CUDA driver; "
                      "gpusim runs kernels through their launch instead")


class Patcher:
    """Sets attributes and remembers what they were."""

    def __init__(self):
        self.saved: list = []

    def set(self, obj, name, value):
        self.saved.append((obj, name, obj.__dict__.get(name, _MISSING) if isinstance(obj, type)
                           else getattr(obj, name, _MISSING)))
        setattr(obj, name, value)

    def undo(self):
        for obj, name, old in reversed(self.saved):
            if old is _MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, old)
        self.saved.clear()


_MISSING = object()


def _api(settings) -> dict:
    dev = SimDevice(settings)
    ctx = SimContext(dev)
    return {
        "to_device": arrays.to_device, "device_array": arrays.device_array,
        "device_array_like": arrays.device_array_like, "pinned_array": arrays.host_array,
        "pinned_array_like": arrays.host_array_like, "mapped_array": arrays.host_array,
        "mapped_array_like": arrays.host_array_like, "managed_array": arrays.host_array,
        "is_cuda_array": arrays.is_cuda_array, "as_cuda_array": arrays.as_cuda_array,
        "pinned": arrays.pinned, "mapped": arrays.mapped,
        "stream": streams.stream, "default_stream": streams.default_stream,
        "legacy_default_stream": streams.default_stream, "per_thread_default_stream": streams.default_stream,
        "external_stream": streams.external_stream, "event": streams.event,
        "event_elapsed_time": streams.event_elapsed_time,
        "synchronize": lambda: None, "get_current_device": lambda: dev, "current_context": lambda *a, **k: ctx,
        "select_device": lambda i: dev, "list_devices": lambda: [dev], "close": lambda: None,
        "is_available": lambda: True, "detect": lambda: True,
    }


def apply(settings, record) -> Patcher:
    import numba.cuda as cuda
    from numba.cuda import api, codegen, compiler, dispatcher
    from numba.cuda.cudadrv import devices, driver
    p = Patcher()
    table = _api(settings)
    for mod in (cuda, api):
        for name, fn in table.items():
            p.set(mod, name, fn)
    dev = table["get_current_device"]
    for mod in (dispatcher, compiler):
        p.set(mod, "get_current_device", dev)
    p.set(devices, "get_context", table["current_context"])
    p.set(codegen.CUDACodeLibrary, "_ensure_cc", lambda self, cc: cc if cc is not None else CC)
    p.set(codegen.JITCUDACodegen, "magic_tuple", lambda self: ("gpusim", CC))
    p.set(driver, "_to_core_stream", lambda s: s)
    from numba.cuda.cudadrv import devicearray
    p.set(devicearray, "auto_device", _auto_device)
    p.set(dispatcher._Kernel, "launch", _launch_fn(settings, record))
    p.set(dispatcher._Kernel, "bind", lambda self: None)      # loading a module needs the driver
    p.set(dispatcher.ForAll, "_compute_thread_per_block", _forall_block_fn(settings))
    p.set(codegen.CUDACodeLibrary, "get_cufunc", _needs_driver)
    return p
