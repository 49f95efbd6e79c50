"""The SASS model issues each basic block in ptxas's order (gpusim/isa/schedule.py, `sass_order`).

numba's mlp_4 (validation/cases/mechanisms/mlp.py) keeps four dependent-address load chains per thread.
LLVM unrolls them with the four chains' loads together, but ptxas orders the body chain by chain, each
LDG followed by the same chain's next LDG, which needs the first one's value. So on the H100 the chains
barely overlap: 207k cycles against mlp_1's 209k (validation/data/h100/mlp_l4.json, mlp_l1.json). In the
PTX's order the four loads are in flight together and gpusim made it 2.9 times faster than the H100."""
import sys

import numpy as np
import pytest

import gpusim
import validation  # noqa: F401  (numpy shim before numba is imported)
from gpusim import sassmap
from validation.cases.mechanisms.mlp import MLP_KERNELS

needs_tools = pytest.mark.skipif(sassmap.ptxas.find() is None or sassmap.find_nvdisasm() is None,
                                 reason="no ptxas/nvdisasm (the triton extra bundles both)")
GRID, BLOCK, PER_THREAD = 132, 64, 32      # two warps per SM: every chain's latency is exposed


def _cycles(loads: int) -> int:
    nth = GRID * BLOCK
    a = np.random.default_rng(0).integers(0, 8, nth * PER_THREAD, dtype=np.int32)
    out, clk = np.zeros(nth, np.int64), np.zeros(nth // 32, np.int64)
    r = gpusim.launch(MLP_KERNELS[loads], GRID, BLOCK, a, np.int64(PER_THREAD // loads), out, clk, model="sass")
    assert (out == a.reshape(PER_THREAD, nth).sum(axis=0)).all()
    return r.cycles


@needs_tools
def test_chains_ptxas_serialised_take_as_long_as_one_chain(monkeypatch):
    one, four = _cycles(1), _cycles(4)
    assert 0.85 < four / one < 1.15              # H100: 207k / 209k = 0.99
    monkeypatch.setitem(sys.modules["gpusim.launch"].SASS_ORDER, "on", False)
    assert _cycles(4) < 0.5 * four               # the PTX's order overlaps the four chains
