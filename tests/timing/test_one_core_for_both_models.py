"""One compiled timing core serves both models: the SASS model's unit state (per-pc tables cut from its
(pc, 14) slots array) has exactly the numba types of the PTX model's. A strided column (lsu.aggregated
was one) makes numba compile the whole core a second time on the first SASS-model launch, minutes on 2
cores, and in every test worker."""
import numpy as np
from numba import typeof

from gpusim.kernels import load_ptx
from gpusim.presets import TINY
from gpusim.timing.state import make_units
from gpusim.warmup import PTX


def _types(units) -> dict:
    out = {}
    for name in units._fields:
        unit = getattr(units, name)
        for field in getattr(unit, "_fields", ()):
            out[f"{name}.{field}"] = typeof(getattr(unit, field))
    return out


def test_sass_model_state_has_the_ptx_models_types():
    d = load_ptx(PTX)["warmup"].decoded
    ptx = _types(make_units(TINY, d, 4, 1))
    slots = np.arange(d.n * 23, dtype=np.int64).reshape(d.n, 23)     # as launch builds it: one (pc, 23) array
    sass = _types(make_units(TINY, d, 4, 1, slots=slots))
    assert ptx.keys() == sass.keys()
    assert {k: (ptx[k], sass[k]) for k in ptx if ptx[k] != sass[k]} == {}
