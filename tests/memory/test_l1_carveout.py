"""The unified L1/shared array (gpusim/memory/l1.py, gpusim/timing/engine.py): a launch's L1 holds what the
driver's shared-memory carve-out for the kernel leaves, the carve-out being the smallest configuration that
holds the kernel's CTAs at their occupancy, as ncu's launch__shared_mem_config_size reports on the H100."""

import numpy as np
import pytest
from numba import cuda, float32

import gpusim
from gpusim.errors import ConfigError
from gpusim.presets import A100, H100


@pytest.mark.parametrize("needed, carve", [(2048, 8), (4096, 8), (4097, 32), (8192, 32), (9216, 32), (32769, 64),
                                           (128000, 132), (138240, 164), (233472, 228)])
def test_the_carveout_is_the_smallest_configuration_that_holds_the_ctas(needed, carve):
    """8 KiB only for CTAs that need at most half of it (2 x 1 KiB gets 8 KiB on the H100, 8 x 1 KiB 32)."""
    assert H100.l1.size_for(needed) == (carve * 1024, 262144 - carve * 1024)


def test_a_preset_without_a_unified_array_keeps_its_fixed_l1():
    assert A100.l1.size_for(100_000) == (0, A100.l1.size)


def test_bad_carveouts_are_refused_by_key():
    with pytest.raises(ConfigError, match="l1.carveouts"):
        H100.with_(**{"l1.carveouts": "32,lots"})
    with pytest.raises(ConfigError, match="l1.carveouts"):
        H100.with_(**{"l1.carveouts": "300"})           # more than the unified array


def _copy(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i]


def _copy_smem(a, out):
    buf = cuda.shared.array(12288, float32)       # 48 KiB per CTA
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    if i < a.size:
        buf[t] = a[i]
        out[i] = buf[t]


def test_a_launch_reports_its_carveout_and_l1_capacity():
    a = np.arange(4096, dtype=np.float32)
    plain = gpusim.launch(_copy, 16, 256, a, np.zeros_like(a), mode="timing")
    assert plain.metrics["launch__shared_mem_config_size"] == 32 * 1024
    assert plain.metrics["gpusim__l1_data_bytes"] == 224 * 1024
    wide = gpusim.launch(_copy, 4, 1024, a, np.zeros_like(a), mode="timing")     # 2 CTAs of 1024 threads an SM
    assert wide.metrics["launch__shared_mem_config_size"] == 8 * 1024
    assert wide.metrics["gpusim__l1_data_bytes"] == 248 * 1024
    shared = gpusim.launch(_copy_smem, 16, 256, a, np.zeros_like(a), mode="timing")
    per_cta = 49152 + 1024
    ctas = shared.metrics["launch__occupancy_limit_shared_mem"]
    assert ctas == 233472 // per_cta == 4
    assert shared.metrics["launch__shared_mem_config_size"] == 196 * 1024      # 4 x 49 KiB, exactly 196 KiB
    assert shared.metrics["gpusim__l1_data_bytes"] == 60 * 1024
