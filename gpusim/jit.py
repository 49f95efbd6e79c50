"""How gpusim compiles with numba: `njit` as numba's, with gpusim's defaults and one difference.

numba compiles a separate specialization of a jitted function for every literal argument a caller
passes (`f(x, -1)` and `f(x, y)` give two copies of f and of everything f calls), which doubled
the compile time of the executor. gpusim's dispatcher types every argument of a call from jitted
code by its plain type, so each function is compiled once per argument *type*. Defaults: cached
(gpusim/jitcache.py), no reference counting (the core allocates nothing), numpy's error model
(the code guards its divisors). Loading from the cache skips numba's typing-registry refresh, so a
new process starts simulating sooner. Functions that only jitted code calls pass
`no_cpython_wrapper=True`: no Python entry point is compiled for them.
"""
from __future__ import annotations

from numba.core import types
from numba.core.caching import FunctionCache
from numba.core.registry import CPUDispatcher


class _LoadOnlyCache(FunctionCache):
    """numba's function cache, minus the typing-registry refresh (~0.3 s, once per process) that it
    runs before every load: loading machine code needs no typing. A miss compiles, and the compiler
    refreshes the registries itself."""

    def load_overload(self, sig, target_context):
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)


class PlainTypeDispatcher(CPUDispatcher):
    def enable_caching(self):
        self._cache = _LoadOnlyCache(self.py_func)

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def njit(fn=None, *, cache: bool = True, **options):
    """numba.njit for gpusim's units and executor (see the module docstring)."""
    options.setdefault("nopython", True)
    options.setdefault("_nrt", False)
    options.setdefault("error_model", "numpy")

    def wrap(f):
        d = PlainTypeDispatcher(py_func=f, locals={}, targetoptions=options)
        if cache:
            d.enable_caching()
        return d

    return wrap(fn) if fn is not None else wrap
