"""Each timing unit's own rule, checked on the unit (L2 partitions, the SM port, L1 MSHRs) or on a
small launch (instruction fetch, divergence delay, store drain)."""

import numpy as np
import pytest
from numba import cuda

import gpusim
from gpusim.memory.interconnect import FAR_SECTORS, deliver
from gpusim.memory.l1 import MSHR_WAIT, l1_load
from gpusim.memory.l2 import l2_access, slice_of
from gpusim.presets import H100, TINY
from gpusim.timing.state import make_units

# exact latencies: without the exponential parts (l2.spread, dram.spread; tests/memory/test_latency_spread.py)
EXACT = H100.with_(**{"l2.spread": 0.0, "dram.spread": 0.0})
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
TINY_PTX = HEAD + ".visible .entry k()\n{\nret;\n}\n"


def _state(spec):
    d = gpusim.load_ptx(TINY_PTX)["k"].decoded
    return make_units(spec, d, 4, 1)


def _sector_in_partition(spec, sm, near: bool, start: int = 1 << 20) -> int:
    """A sector whose slice is in SM `sm`'s own L2 partition (near) or in the other one."""
    parts, nsl = spec.l2.partitions, spec.l2.slices
    mine = sm * parts // spec.n_sm
    for line in range(start, start + 10_000):
        if ((slice_of(line * 4, nsl) * parts // nsl) == mine) == near:
            return line * 4
    raise AssertionError("no such sector")


def _warm_hit_cycles(spec, sm, sector):
    U = _state(spec)
    l2_access(U.l2, U.noc, U.dram, sm, sector, 0, False)          # miss: brings the sector into the L2
    now = 1_000_000
    far_before = U.noc.counters[FAR_SECTORS]
    back = l2_access(U.l2, U.noc, U.dram, sm, sector, now, False)
    return back - now, U.noc.counters[FAR_SECTORS] - far_before


def test_near_l2_hit_takes_the_preset_latency():
    spec = EXACT.with_(**{"l2.latency": 200})
    cycles, far = _warm_hit_cycles(spec, 0, _sector_in_partition(spec, 0, near=True))
    assert (cycles, far) == (200, 0)


@pytest.mark.parametrize("far_latency", [32, 80])
def test_far_partition_hit_adds_the_far_latency(far_latency):
    spec = EXACT.with_(**{"l2.latency": 200, "noc.far_latency": far_latency})
    cycles, far = _warm_hit_cycles(spec, 0, _sector_in_partition(spec, 0, near=False))
    assert (cycles, far) == (200 + far_latency, 1)


def test_an_sm_in_the_other_partition_sees_near_and_far_swapped():
    spec = EXACT.with_(**{"l2.latency": 200, "noc.far_latency": 40})
    sector = _sector_in_partition(spec, 0, near=True)
    assert _warm_hit_cycles(spec, spec.n_sm - 1, sector) == (240, 1)


def test_one_partition_has_no_far_cost():
    spec = EXACT.with_(**{"l2.latency": 200, "l2.partitions": 1, "noc.far_latency": 40})
    sector = _sector_in_partition(H100, 0, near=False)
    assert _warm_hit_cycles(spec, 0, sector) == (200, 0)


def test_sm_port_passes_the_preset_bytes_per_cycle():
    spec = H100.with_(**{"noc.port_bandwidth": 64.0})
    U = _state(spec)
    starts = [deliver(U.noc, 3, 1000, 32) for _ in range(128)]       # 128 sectors arriving at once
    assert starts[0] == 1000 and starts[1] == 1000                 # two sectors per cycle
    assert starts[-1] == 1000 + 127 * 32 // 64
    assert deliver(U.noc, 4, 1000, 32) == 1000                         # another SM's port is free


def test_ports_are_per_sm_and_free_again_after_the_burst():
    U = _state(H100.with_(**{"noc.port_bandwidth": 32.0}))
    for _ in range(10):
        deliver(U.noc, 0, 0, 32)
    assert deliver(U.noc, 0, 100, 32) == 100


def _two_misses(mshrs):
    spec = H100.with_(**{"l1.mshrs": mshrs})
    U = _state(spec)
    first, go1 = l1_load(U.l1, U.l2, U.noc, U.dram, 0, 1 << 20, 10)
    second, go2 = l1_load(U.l1, U.l2, U.noc, U.dram, 0, (1 << 20) + 400, 10)
    return first, second, go1, go2, int(U.l1.counters[MSHR_WAIT])


def test_miss_waits_for_an_mshr_when_all_are_busy():
    first, second, go1, go2, waited = _two_misses(1)
    assert go1 == 10
    assert go2 == first                      # the LSU holds the second miss until the first returns
    assert second > first
    assert waited == first - 10


def test_misses_within_the_mshr_count_overlap():
    first, second, go1, go2, waited = _two_misses(2)
    assert (go1, go2, waited) == (10, 10, 0)
    assert second < first + 100              # both trips under way at once


def test_miss_to_a_sector_already_on_its_way_merges():
    U = _state(H100)
    first, _ = l1_load(U.l1, U.l2, U.noc, U.dram, 0, 1 << 20, 10)
    again, go = l1_load(U.l1, U.l2, U.noc, U.dram, 0, 1 << 20, 20)
    assert (again, go) == (first, 20)


def _metrics(kernel, grid, block, *args, **over):
    spec = TINY.with_(**over)
    return gpusim.launch(kernel, grid, block, *args, gpu=spec, mode="timing").metrics


@cuda.jit
def _store_one(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = i


def test_cold_instruction_fetch_stalls_on_no_instruction_by_the_miss_latency():
    x = np.zeros(32, np.float32)
    key = "smsp__average_warp_latency_issue_stalled_no_instruction.ratio"
    fast = _metrics(_store_one, 1, 32, x, **{"fetch.miss_latency": 0})
    slow = _metrics(_store_one, 1, 32, x, **{"fetch.miss_latency": 300})
    assert fast["gpusim__icache_misses.sum"] > 0
    assert slow["gpusim__icache_misses.sum"] == fast["gpusim__icache_misses.sum"]
    # one exposed miss: the prefetcher keeps the rest of the (short) kernel ahead of the warp
    assert slow[key] - fast[key] == 300
    assert slow["gpc__cycles_elapsed.max"] - fast["gpc__cycles_elapsed.max"] == 300


def test_warps_of_one_sm_share_its_instruction_cache():
    one = _metrics(_store_one, 1, 32, np.zeros(32, np.float32))
    four = _metrics(_store_one, 1, 128, np.zeros(128, np.float32))
    assert four["gpusim__icache_misses.sum"] == one["gpusim__icache_misses.sum"]
    two_sms = _metrics(_store_one, 2, 32, np.zeros(64, np.float32))
    assert two_sms["gpusim__icache_misses.sum"] == 2 * one["gpusim__icache_misses.sum"]


IMC = "smsp__average_warp_latency_issue_stalled_imc_miss.ratio"
PARAMS_PTX = HEAD + """.visible .entry k(.param .u64 p, .param .u32 a, .param .u32 b)
{
.reg .u64 %rd<4>; .reg .u32 %r<8>;
ld.param.u64 %rd1, [p];
ld.param.u32 %r1, [a];
ld.param.u32 %r2, [b];
mov.u32 %r3, %ntid.x;
add.u32 %r4, %r1, %r2;
add.u32 %r4, %r4, %r3;
cvta.to.global.u64 %rd2, %rd1;
st.global.u32 [%rd2], %r4;
ret;
}
"""


def _params(grid, block, **over):
    k = gpusim.load_ptx(PARAMS_PTX)["k"]
    return gpusim.launch(k, grid, block, np.zeros(1, np.uint32), 1, 2, gpu=TINY.with_(**over), mode="timing").metrics


def test_a_cold_constant_block_stalls_the_warp_on_imc_miss_by_its_latency_once_per_block():
    fast = _params(1, 32, **{"fetch.imc_latency": 0})
    slow = _params(1, 32, **{"fetch.imc_latency": 200})
    # the parameters share one 64-B block (c[0x0][0x210..]); %ntid is in block 0: two misses, one after the other
    assert slow["gpusim__imc_misses.sum"] == fast["gpusim__imc_misses.sum"] == 2
    assert slow[IMC] - fast[IMC] == 2 * 200
    # the kernel takes as much longer, less what its other waits (fetch, operands) hid under the misses
    assert 2 * 200 - 50 <= slow["gpc__cycles_elapsed.max"] - fast["gpc__cycles_elapsed.max"] <= 2 * 200


def test_the_warps_of_one_sm_share_its_constant_cache_and_each_sm_fills_its_own():
    one = _params(1, 32)
    four_warps = _params(1, 128)
    assert four_warps["gpusim__imc_misses.sum"] == one["gpusim__imc_misses.sum"]
    two_sms = _params(2, 32)
    assert two_sms["gpusim__imc_misses.sum"] == 2 * one["gpusim__imc_misses.sum"]


def test_a_kernel_that_reads_no_parameter_never_misses_the_constant_cache():
    m = gpusim.launch(gpusim.load_ptx(TINY_PTX)["k"], 1, 32, gpu=TINY, mode="timing").metrics
    assert m["gpusim__imc_misses.sum"] == 0 and m[IMC] == 0


@cuda.jit
def _diverge(x):
    i = cuda.threadIdx.x
    acc = 0
    if i % 2 == 0:                 # half the lanes run a loop, each for its own number of trips
        for k in range(i):
            acc += k * 3
    x[i] = acc


def test_divergent_branch_costs_the_preset_divergence_cycles():
    x = np.zeros(32, np.int64)
    a = _metrics(_diverge, 1, 32, x.copy(), **{"pipes.divergence_cycles": 0})
    b = _metrics(_diverge, 1, 32, x.copy(), **{"pipes.divergence_cycles": 100})
    n = b["gpusim__divergent_branch_delays.sum"]
    assert n >= 2
    assert n == a["gpusim__divergent_branch_delays.sum"]
    assert b["gpc__cycles_elapsed.max"] - a["gpc__cycles_elapsed.max"] == 100 * n


def test_uniform_branch_has_no_divergence_delay():
    x = np.zeros(32, np.float32)
    m = _metrics(_store_one, 1, 32, x, **{"pipes.divergence_cycles": 100})
    assert m["gpusim__divergent_branch_delays.sum"] == 0


def test_warp_with_stores_in_flight_stalls_on_drain_before_it_retires():
    m = _metrics(_store_one, 1, 32, np.zeros(32, np.float32))
    assert m["smsp__average_warp_latency_issue_stalled_drain.ratio"] > 0


@cuda.jit
def _no_store(x):
    i = cuda.grid(1)
    if i > 1_000_000:
        x[0] = 1.0


def test_warp_without_stores_does_not_drain():
    m = _metrics(_no_store, 1, 32, np.zeros(32, np.float32))
    assert m["smsp__average_warp_latency_issue_stalled_drain.ratio"] == 0


WIDE_CHAIN = """
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [out];
mov.u64 %rd3, 5;
mov.u64 %rd5, %clock64;
add.s64 %rd3, %rd3, 1;
add.s64 %rd3, %rd3, 1;
setp.gt.s64 %p1, %rd3, 3;
selp.b64 %rd4, 1, 2, %p1;
mov.u64 %rd6, %clock64;
sub.s64 %rd7, %rd6, %rd5;
add.s64 %rd7, %rd7, %rd4;
st.global.u64 [%rd2], %rd7;
"""


def _wide_chain_cycles(**over):
    regs = ".reg .b64 %rd<16>; .reg .pred %p<4>;"
    k = gpusim.load_ptx(HEAD + ".visible .entry k(.param .u64 a, .param .u64 out)\n{\n" + regs + "\n"
                        + WIDE_CHAIN + "\nret;\n}\n")["k"]
    out = np.zeros(1, np.int64)
    gpusim.launch(k, 1, 1, np.zeros(1, np.int64), out, gpu=TINY.with_(**over), mode="timing")
    return int(out[0]) - 1


def test_64_bit_integer_add_and_compare_take_the_int64_latency():
    # three dependent 64-bit carry-chain operations (add, add, setp), then a 32-bit-class selp
    base = _wide_chain_cycles(**{"pipes.lat_int64": 8})
    assert _wide_chain_cycles(**{"pipes.lat_int64": 20}) - base == 3 * 12


def test_64_bit_integer_operations_share_the_int_pipe():
    from gpusim.isa import opcodes as oc
    from gpusim.sm.pipelines import pipe_of
    assert pipe_of(oc.C_INT64) == oc.C_INT
    assert pipe_of(oc.C_FP32) == oc.C_FP32
