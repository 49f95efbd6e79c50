"""Kernel front ends: PTX text/files, numba.cuda Python kernels (via compile_ptx), CUDA C (via nvcc)."""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gpusim import devrt
from gpusim.errors import GpusimError, LaunchError
from gpusim.isa.decode import DecodedKernel, decode_kernel
from gpusim.isa.lexer import decode_source
from gpusim.isa.parser import parse_ptx

CC = (9, 0)


@dataclass
class PTXKernel:
    """One .entry of a loaded PTX module; decoded on first use."""
    module: PTXModule
    name: str
    _decoded: DecodedKernel | None = field(default=None, repr=False)
    signature: tuple | None = None      # numba argument types when compiled from Python
    _decoded_stores_kept: DecodedKernel | None = field(default=None, repr=False)
    _decoded_sass: dict = field(default_factory=dict, repr=False)
    # numba kernels gpusim compiled with line info or without contraction: (function, argument types, the
    # dispatcher's line info and options) to make the PTX numba.cuda itself launches on a GPU on first use
    # (`device_ptx`); None where the launched PTX is that one already
    _device_compile: tuple | None = field(default=None, repr=False)
    max_registers: int | None = None    # a numba dispatcher's register limit (applied by the driver's JIT)

    def device_ptx(self) -> str:
        """The PTX a GPU would run for this kernel: numba.cuda compiles without line info and with contraction
        (fma) by default; NVVM's code differs with line info on a few kernels (gpusim keeps it for its
        per-source-line reports), and gpusim contracts only with fma=True.
        The SASS model takes registers per thread, so occupancy, from this one. Cached on disk."""
        if self._device_compile is None:
            return self.module.text
        return _device_ptx(*self._device_compile, self.module.text)

    @property
    def decoded(self) -> DecodedKernel:
        if self._decoded is None:
            self._decoded = decode_kernel(self.module.ast, self.name)
        return self._decoded

    @property
    def decoded_stores_kept(self) -> DecodedKernel:
        """Decoded with every store where the PTX has it (the SASS model, for a kernel ptxas compiled short
        of registers: it then issues each load's store right after it; gpusim/isa/schedule.py)."""
        if self._decoded_stores_kept is None:
            self._decoded_stores_kept = decode_kernel(self.module.ast, self.name, stores_sink=False)
        return self._decoded_stores_kept

    def decoded_sass_order(self, rank: dict, stores_sink: bool = True) -> DecodedKernel:
        """Decoded with each basic block in the order ptxas scheduled its SASS (`rank`: PTX line -> position
        of its SASS, gpusim/sassmap.py; the SASS model), as far as the PTX's dependences allow."""
        key = (tuple(sorted(rank.items())), stores_sink)
        if key not in self._decoded_sass:
            self._decoded_sass[key] = decode_kernel(self.module.ast, self.name, stores_sink, rank)
        return self._decoded_sass[key]

    @property
    def ptx(self) -> str:
        return self.module.text


class PTXModule:
    def __init__(self, text: str, file: str = "<ptx>"):
        self.text, self.file = text, file
        self.ast = parse_ptx(text, file)
        libs = devrt.missing(text, self.ast.functions)
        if libs:        # the device runtime (printf, malloc) the driver would link: appended, lines kept
            self.text = text + "\n" + "\n".join(libs)
            self.ast = parse_ptx(self.text, file)
        self.kernels = {n: PTXKernel(self, n) for n, f in self.ast.functions.items() if f.kind == "entry"}

    def __getitem__(self, name: str) -> PTXKernel:
        if name in self.kernels:
            return self.kernels[name]
        hits = [k for k in self.kernels if name in k]
        if len(hits) == 1:
            return self.kernels[hits[0]]
        known = ", ".join(sorted(self.kernels)) or "none"
        raise LaunchError(f"{self.file}: no kernel named '{name}' (kernels: {known})")

    def __iter__(self):
        return iter(self.kernels)


def load_ptx(path_or_text: str | os.PathLike) -> PTXModule:
    """Load PTX from a file path or from PTX text."""
    s = str(path_or_text)
    if "\n" not in s and (s.endswith(".ptx") or os.path.exists(s)):
        p = Path(s)
        if not p.exists():
            raise LaunchError(f"{s}: no such PTX file")
        if p.is_dir():
            raise LaunchError(f"{s}: is a directory, not a PTX file")
        try:
            data = p.read_bytes()
        except OSError as e:
            raise LaunchError(f"{s}: cannot read: {e.strerror}") from None
        return PTXModule(decode_source(data, p.name), p.name)
    return PTXModule(s, "<ptx>")


def load_cuda(path: str | os.PathLike, arch: str = "sm_90") -> PTXModule:
    """Compile CUDA C to PTX with nvcc (must be on PATH) and load it."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise GpusimError(f"{path}: compiling CUDA C needs nvcc on PATH (not found); pass a .ptx file or a "
                          "numba.cuda kernel instead")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "k.ptx"
        r = subprocess.run([nvcc, f"-arch={arch}", "-ptx", "-lineinfo", str(path), "-o", str(out)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise GpusimError(f"nvcc failed on {path}:\n{r.stderr.strip()}")
        return PTXModule(out.read_text(), Path(path).name.replace(".cu", ".ptx"))


_NUMBA_CACHE: dict = {}
_LOC = re.compile(r"^\s*\.loc\s", re.M)
# the disk cache of device PTX: its format, and the compilers that made it (numba-cuda, NVVM)
_DEVICE_PTX_FORMAT = 1


@functools.cache
def _compiler_versions() -> str:
    """numba's, numba-cuda's and NVVM's versions: what the device PTX depends on besides its source."""
    from importlib import metadata

    import numba
    try:
        cuda_version = metadata.version("numba-cuda")
    except metadata.PackageNotFoundError:
        cuda_version = "?"
    try:
        from numba.cuda.cudadrv import nvvm
        nvvm_version = ".".join(map(str, nvvm.NVVM().get_version()))
    except Exception:       # noqa: BLE001 - a version string for a cache key, never an error
        nvvm_version = "?"
    return f"{numba.__version__}/{cuda_version}/{nvvm_version}"


def _options_key(opts: dict) -> str:
    """A stable text for compile options (a fastmath flag set in sorted order)."""
    return repr(sorted((k, sorted(v) if isinstance(v, (set, frozenset)) else v) for k, v in opts.items()))


def _device_ptx(py, argtypes: tuple, lineinfo: bool, opts: dict, lined: str) -> str:
    """numba's PTX of `py` as numba.cuda compiles it for a GPU (see PTXKernel.device_ptx): with the dispatcher's
    own line-info setting (off by default) and options (`jit_options`), and contraction (fma) on whatever
    gpusim's own compile used. Cached per line-info PTX (which names the source, lines and types), options
    and numba version."""
    import hashlib

    from gpusim.jitcache import cache_root, write_atomic
    what = f"{_DEVICE_PTX_FORMAT}\0{_compiler_versions()}\0{CC}\0{lineinfo}\0{_options_key(opts)}\0{lined}"
    key = hashlib.sha256(what.encode()).hexdigest()[:24]
    path = cache_root() / "device_ptx" / f"{key}.ptx"
    if path.exists():
        return path.read_text()
    from numba import cuda
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ptx, _ = cuda.compile_ptx(py, argtypes, cc=CC, lineinfo=lineinfo, **opts)
    write_atomic(path, ptx)
    return ptx


@contextmanager
def _contraction(enabled: bool):
    """NVVM contracts a*b+c into fma by default (as numba.cuda does on a GPU). With contraction off
    the PTX keeps separate mul.rn/add.rn, whose results equal numpy's float32 arithmetic bit for bit.
    numba-cuda's compile_ptx does not expose NVVM's -fma flag, so it is injected here."""
    from numba.cuda.cudadrv import nvvm
    if enabled:
        yield
        return
    orig = nvvm.compile_ir

    def compile_ir(llvmir, **options):
        if not options.get("fastmath"):
            options.setdefault("fma", False)
        return orig(llvmir, **options)

    nvvm.compile_ir = compile_ir
    try:
        yield
    finally:
        nvvm.compile_ir = orig


def jit_options(fn) -> dict:
    """The compile options of a numba.cuda dispatcher (`@cuda.jit(fastmath=True, launch_bounds=...)`) that change
    the PTX it runs on a GPU, as compile_ptx arguments; {} for a plain function or the defaults. Not here:
    max_registers, a limit the driver's JIT applies (`PTXKernel.max_registers`; the SASS model passes it to
    ptxas), and debug."""
    given = getattr(fn, "targetoptions", None) or {}
    opts = {}
    for name, default in (("fastmath", False), ("launch_bounds", None), ("opt", True)):
        value = given.get(name, default)
        if value is not None and value != default:
            opts[name] = value
    return opts


def numba_kernel(fn, argtypes: tuple, fma: bool = False) -> PTXKernel:
    """Compile a numba.cuda kernel (dispatcher or plain function) for these argument types (cached).

    fma=False (default) compiles without floating-point contraction so results match numpy;
    fma=True gives the PTX numba.cuda itself runs on a GPU (a*b+c fused into fma.rn). A dispatcher's own
    options that change its code (fastmath, launch_bounds, opt; `jit_options`) are kept, as on a
    GPU: with fastmath, NVVM contracts whatever fma says.
    """
    py = getattr(fn, "py_func", fn)
    opts = jit_options(fn)
    given = getattr(fn, "targetoptions", None) or {}
    lineinfo = bool(given.get("lineinfo", False))
    key = (py, tuple(str(t) for t in argtypes), fma, lineinfo, _options_key(opts), given.get("max_registers"))
    hit = _NUMBA_CACHE.get(key)
    if hit is not None:
        return hit
    from numba import cuda
    try:
        with warnings.catch_warnings(), _contraction(fma):
            warnings.simplefilter("ignore")
            try:
                ptx, _ = cuda.compile_ptx(py, tuple(argtypes), cc=CC, lineinfo=True, **opts)
            except Exception as e:   # NVVM fails on some kernels with line info only (no log): numba's
                if "ERROR_COMPILATION" not in str(e):     # default, lineinfo off, compiles them
                    raise
                ptx, _ = cuda.compile_ptx(py, tuple(argtypes), cc=CC, lineinfo=False, **opts)
    except Exception as e:   # numba typing errors are user errors: report them in one piece
        first = str(e).strip().splitlines()
        raise LaunchError(f"numba could not compile '{py.__name__}' for {argtypes}: "
                          + " ".join(first[:6])) from None
    mod = PTXModule(ptx, f"{py.__name__}.ptx")
    (name,) = list(mod.kernels)
    k = mod.kernels[name]
    k.signature = tuple(argtypes)
    k.max_registers = given.get("max_registers") or None
    if (_LOC.search(ptx) and not lineinfo) or not fma:
        k._device_compile = (py, tuple(argtypes), lineinfo, opts)
    _NUMBA_CACHE[key] = k
    return k
