"""Run a batch of generated kernels under numba's CUDA simulator (its own process: the simulator must
be chosen before numba is imported).

    python tests/fuzz/cudasim_worker.py BATCH.pkl OUT.npz

BATCH.pkl is a pickled list of dicts {source, grid, block, args} (args: the kernel's arrays, in
order). OUT.npz gets, for case i, `i.k` for every argument k after the kernel, or `i.error` (a
string) if the kernel raised.

numba's simulator has no warp intrinsics; this worker adds shfl_sync, shfl_up/down/xor_sync,
all/any/eq/ballot_sync and syncwarp with their masked semantics: the lanes named in the mask meet
(each lane's n-th call with a given mask meets the others' n-th call with that mask) and exchange
values. A lane outside its own mask, or a shuffle reading a lane outside the mask, is undefined
behaviour on hardware and raises here, so a generator that emits it is caught.
"""
import os

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba is imported anywhere

import pickle  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kernelgen import compile_kernel  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda.simulator.kernelapi import FakeCUDAModule  # noqa: E402

WARP = 32
WAIT_S = 30.0
_lock = threading.Lock()


class UndefinedBehaviour(RuntimeError):
    pass


def _warp(thread):
    """(condition, per-lane call counters, meetings) of the calling thread's warp."""
    manager = thread._manager
    with _lock:
        warps = manager.__dict__.setdefault("_fuzz_warps", {})
        key = thread.thread_id // WARP
        if key not in warps:
            warps[key] = (threading.Condition(), {}, {})
        return warps[key]


def _meet(mask, value, combine):
    """Every lane in `mask` contributes `value`; returns combine(values by lane)[own lane]."""
    thread = threading.current_thread()
    lane = thread.thread_id % WARP
    mask &= 0xFFFFFFFF
    if not mask >> lane & 1:
        raise UndefinedBehaviour(f"lane {lane} executes a warp intrinsic with mask {mask:#010x} that excludes it")
    cond, counters, meetings = _warp(thread)
    with cond:
        seq = counters.get((lane, mask), 0)
        counters[(lane, mask)] = seq + 1
        key = (mask, seq)
        meeting = meetings.setdefault(key, {"values": {}, "result": None, "left": bin(mask).count("1")})
        meeting["values"][lane] = value
        if len(meeting["values"]) == meeting["left"]:
            meeting["result"] = combine(meeting["values"], mask)
            cond.notify_all()
        elif not cond.wait_for(lambda: meeting["result"] is not None, timeout=WAIT_S):
            raise UndefinedBehaviour(f"lanes of mask {mask:#010x} never all arrived (lane {lane} waited)")
        result = meeting["result"]
        meeting["left"] -= 1
        if meeting["left"] == 0:
            del meetings[key]
    if isinstance(result, BaseException):
        raise result
    return result[lane]


def _shuffle(source_lane):
    """combine for a shuffle: each lane gives (value, its own lane argument)."""
    def combine(values, mask):
        out = {}
        for lane, (v, arg) in values.items():
            src = source_lane(lane, int(arg))
            if src is None:
                out[lane] = v
            elif not mask >> src & 1:
                return UndefinedBehaviour(f"lane {lane} reads lane {src}, outside mask {mask:#010x}")
            else:
                out[lane] = values[src][0]
        return out
    return combine


def _shfl_sync(self, mask, value, src_lane):
    return _meet(mask, (value, src_lane), _shuffle(lambda lane, src: src & 31))


def _shfl_up_sync(self, mask, value, delta):
    return _meet(mask, (value, delta), _shuffle(lambda lane, d: lane - d if lane - d >= 0 else None))


def _shfl_down_sync(self, mask, value, delta):
    return _meet(mask, (value, delta), _shuffle(lambda lane, d: lane + d if lane + d < WARP else None))


def _shfl_xor_sync(self, mask, value, lane_mask):
    return _meet(mask, (value, lane_mask), _shuffle(lambda lane, x: (lane ^ x) & 31))


def _vote(reduce):
    def combine(values, mask):
        r = reduce({lane: bool(v) for lane, v in values.items()})
        return {lane: r for lane in values}
    return combine


def _all_sync(self, mask, pred):
    return _meet(mask, pred, _vote(lambda v: all(v.values())))


def _any_sync(self, mask, pred):
    return _meet(mask, pred, _vote(lambda v: any(v.values())))


def _eq_sync(self, mask, pred):
    return _meet(mask, pred, _vote(lambda v: len(set(v.values())) == 1))


def _ballot_sync(self, mask, pred):
    """numba-cuda types ballot_sync's result as int32 (vote.sync's first result is i4): signed."""
    bits = _meet(mask, pred, _vote(lambda v: sum(1 << lane for lane, p in v.items() if p)))
    return bits - (1 << 32) if bits >> 31 else bits


def _syncwarp(self, mask=0xFFFFFFFF):
    _meet(mask, None, lambda values, m: dict.fromkeys(values))


INTRINSICS = {
    "shfl_sync": _shfl_sync, "shfl_up_sync": _shfl_up_sync, "shfl_down_sync": _shfl_down_sync,
    "shfl_xor_sync": _shfl_xor_sync, "all_sync": _all_sync, "any_sync": _any_sync, "eq_sync": _eq_sync,
    "ballot_sync": _ballot_sync, "syncwarp": _syncwarp,
}


def install():
    for name, fn in INTRINSICS.items():
        setattr(FakeCUDAModule, name, fn)


def run_case(case: dict) -> list:
    """The kernel's arguments after running it once on the simulator."""
    ns = compile_kernel(case["source"], f"<case {case.get('seed', '?')}>")
    args = [a.copy() for a in case["args"]]
    cuda.jit(ns["kernel"])[case["grid"], case["block"]](*args)
    return args


def main(argv):
    batch_path, out_path = argv
    install()
    cases = pickle.loads(Path(batch_path).read_bytes())
    out = {}
    for i, case in enumerate(cases):
        try:
            for k, a in enumerate(run_case(case)):
                out[f"{i}.{k}"] = a
        except Exception as e:  # noqa: BLE001  (any failure is reported with the case)
            out[f"{i}.error"] = np.array(f"{type(e).__name__}: {e}")
    np.savez(out_path, **out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
