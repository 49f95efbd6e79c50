"""What a warp waits for when its load touches many lines (thirty-seventh pass, probe gather_latency): the load's
line requests leave the SM `l1.miss_line_cycles` apart and at most one per `l1.miss_interval` an SM; part of each
read's L2 and DRAM latency is exponentially spread (`l2.spread`, `dram.spread`, its mean taken off so a lone read
keeps its average); the SM's port takes returns in the order they arrive; a DRAM channel hands back a read anywhere
between its arrival and its FIFO turn (`dram.reorder`)."""
import json
from pathlib import Path

import numpy as np
from numba import cuda

import gpusim
from gpusim.memory.dram import dram_read, jitter
from gpusim.memory.interconnect import deliver
from gpusim.memory.l1 import begin_request, send_miss
from gpusim.presets import H100
from gpusim.timing.state import make_units

TINY_PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"
RECORD = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_gather_latency_h200.json"


def _units(spec):
    return make_units(spec, gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)


def test_the_spread_keeps_a_lone_reads_mean_and_is_the_same_every_run():
    draws = np.array([jitter(30.0, s * 4, 1000 + 7 * s) for s in range(20_000)])
    assert abs(draws.mean()) < 1.5                  # mean taken off
    assert draws.min() >= -30 and draws.max() <= 30 * 8
    assert np.percentile(draws, 90) > 30            # a tail: max of many reads is late
    again = np.array([jitter(30.0, s * 4, 1000 + 7 * s) for s in range(20_000)])
    assert (draws == again).all()
    assert jitter(0.0, 12345, 99) == 0


def test_a_loads_lines_leave_the_sm_miss_line_cycles_apart_its_sectors_together():
    U = _units(H100.with_(**{"l1.miss_line_cycles": 2.0, "l1.miss_interval": 1.0}))
    begin_request(U.l1)
    sent = [send_miss(U.l1, 0, line * 4 + k, 100) for line in range(8) for k in range(2)]
    assert sent[0::2] == [100 + 2 * i for i in range(8)]      # one line request every 2 cycles
    assert sent[1::2] == sent[0::2]                           # a line's second sector goes with its first
    begin_request(U.l1)                                       # the next load: the SM's queue, one a cycle
    assert send_miss(U.l1, 0, 1000, 100) >= 100


def test_the_sm_sends_at_most_one_line_request_a_cycle():
    U = _units(H100.with_(**{"l1.miss_line_cycles": 0.0, "l1.miss_interval": 1.0}))
    sent = []
    for w in range(64):            # 64 one-line loads ready at once
        begin_request(U.l1)
        sent.append(send_miss(U.l1, 3, 4 * w, 500))
    assert sorted(sent) == list(range(500, 564))
    begin_request(U.l1)
    assert send_miss(U.l1, 4, 0, 500) == 500                  # another SM is not held


def test_the_port_takes_returns_in_arrival_order_not_computation_order():
    late, early = 2000, 1000
    U = _units(H100.with_(**{"noc.port_order": 1}))
    deliver(U.noc, 0, late, 32)                    # computed first, back later
    assert deliver(U.noc, 0, early, 32) == early   # not held behind it
    U = _units(H100.with_(**{"noc.port_order": 0}))
    deliver(U.noc, 0, late, 32)
    assert deliver(U.noc, 0, early, 32) >= late    # the old rule: behind whatever was computed before


def test_a_channel_hands_back_a_waiting_read_between_its_arrival_and_its_fifo_turn():
    def backlog(reorder):
        U = _units(H100.with_(**{"dram.reorder": reorder, "dram.spread": 0.0, "dram.channels": 1,
                                 "dram.bandwidth": 32.0}))
        return [dram_read(U.dram, 4 * i, 0) for i in range(64)]
    fifo, picked = backlog(0.0), backlog(1.0)
    lat = H100.dram.latency
    assert fifo == sorted(fifo) and fifo[-1] > fifo[0] + 40
    assert all(lat <= p <= f for p, f in zip(picked, fifo))
    assert picked != sorted(picked)                # later reads may overtake earlier ones


@cuda.jit
def _gather(chain, n, steps, mask, out):
    lane = cuda.threadIdx.x
    p = 0
    acc = 0
    for _ in range(steps):
        v = chain[p * 1024 + lane * 32] if lane < n else 0
        s = v
        for d in (16, 8, 4, 2, 1):
            s += cuda.shfl_xor_sync(0xFFFFFFFF, s, d)
        p = cuda.shfl_sync(0xFFFFFFFF, v, 0) ^ (s & mask)
        acc += s
    out[lane] = acc


def _gather_cycles(n, spec, steps=64):
    nodes = steps + 1                           # a fresh node each step: DRAM misses (as the probe's dram_ld)
    chain = np.zeros(nodes * 1024, np.int32)
    for k in range(nodes):                      # node k -> k + 1: word 0 of each of its 32 lines
        chain[k * 1024:(k + 1) * 1024:32] = (k + 1) % nodes
    r = gpusim.launch(_gather, 1, 32, chain, np.int32(n), np.int32(steps), np.int32(0), np.zeros(32, np.int32),
                      gpu=spec, mode="timing")
    return r.cycles


def test_a_warp_load_of_32_lines_waits_longer_than_one_of_one_line():
    """The gather_latency probe's dram_ld mode in a launch: per step the H200 waits 174 cycles more for 32 DRAM lines
    than for one; gpusim without the mechanisms a few cycles, with them about a hundred."""
    flat = H100.with_(**{"l1.miss_line_cycles": 0.0, "l1.miss_interval": 0.0, "l2.spread": 0.0, "dram.spread": 0.0})
    grow = (_gather_cycles(32, H100) - _gather_cycles(1, H100)) / 64
    grow_flat = (_gather_cycles(32, flat) - _gather_cycles(1, flat)) / 64
    assert grow_flat < 15
    assert grow > grow_flat + 60


def test_the_gather_record_grows_with_the_lines_a_load_touches():
    rows = {(r["mode"], r["n"]): r["mean"] for r in json.loads(RECORD.read_text())["results"]}
    for mode in ("l2", "l2_fresh", "l2_fresh_ld", "dram", "dram_ld", "l2_busy"):
        assert rows[(mode, 32)] > rows[(mode, 1)] + 50, mode
        assert rows[(mode, 16)] > rows[(mode, 4)]
    # plain ld.global and ld.global.cg alike: the growth is not the L1's
    assert abs((rows[("l2_fresh_ld", 32)] - rows[("l2_fresh_ld", 1)])
               - (rows[("l2_fresh", 32)] - rows[("l2_fresh", 1)])) < 10
    # from a busy SM (8 warps gathering) 32 lines cost more than from an idle one
    assert rows[("l2_busy", 32)] - rows[("l2_busy", 1)] > rows[("l2", 32)] - rows[("l2", 1)] + 20
