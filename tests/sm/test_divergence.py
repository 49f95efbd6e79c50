"""SIMT divergence and reconvergence with numba.cuda Python kernels: nested branches, loops whose
lanes leave at different iterations, early return, and the divergence / efficiency counters."""
import numpy as np
import pytest
from numba import cuda

import gpusim


def nested_if_else(x, out):
    i = cuda.grid(1)
    v = x[i]
    if v % 2 == 0:
        if v % 3 == 0:
            r = v * 10
        else:
            r = v + 1000
    else:
        if v > 40:
            r = -v
        elif v > 20:
            r = v * v
        else:
            r = 7
    out[i] = r


def nested_ref(v):
    if v % 2 == 0:
        return v * 10 if v % 3 == 0 else v + 1000
    if v > 40:
        return -v
    return v * v if v > 20 else 7


def test_nested_if_else_gives_each_lane_its_own_path():
    x = np.arange(64, dtype=np.int32)
    out = np.zeros(64, np.int32)
    res = gpusim.launch(nested_if_else, 2, 32, x, out)
    assert out.tolist() == [nested_ref(v) for v in range(64)]
    assert res.metrics["sm__sass_branch_divergent.sum"] > 0


def loop_with_break(limit, out, mask):
    i = cuda.grid(1)
    acc = 0
    k = 0
    while k < 1000:
        acc += k * 3 + 1
        if k == limit[i]:
            break
        k += 1
    out[i] = acc * 1000 + k
    mask[i] = cuda.activemask()


def test_loop_with_break_stops_each_lane_at_its_own_iteration():
    limit = np.array([(l * 7) % 32 for l in range(32)], np.int32)
    out = np.zeros(32, np.int64)
    mask = np.zeros(32, np.uint32)
    gpusim.launch(loop_with_break, 1, 32, limit, out, mask)
    want = [sum(k * 3 + 1 for k in range(n + 1)) * 1000 + n for n in limit.tolist()]
    assert out.tolist() == want


def test_loop_with_break_reconverges_all_lanes():
    limit = np.array([(l * 7) % 32 for l in range(32)], np.int32)
    out = np.zeros(32, np.int64)
    mask = np.zeros(32, np.uint32)
    res = gpusim.launch(loop_with_break, 1, 32, limit, out, mask)
    assert (mask == 0xFFFFFFFF).all(), [hex(m) for m in mask]
    assert res.metrics["sm__sass_branch_divergent.sum"] > 0
    assert res.metrics["gpusim__simt_efficiency.pct"] < 100


def data_dependent_while(x, steps):
    i = cuda.grid(1)
    v = x[i]
    n = 0
    while v != 1:
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        n += 1
    steps[i] = n


def collatz_steps(v):
    n = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        n += 1
    return n


def test_data_dependent_while_loop_runs_each_lane_to_completion():
    x = np.arange(1, 65, dtype=np.int64)
    steps = np.zeros(64, np.int32)
    gpusim.launch(data_dependent_while, 2, 32, x, steps)
    assert steps.tolist() == [collatz_steps(v) for v in range(1, 65)]


def early_return(x, out):
    i = cuda.grid(1)
    if x[i] % 3 == 0:
        return
    v = x[i] * 2
    if x[i] % 3 == 1:
        out[i] = v + 1
        return
    out[i] = v - 1


def test_early_return_lanes_skip_their_writes_while_others_continue():
    x = np.arange(96, dtype=np.int32)
    out = np.full(96, -5, np.int32)
    gpusim.launch(early_return, 3, 32, x, out)
    want = [-5 if v % 3 == 0 else (2 * v + 1 if v % 3 == 1 else 2 * v - 1) for v in range(96)]
    assert out.tolist() == want


def early_return_then_sync(x, out):
    # lanes that return early must not keep the remaining lanes from passing the barrier
    i = cuda.grid(1)
    sm = cuda.shared.array(64, dtype=np.int32)
    if x[i] < 0:
        return
    sm[cuda.threadIdx.x] = x[i] * 2
    cuda.syncthreads()
    out[i] = sm[cuda.threadIdx.x ^ 1]


def test_early_return_lanes_do_not_block_a_later_barrier():
    x = np.arange(64, dtype=np.int32)
    x[::8] = -1
    out = np.full(64, 9999, np.int32)
    gpusim.launch(early_return_then_sync, 1, 64, x, out)
    for t in range(64):
        if x[t] < 0:
            assert out[t] == 9999
        elif x[t ^ 1] >= 0:
            assert out[t] == x[t ^ 1] * 2


def lane_parity_split(x, out):
    i = cuda.grid(1)
    if cuda.laneid % 2 == 0:
        out[i] = x[i] + 1
    else:
        out[i] = x[i] - 1


def uniform_kernel(x, out):
    i = cuda.grid(1)
    if cuda.blockIdx.x % 2 == 0:
        out[i] = x[i] * 2
    else:
        out[i] = x[i] * 3


def test_divergent_kernel_counts_divergent_branches_and_loses_efficiency():
    x = np.arange(128, dtype=np.int32)
    out = np.zeros(128, np.int32)
    res = gpusim.launch(lane_parity_split, 4, 32, x, out)
    assert out.tolist() == [v + 1 if v % 2 == 0 else v - 1 for v in range(128)]
    m = res.metrics
    assert m["sm__sass_branch_divergent.sum"] > 0
    assert m["gpusim__simt_efficiency.pct"] < 100
    assert m["smsp__thread_inst_executed.sum"] < 32 * m["smsp__inst_executed.sum"]


def test_uniform_kernel_has_no_divergence_and_full_efficiency():
    x = np.arange(128, dtype=np.int32)
    out = np.zeros(128, np.int32)
    res = gpusim.launch(uniform_kernel, 4, 32, x, out)
    assert out.tolist() == [v * (2 if (v // 32) % 2 == 0 else 3) for v in range(128)]
    m = res.metrics
    assert m["sm__sass_branch_divergent.sum"] == 0
    assert m["gpusim__simt_efficiency.pct"] == 100
    assert m["smsp__thread_inst_executed.sum"] == 32 * m["smsp__inst_executed.sum"]


def divergent_loop_counts(out):
    i = cuda.grid(1)
    acc = 0
    for k in range(cuda.laneid + 1):
        acc += k
    out[i] = acc


def test_lane_dependent_loop_trip_counts_lower_efficiency_by_the_expected_amount():
    out = np.zeros(32, np.int32)
    res = gpusim.launch(divergent_loop_counts, 1, 32, out)
    assert out.tolist() == [l * (l + 1) // 2 for l in range(32)]
    m = res.metrics
    # thread instructions never exceed 32 per warp instruction, and the loop leaves most lanes idle
    assert m["smsp__thread_inst_executed.sum"] <= 32 * m["smsp__inst_executed.sum"]
    assert m["gpusim__simt_efficiency.pct"] < 75


def bounded(x, out, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = x[i] + 1


@pytest.mark.parametrize("n", [1, 17, 31, 33, 100])
def test_partial_last_warp_and_bounds_check_write_only_valid_elements(n):
    size = ((n + 31) // 32) * 32
    x = np.arange(size, dtype=np.float32)
    out = np.full(size, -1, np.float32)
    gpusim.launch(bounded, (n + 31) // 32, 32, x, out, n)
    assert out[:n].tolist() == (x[:n] + 1).tolist() and (out[n:] == -1).all()


def divergent_shfl(x, out):
    # shuffles inside a branch that only half the warp takes, with a matching member mask
    i = cuda.grid(1)
    v = x[i]
    if cuda.laneid < 16:
        v = cuda.shfl_xor_sync(0x0000FFFF, v, 1)
    else:
        v = cuda.shfl_down_sync(0xFFFF0000, v, 1) + 100
    out[i] = v


def test_shuffles_inside_divergent_branches_use_their_own_lanes():
    x = np.arange(32, dtype=np.int32) * 10
    out = np.zeros(32, np.int32)
    gpusim.launch(divergent_shfl, 1, 32, x, out)
    want = [x[l ^ 1] for l in range(16)] + [(x[l + 1] if l < 31 else x[l]) + 100 for l in range(16, 32)]
    assert out.tolist() == want
