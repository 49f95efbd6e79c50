"""Where a launch's arrays land: as the CUDA driver places a fresh process's allocations (gpusim/memory/device.py),
each in a window of its own so that an overrun faults."""
import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.errors import KernelFault
from gpusim.memory.device import POOL, DeviceMemory

PROBE = Path(__file__).resolve().parents[2] / "validation/data/h100/probe_alloc_placement_h200.json"

POINTERS_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 data, .param .u64 hist, .param .u64 out)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [hist];
    ld.param.u64 %rd3, [out];
    st.global.u64 [%rd3], %rd1;
    st.global.u64 [%rd3+8], %rd2;
    ret;
}
"""

OVERRUN_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [a];
    ld.global.u32 %r1, [%rd1+512];
    ld.param.u64 %rd2, [b];
    st.global.u32 [%rd2], %r1;
    ret;
}
"""


@pytest.mark.parametrize("scenario", ["histogram", "sizes", "small_first"])
def test_allocations_land_where_the_driver_puts_a_fresh_processs(scenario):
    rec = json.loads(PROBE.read_text())
    for run in rec["runs"][scenario]:
        mem = DeviceMemory(0, [])
        got = [mem.alloc(a["bytes"]) % POOL for a in run]
        assert got == [a["mod_2mib"] for a in run]


def test_a_histogram_after_a_large_array_is_2_mib_aligned_as_in_a_fresh_process():
    """prog_histogram's arrays: the 4-MiB input, then the 1-KiB histogram at the start of the driver's pool (on
    the H100 the aligned placement runs 27-29k cycles, 512 B past it 18.2k)."""
    k = gpusim.load_ptx(POINTERS_PTX)["k"]
    data, hist, out = np.zeros(1 << 20, np.int32), np.zeros(256, np.int32), np.zeros(2, np.uint64)
    gpusim.launch(k, 1, 1, data, hist, out, gpu="tiny")
    assert int(out[0]) % POOL == 0
    assert int(out[1]) % POOL == 0
    assert int(out[1]) != int(out[0])


def test_a_read_past_a_small_array_faults_rather_than_reading_the_next_one():
    """On the GPU the 64-B array b starts 512 B after a in the pool; gpusim keeps the offset but not the
    neighbour, so a[128] is out of bounds."""
    k = gpusim.load_ptx(OVERRUN_PTX)["k"]
    a, b = np.zeros(16, np.int32), np.zeros(16, np.int32)
    with pytest.raises(KernelFault):
        gpusim.launch(k, 1, 1, a, b, gpu="tiny")
