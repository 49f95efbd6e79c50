"""Compile a @triton.jit function on the CPU for a gpusim preset's architecture, as Triton's own
launcher would on that GPU: the same argument specialisation (Triton's `native_specialize_impl`:
ints equal to 1 become constexprs, ints and pointers divisible by 16 get `tt.divisibility`), the same
options, `triton.compile` for `GPUTarget("cuda", arch, 32)`; the PTX it emits is loaded with gpusim's
PTXModule. Compiled kernels are cached per (function, specialisation, options, target).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpusim.errors import GpusimError, LaunchError
from gpusim.isa.spaces import ALLOC_ALIGN
from gpusim.kernels import PTXKernel, PTXModule
from gpusim.presets import ARCH, arch_of  # noqa: F401  (re-exported: gpusim.triton.arch_of)

INSTALL_HINT = "pip install gpusim[triton]"

# numpy dtype -> triton.language dtype name (what Triton reads from a torch tensor's dtype)
NP_TO_TL = {"float32": "float32", "float16": "float16", "float64": "float64", "int8": "int8", "int16": "int16",
            "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
            "uint64": "uint64", "bool": "int1"}

_CACHE: dict = {}
_BINDERS: dict = {}


def triton_module():
    """The triton package, or a GpusimError that says how to install it."""
    try:
        import triton
    except ImportError:
        raise GpusimError(f"running Triton kernels needs Triton, which is not installed: {INSTALL_HINT}") from None
    return triton


class Reinterpreted:
    """A numpy array whose bits a kernel reads as another Triton dtype of the same width (what
    `triton.reinterpret(tensor, dtype)` makes of a torch tensor): fp8 and bf16 data, which numpy has
    no dtype for, kept as uint8/uint16 arrays. Made by `gpusim.triton.reinterpret`; the launch passes
    (and updates) `base`."""

    def __init__(self, base: np.ndarray, dtype):
        self.base, self.dtype = base, dtype

    def __repr__(self):
        return f"reinterpret({self.base.dtype}[{'x'.join(map(str, self.base.shape))}] as {self.dtype})"


def reinterpret(array, dtype) -> Reinterpreted:
    """`array`'s bits seen by the kernel as Triton dtype `dtype` (a triton.language dtype or its name:
    "float8e4nv", "float8e5", "bfloat16", ...), e.g. reinterpret(bits_uint8, tl.float8e4nv) for an fp8
    pointer. The widths must agree; the launch reads and updates `array` in place."""
    if isinstance(array, Reinterpreted):
        array = array.base
    if not isinstance(array, np.ndarray):
        raise LaunchError(f"reinterpret takes a numpy array, got {type(array).__name__}")
    from triton import language as tl
    tl_dtype = getattr(tl, dtype, None) if isinstance(dtype, str) else dtype
    if not isinstance(tl_dtype, tl.dtype):
        raise LaunchError(f"reinterpret: {dtype!r} is no triton.language dtype (e.g. tl.float8e4nv or 'float8e4nv')")
    if tl_dtype.primitive_bitwidth != 8 * array.itemsize:
        raise LaunchError(f"reinterpret: {tl_dtype.name} is {tl_dtype.primitive_bitwidth} bits wide but the "
                          f"array's {array.dtype} elements are {8 * array.itemsize}")
    return Reinterpreted(array, tl_dtype)


class ArrayArg:
    """What Triton's specialiser sees for a numpy array: a tensor of its dtype at an address aligned as
    gpusim allocates (ALLOC_ALIGN bytes, so divisible by 16, as cudaMalloc's)."""

    def __init__(self, dtype):
        self.dtype = dtype

    @staticmethod
    def data_ptr():
        return ALLOC_ALIGN


@dataclass
class TritonKernel:
    """One compiled specialisation: the gpusim kernel, Triton's metadata and the parameter layout."""
    kernel: PTXKernel
    metadata: object          # Triton's KernelMetadata (num_warps, shared, global_scratch_size, ...)
    signature: dict           # parameter name -> Triton type ("*fp32", "i32", "constexpr", ...)
    asm: dict                 # Triton's artifacts: ttir, ttgir, llir, ptx (and cubin)

    @property
    def ptx(self) -> str:
        return self.asm["ptx"]

    @property
    def num_warps(self) -> int:
        return int(self.metadata.num_warps)

    @property
    def shared(self) -> int:
        return int(self.metadata.shared)


def _contiguous(a: np.ndarray, what: str) -> None:
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        raise LaunchError(f"{what} is a non-contiguous view: its strides would not hold in "
                          "the device copy; pass np.ascontiguousarray(...) and its strides")


def host_arg(a, what: str):
    """An argument as Triton's specialiser takes it: arrays as ArrayArg, numpy scalars as Python ones."""
    from triton import language as tl

    from gpusim.triton.descriptors import host_view, is_descriptor
    if is_descriptor(a):
        return host_view(a, host_arg)
    if isinstance(a, Reinterpreted):
        _contiguous(a.base, what)
        return ArrayArg(a.dtype)
    if isinstance(a, np.ndarray):
        tl_name = NP_TO_TL.get(a.dtype.name)
        if tl_name is None:
            raise LaunchError(f"{what}: numpy arrays of dtype {a.dtype} have no Triton pointer type (supported: "
                              f"{', '.join(NP_TO_TL)}; others as bits: gpusim.triton.reinterpret(array, tl_dtype))")
        _contiguous(a, what)
        return ArrayArg(getattr(tl, tl_name))
    if isinstance(a, np.bool_):
        return bool(a)
    if isinstance(a, np.integer):
        return int(a)
    if isinstance(a, np.floating):
        return float(a)
    if isinstance(a, tuple):
        return tuple(host_arg(x, what) for x in a)
    return a


def _binder(fn, backend, arch):
    key = (fn, arch)
    if key not in _BINDERS:
        from triton.runtime.jit import create_function_from_signature
        _BINDERS[key] = create_function_from_signature(fn.signature, fn.params, backend)
    return _BINDERS[key]


def _backend(arch: int):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    target = GPUTarget("cuda", arch, 32)
    return target, make_backend(target)


def specialise(fn, args: tuple, kwargs: dict, arch: int):
    """Bind the call as Triton does: (bound arguments by name, specialisation list, the target and
    backend). Wrong argument counts and unknown keywords are LaunchErrors."""
    target, backend = _backend(arch)
    names = [p.name for p in fn.params]
    wrapped = [host_arg(a, f"argument {i} ('{names[i]}')" if i < len(names) else f"argument {i}")
               for i, a in enumerate(args)]
    kw = {k: host_arg(v, f"argument '{k}'") for k, v in kwargs.items()}
    try:
        bound, spec, _ = _binder(fn, backend, arch)(*wrapped, **kw)
    except TypeError as e:
        msg = str(e).replace("dynamic_func()", f"'{fn.__name__}'")
        if "specialize" in msg:
            msg = f"an argument of '{fn.__name__}' has a type Triton cannot pass ({msg}): pass numpy arrays or scalars"
        raise LaunchError(f"{msg} (parameters: {', '.join(names)})") from None
    for k in kwargs:
        if k not in names and k not in _option_names(backend):
            raise LaunchError(f"'{fn.__name__}' has no parameter '{k}' and it is no Triton option "
                              f"(parameters: {', '.join(names)})")
    return bound, spec, target, backend


def _option_names(backend) -> set:
    from triton.backends.nvidia.compiler import CUDAOptions
    return set(CUDAOptions.__dataclass_fields__)


def compile_kernel(fn, bound: dict, spec: list, target, backend, options: dict) -> TritonKernel:
    """triton.compile for this specialisation (cached), its PTX loaded by gpusim."""
    from triton._utils import find_paths_if, get_iterable_path
    key = (fn, target.arch, repr(spec), tuple(sorted(options.items())))
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    import triton
    from triton.compiler import ASTSource
    names = [p.name for p in fn.params]
    sigvals = [s[0] for s in spec]
    signature = dict(zip(names, sigvals))
    values = list(bound.values())
    constexprs = {p: get_iterable_path(values, p) for p in find_paths_if(sigvals, lambda _, v: v == "constexpr")}
    attrvals = ["" if s[0] == "constexpr" else s[1] for s in spec]
    attrs = {p: backend.parse_attr(get_iterable_path(attrvals, p))
             for p in find_paths_if(attrvals, lambda _, x: isinstance(x, str))}
    try:
        opts = backend.parse_options(dict(options)).__dict__
        compiled = triton.compile(ASTSource(fn, signature, constexprs, attrs), target=target, options=opts)
    except Exception as e:  # noqa: BLE001  (Triton's front end raises CompilationError, ValueError, ...)
        text = str(e).strip()
        raise LaunchError(f"Triton could not compile '{fn.__name__}' for sm_{target.arch}: "
                          f"{type(e).__name__}: {text[-3000:]}") from None
    mod = PTXModule(compiled.asm["ptx"], f"{fn.__name__}.ptx")
    tk = TritonKernel(mod[compiled.metadata.name], compiled.metadata, signature, dict(compiled.asm))
    _CACHE[key] = tk
    return tk
