"""Run @triton.jit kernels on gpusim: Triton compiles them on the CPU for the preset's architecture
(sm_90 for h100, sm_80 for a100, sm_70 for v100) and gpusim runs the PTX.

    import gpusim.triton as gt
    res = gt.jit_launch(add_kernel, (triton.cdiv(n, 1024),), x, y, out, n, BLOCK=1024, mode="functional")
    gt.on_gpusim(add_kernel)[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n, BLOCK=1024)

numpy arrays stand in for tensors (passed as device pointers, updated in place); Python and numpy
scalars are specialised as Triton specialises them (1 becomes a constexpr, multiples of 16 get
`tt.divisibility`). Data numpy has no dtype for (fp8, bf16) goes as bits, typed for the kernel by
`gt.reinterpret(uint8_array, tl.float8e4nv)` as `triton.reinterpret` types a tensor. The block is
32 * num_warps threads, the dynamic shared memory the compiled kernel's `metadata.shared`, and the
scratch pointers Triton appends to every kernel are null or a zeroed allocation of the size the
metadata asks for. Triton is imported only when a kernel runs (`pip install gpusim[triton]`).
"""
from __future__ import annotations

import numpy as np

from gpusim.errors import LaunchError
from gpusim.launch import LaunchResult, launch
from gpusim.presets import get_preset
from gpusim.triton.compile import (
    INSTALL_HINT,
    Reinterpreted,
    TritonKernel,
    arch_of,
    compile_kernel,
    reinterpret,
    specialise,
    triton_module,
)
from gpusim.triton.descriptors import leaves as descriptor_leaves
from gpusim.triton.descriptors import tensor_descriptor

__all__ = ["jit_launch", "on_gpusim", "compile_for", "reinterpret", "arch_of", "tensor_descriptor", "TritonKernel",
           "INSTALL_HINT"]

# keywords of jit_launch that go to gpusim.launch rather than to the kernel or to Triton
LAUNCH_KEYS = ("max_instructions", "check", "progress", "regs_per_thread", "stack_size", "events", "model")


def _split(fn, arch, args, kwargs):
    """Triton's binding of the call: (bound arguments, specialisation, target, backend, Triton options)."""
    triton_module()
    if not hasattr(fn, "params") or not hasattr(fn, "signature"):
        kind = type(fn).__name__
        hint = (" (an @triton.autotune/@triton.heuristics wrapper: pass the config's values to its .fn)"
                if hasattr(fn, "fn") else "")
        raise LaunchError(f"expected a @triton.jit function, got {kind}{hint}")
    bound, spec, target, backend = specialise(fn, args, kwargs, arch)
    names = {p.name for p in fn.params}
    options = {k: v for k, v in kwargs.items() if k not in names}
    return bound, spec, target, backend, options


def compile_for(fn, *args, num_warps: int = 4, num_stages: int = 3, gpu="h100", arch: int | None = None,
                **meta) -> TritonKernel:
    """Compile `fn` for these arguments as a launch would (cached); the result's .ptx, .asm
    (ttir, ttgir, llir, ptx) and .metadata show what Triton made of it."""
    spec = get_preset(gpu) if isinstance(gpu, str) else gpu
    arch = arch or arch_of(spec)
    kw = dict(meta, num_warps=num_warps, num_stages=num_stages)
    bound, sp, target, backend, options = _split(fn, arch, args, kw)
    return compile_kernel(fn, bound, sp, target, backend, options)


def _given(fn, bound: dict, args: tuple, meta: dict) -> dict:
    """Every parameter's value by name as the caller gave it (arrays, not the specialiser's stand-ins)."""
    given = dict(bound)
    given.update(zip([p.name for p in fn.params], args))
    given.update({k: v for k, v in meta.items() if k in given})
    return given


def _grid(grid, given: dict):
    """Triton's grid: a tuple, an int, or a callable of the bound arguments (the meta dict)."""
    if callable(grid):
        grid = grid(dict(given))
    if isinstance(grid, (int, np.integer)):
        grid = (grid,)
    if not isinstance(grid, (tuple, list)) or not 1 <= len(grid) <= 3:
        raise LaunchError(f"grid must be 1-3 ints or a callable of the meta-parameters returning them, got {grid!r}")
    return tuple(int(g) for g in grid)


def _leaves(value, sig):
    """The kernel parameters one argument fills, in order: tuples flattened, constexprs dropped."""
    if isinstance(sig, tuple):
        out = []
        for v, s in zip(value, sig):
            out += _leaves(v, s)
        return out
    if isinstance(value, Reinterpreted):        # the bits go to the device as the array they are
        value = value.base
    return [] if sig == "constexpr" else [value]


def _scratch(size: int, nprog: int):
    """A scratch buffer of `size` bytes per program, or null when the kernel needs none."""
    return np.zeros(size * nprog, np.uint8) if size else 0


def _param_values(tk: TritonKernel, given: dict, grid: tuple) -> list:
    values = []
    metas = list(getattr(tk.metadata, "tensordesc_meta", None) or [])
    for name in tk.signature:
        sig = tk.signature[name]
        if isinstance(sig, str) and sig.startswith("tensordesc"):      # descriptors.py: map, shape, strides
            values += descriptor_leaves(given[name], metas.pop(0) if metas else None)
        else:
            values += _leaves(given[name], sig)
    nprog = grid[0] * grid[1] * grid[2]
    md = tk.metadata
    extra = [_scratch(int(getattr(md, "global_scratch_size", 0)), nprog),
             _scratch(int(getattr(md, "profile_scratch_size", 0)), nprog)]
    nparams = len(tk.kernel.decoded.params)
    if nparams < len(values) or nparams > len(values) + len(extra):
        raise LaunchError(f"'{tk.kernel.name}' has {nparams} PTX parameters for {len(values)} arguments: this "
                          "Triton version lays out kernel parameters in a way gpusim does not know")
    return values + extra[:nparams - len(values)]


def jit_launch(fn, grid, *args, num_warps: int = 4, num_stages: int = 3, gpu="h100", mode: str = "timing",
               arch: int | None = None, **meta) -> LaunchResult:
    """Run `fn[grid](*args, num_warps=..., num_stages=..., **meta)` on the simulated GPU `gpu`.

    meta: the kernel's constexpr (and other) arguments by name, and Triton compile options
    (enable_fp_fusion, maxnreg, ...). arch overrides the compute capability compiled for (default:
    the preset's). max_instructions, check, regs_per_thread, stack_size, model and progress go to
    gpusim.launch. Returns gpusim's LaunchResult; numpy arrays are updated in place.
    """
    spec = get_preset(gpu) if isinstance(gpu, str) else gpu
    arch = arch or arch_of(spec)
    launch_opts = {k: meta.pop(k) for k in LAUNCH_KEYS if k in meta}
    kw = dict(meta, num_warps=num_warps, num_stages=num_stages)
    bound, sp, target, backend, options = _split(fn, arch, args, kw)
    tk = compile_kernel(fn, bound, sp, target, backend, options)
    md = tk.metadata
    given = _given(fn, bound, args, meta)
    g = _grid(grid, given)
    g = g + (1,) * (3 - len(g))
    nctas = int(getattr(md, "num_ctas", 1))
    if nctas != 1:      # as Triton's launcher: grid x times num_ctas CTAs, in clusters of num_ctas along x
        g = (g[0] * nctas, g[1], g[2])
        launch_opts["cluster"] = (nctas, 1, 1)
    values = _param_values(tk, given, g)
    return launch(tk.kernel, g, 32 * tk.num_warps, *values, gpu=spec, mode=mode, shared_mem=tk.shared,
                  cooperative=bool(getattr(md, "launch_cooperative_grid", False)), **launch_opts)


class _OnGpusim:
    """`on_gpusim(fn)[grid](*args, **meta)`: Triton's call shape, run by jit_launch."""

    def __init__(self, fn, defaults: dict):
        self.fn, self.defaults = fn, defaults

    def __getitem__(self, grid):
        def run(*args, **meta):
            return jit_launch(self.fn, grid, *args, **{**self.defaults, **meta})
        return run

    def __repr__(self):
        return f"on_gpusim({getattr(self.fn, '__name__', self.fn)!r})"


def on_gpusim(fn, **defaults):
    """Wrap a @triton.jit function so `wrapped[grid](*args, BLOCK=...)` runs it on gpusim; defaults
    (gpu=, mode=, num_warps=, ...) apply to every launch and a call's own keywords override them."""
    return _OnGpusim(fn, defaults)
