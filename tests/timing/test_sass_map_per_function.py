"""A kernel's SASS map does not depend on the other kernels of its module (gpusim/sassmap.py).

The first ULDC of each constant-bank block (the immediate-constant cache's misses, sm/fetch.py) and the read
barriers a wait is matched to are found per function: until the forty-fourth pass both ran on across the module's
functions in listing order, so a kernel launched from a CUDA C file with more kernels lost the constant-bank misses
another kernel's ULDCs had claimed (cr_iadd of the chain_rate probe's module: 6,295 cycles, alone 6,349)."""

import re
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim import sassmap
from gpusim.kernels import load_ptx
from gpusim.presets import apply_overrides, get_preset

ROOT = Path(__file__).resolve().parents[2]
PTX = (ROOT / "tests" / "timing" / "ptx" / "chain_rate.ptx").read_text()
needs_sass = pytest.mark.skipif(sassmap.ptxas.find() is None or sassmap.find_nvdisasm() is None,
                                reason="the SASS model needs ptxas and nvdisasm (the sass extra)")


def _alone(text: str, kernel: str) -> str:
    """The module's header and the one entry `kernel`."""
    starts = [m.start() for m in re.finditer(r"^\s*(?:// \.globl\s+\w+\s*\n)?\.visible \.entry", text, re.M)]
    head = text[:starts[0]]
    for a, b in zip(starts, starts[1:] + [len(text)]):
        if re.search(rf"\.entry {kernel}\(", text[a:b]):
            return head + text[a:b]
    raise KeyError(kernel)


def _cycles(text: str, kernel: str) -> int:
    one_sm = apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1})
    r = gpusim.launch(load_ptx(text)[kernel], 1, 512, np.zeros(512, np.float32), np.float32(1.0001),
                      np.float32(0.5), np.int32(3), np.int32(32), gpu=one_sm, mode="timing", model="sass")
    return r.cycles


@needs_sass
@pytest.mark.parametrize("kernel", ["cr_iadd", "cr_imad", "cr_fuvb"])
def test_a_kernel_times_the_same_alone_and_among_the_modules_other_kernels(kernel):
    assert _cycles(_alone(PTX, kernel), kernel) == _cycles(PTX, kernel)
