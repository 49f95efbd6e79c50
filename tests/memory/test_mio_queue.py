"""The SM's MIO instruction queue holds shared accesses issued and not yet begun on the pipe, counted in
instructions (`smem.mio_queue`), not in cycles of queued wavefronts: a 32-way conflicted load (32
wavefronts) takes one entry. While the queue has room a warp's access waits in it and its consumer stalls
on short_scoreboard; only a full queue holds warps at issue (mio_throttle). The H100 shows this on
bank_s32: 85.3 cycles per instruction of short_scoreboard and no mio_throttle."""

import numpy as np
from numba import cuda, float32

import gpusim
from gpusim.presets import apply_overrides, get_preset

WARPS = 32


def conflicted_loads(out):
    sh = cuda.shared.array(1024, float32)
    t = cuda.threadIdx.x
    for i in range(t, 1024, cuda.blockDim.x):
        sh[i] = i
    cuda.syncthreads()
    lane = t & 31
    acc = float32(0)
    for k in range(4):
        acc += sh[(lane * 32 + k) & 1023]      # every lane in bank k: 32 wavefronts
    out[t] = acc


def _run(entries):
    out = np.zeros(WARPS * 32, np.float32)
    gpu = apply_overrides(get_preset("h100"), {"n_sm": 1, "gigathread.gpcs": 1, "smem.mio_queue": entries})
    r = gpusim.launch(conflicted_loads, 1, WARPS * 32, out, gpu=gpu, mode="timing")
    lane = np.arange(WARPS * 32) & 31
    want = sum(((lane * 32 + k) & 1023).astype(np.float32) for k in range(4))
    assert np.array_equal(out, want)
    m = r.metrics
    return (m["smsp__average_warp_latency_issue_stalled_mio_throttle.ratio"],
            m["smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio"],
            m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"], r.cycles)


def test_a_queue_with_an_entry_per_load_holds_no_warp_at_issue():
    mio, short, wavefronts, _ = _run(4 * WARPS)      # each warp's four loads are independent
    assert wavefronts >= 4 * WARPS * 32
    assert mio == 0 and short > 0


def test_a_small_queue_moves_the_wait_from_the_consumer_to_the_issue():
    deep, shallow = _run(4 * WARPS), _run(2)
    assert shallow[0] > 0
    assert shallow[1] < deep[1]
    # the pipe's wavefronts set the time either way
    assert abs(shallow[3] - deep[3]) <= 0.05 * deep[3]
