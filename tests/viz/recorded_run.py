"""Shared fixture of the viz tests: reduce_shared (2^14 elements) on the tiny preset with events recorded."""
import pytest

import gpusim
from gpusim.presets import TINY
from programs import reduce_shared


@pytest.fixture(scope="session")
def run():
    inp = reduce_shared.inputs(1 << 14)
    out = []
    reduce_shared.run(lambda k, g, b, *a: out.append(gpusim.launch(k, g, b, *a, gpu=TINY, events=True)) or out[-1],
                      inp)
    return out[0]
