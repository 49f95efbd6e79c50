"""Timing-model properties, each checked at its boundary (tiny preset unless the property needs h100)."""

import numpy as np
import pytest
from numba import cuda

import gpusim
from gpusim.presets import H100, TINY

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _ptx_kernel(body: str, regs: str = ".reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .pred %p<4>;"):
    text = HEAD + ".visible .entry k(.param .u64 a, .param .u64 out)\n{\n" + regs + "\n" + body + "\nret;\n}\n"
    return gpusim.load_ptx(text)["k"]


LATENCY_PROBE = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
ld.global.u32 %r1, [%rd1];
add.u32 %r9, %r1, 1;
mov.u64 %rd5, %clock64;
ld.global.u32 %r2, [%rd1];
add.u32 %r3, %r2, 1;
mov.u64 %rd6, %clock64;
sub.s64 %rd7, %rd6, %rd5;
st.global.u64 [%rd2], %rd7;
"""


@pytest.mark.parametrize("lat", [38, 39])
def test_l1_hit_returns_after_exactly_the_preset_latency(lat):
    spec = TINY.with_(**{"l1.latency": lat, "pipes.ii_int": 1})
    a = np.arange(32, dtype=np.uint32)
    out = np.zeros(1, np.int64)
    gpusim.launch(_ptx_kernel(LATENCY_PROBE), 1, 1, a, out, gpu=spec, mode="timing")
    # clock read, load issue (+1), dependent add when the data is back (+lat), clock read (+1)
    assert out[0] == lat + 2


def _load_kernel_metrics(stride: int, elem=np.float32):
    @cuda.jit
    def load(a, out, s):
        i = cuda.threadIdx.x
        out[i] = a[i * s]

    a = np.arange(32 * stride + 1, dtype=elem)
    out = np.zeros(32, elem)
    r = gpusim.launch(load, 1, 32, a, out, np.int64(stride), gpu="tiny", mode="timing")
    np.testing.assert_array_equal(out, a[: 32 * stride: stride])
    return r.metrics


def test_consecutive_4_byte_lanes_make_one_request_of_four_sectors():
    m = _load_kernel_metrics(1)
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 1
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 4


def test_stride_two_doubles_the_sectors():
    assert _load_kernel_metrics(2)["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 8


def test_stride_of_a_line_gives_one_sector_per_lane():
    assert _load_kernel_metrics(32)["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 32


def _bank_kernel_metrics(stride: int):
    @cuda.jit
    def banks(out, s):
        sh = cuda.shared.array(1024, np.float32)
        i = cuda.threadIdx.x
        sh[(i * s) % 1024] = i
        cuda.syncthreads()
        out[i] = sh[(i * s) % 1024]

    out = np.zeros(32, np.float32)
    return gpusim.launch(banks, 1, 32, out, np.int64(stride), gpu="tiny", mode="timing").metrics


@pytest.mark.parametrize("stride,ways", [(1, 1), (2, 2), (4, 4), (32, 32)])
def test_bank_conflict_ways_become_wavefronts(stride, ways):
    m = _bank_kernel_metrics(stride)
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == ways
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == ways - 1


def _spin(x, n):
    i = cuda.grid(1)
    acc = x[i]
    for _ in range(n):
        acc = acc * 1.0001 + 0.5
    x[i] = acc


def _cycles(spec, grid, block, n=64, **kw):
    x = np.ones(grid * block, np.float32)
    return gpusim.launch(_spin, grid, block, x, np.int64(n), gpu=spec, mode="timing", **kw)


def test_gto_and_lrr_issue_orders_differ():
    lrr = _cycles(TINY.with_(**{"scheduler.policy": "lrr"}), 2, 256)
    gto = _cycles(TINY.with_(**{"scheduler.policy": "gto"}), 2, 256)
    assert lrr.metrics["smsp__inst_executed.sum"] == gto.metrics["smsp__inst_executed.sum"]
    ns = "smsp__average_warp_latency_issue_stalled_not_selected.ratio"
    assert (lrr.cycles, lrr.metrics[ns]) != (gto.cycles, gto.metrics[ns])


def test_grid_of_two_waves_takes_about_twice_one_wave_when_every_cta_runs_alike():
    spec = TINY.with_(**{"gigathread.launch_overhead": 0, "gigathread.cta_launch_latency": 0,
                         "scheduler.policy": "lrr"})
    per_wave = 2 * (spec.sm.max_threads // 256)   # 2 SMs
    one = _cycles(spec, per_wave, 256, n=200)
    two = _cycles(spec, 2 * per_wave, 256, n=200)
    assert one.metrics["launch__waves_per_multiprocessor"] == pytest.approx(1.0)
    assert 1.8 < two.cycles / one.cycles < 2.2


def test_with_the_oldest_cta_first_the_second_wave_starts_as_the_first_wave_finishes_cta_by_cta():
    # the h100 order (cta_rr): the oldest CTA of an SM finishes first and the next wave's CTA takes its
    # slot while the others still run, so two waves overlap and take less than twice one
    spec = TINY.with_(**{"gigathread.launch_overhead": 0, "gigathread.cta_launch_latency": 0,
                         "scheduler.policy": "cta_rr"})
    per_wave = 2 * (spec.sm.max_threads // 256)
    one = _cycles(spec, per_wave, 256, n=200)
    two = _cycles(spec, 2 * per_wave, 256, n=200)
    assert 1.4 < two.cycles / one.cycles < 1.9


@pytest.mark.parametrize("limiter,kw,block", [
    ("warps", {}, 1024),
    ("blocks", {}, 32),
    ("registers", {"regs_per_thread": 128}, 128),
])
def test_occupancy_limiter_binds_when_it_should(limiter, kw, block):
    r = _cycles(H100, 132, block, n=2, **kw)
    assert r.metrics["launch__occupancy_limiter"] == limiter


def test_shared_memory_limits_occupancy():
    @cuda.jit
    def big_smem(x):
        sh = cuda.shared.array(12288, np.float32)    # 48 KB per block
        i = cuda.threadIdx.x
        sh[i] = x[i]
        cuda.syncthreads()
        x[i] = sh[i] + 1

    x = np.zeros(64, np.float32)
    r = gpusim.launch(big_smem, 132, 64, x, gpu="h100", mode="timing")
    m = r.metrics
    assert m["launch__occupancy_limiter"] == "shared_mem"
    assert m["launch__occupancy_limit_shared_mem"] == 233472 // (49152 + 1024)


def test_dram_bound_stream_saturates_at_the_preset_bandwidth():
    @cuda.jit
    def stream(a, flag):
        i = cuda.grid(1)
        if i < a.size and a[i] < -1.0:      # reads only: nothing is ever written
            flag[0] = 1

    n = 1 << 18
    a = np.ones(n, np.float32)
    flag = np.zeros(1, np.int32)
    # 2 SMs x 16 warps keep ~4 B/cycle of loads in flight: more than this DRAM can deliver
    spec = TINY.with_(**{"l2.size": 16384, "dram.bandwidth": 2.0})
    r = gpusim.launch(stream, n // 256, 256, a, flag, gpu=spec, mode="timing")
    # the array once; the kernel's code is in the L2 when it starts (fetch.code_in_l2), not read from DRAM
    assert r.metrics["dram__bytes_read.sum"] == n * 4
    achieved = r.metrics["dram__bytes_read.sum"] / r.cycles
    assert spec.dram.bandwidth * 0.8 <= achieved <= spec.dram.bandwidth * 1.01, achieved


def test_dram_bound_copy_moves_no_more_than_the_preset_bandwidth():
    """Reads and write-backs share the channels: bytes that reached DRAM per cycle stay within the
    preset, and the written data still dirty in the L2 at the end is reported apart, not as DRAM traffic."""
    @cuda.jit
    def copy(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = a[i]

    n = 1 << 18
    a = np.ones(n, np.float32)
    b = np.zeros_like(a)
    spec = TINY.with_(**{"l2.size": 16384, "dram.bandwidth": 2.0})
    r = gpusim.launch(copy, n // 256, 256, a, b, gpu=spec, mode="timing")
    m = r.metrics
    np.testing.assert_array_equal(b, a)
    moved = m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
    assert m["dram__bytes_write.sum"] > 0                       # a 16 KB L2 must write back most of b
    assert m["dram__bytes_write.sum"] + m["gpusim__l2_dirty_bytes_at_end.sum"] >= n * 4
    assert moved / r.cycles <= spec.dram.bandwidth * 1.01, moved / r.cycles


def test_same_run_twice_gives_identical_counters_and_cycles():
    a = _cycles(TINY, 8, 128)
    b = _cycles(TINY, 8, 128)
    assert a.cycles == b.cycles
    assert a.metrics == b.metrics


def test_timing_mode_results_match_functional_mode():
    x1 = np.linspace(0, 1, 4 * 128, dtype=np.float32)
    x2 = x1.copy()
    gpusim.launch(_spin, 4, 128, x1, np.int64(10), mode="functional")
    gpusim.launch(_spin, 4, 128, x2, np.int64(10), gpu="tiny", mode="timing")
    np.testing.assert_array_equal(x1, x2)


EARLY_EXIT = HEAD + """
.visible .entry k(.param .u64 a, .param .u64 out)
{
    .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra WAIT;
    ld.param.u64 %rd1, [a];
    ld.global.u32 %r2, [%rd1];          // warp 1: a DRAM round trip, then leaves by a branch to the exit
    setp.ne.u32 %p2, %r2, 12345;
    @%p2 bra DONE;
WAIT:
    bar.sync 0;                         // warp 0: waits here long before warp 1 leaves
    ld.param.u64 %rd2, [out];
    mov.u32 %r3, 1;
    st.global.u32 [%rd2], %r3;
DONE:
    ret;
}
"""


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_a_warp_leaving_by_a_branch_to_the_exit_releases_the_barrier_others_wait_at(mode):
    out = np.zeros(1, np.uint32)
    gpusim.launch(gpusim.load_ptx(EARLY_EXIT)["k"], 1, 64, np.zeros(1, np.uint32), out, gpu="tiny", mode=mode)
    assert out[0] == 1                  # warp 0 went past the barrier
