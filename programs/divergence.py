"""divergence: branch divergence inside warps, by lane parity, by data, and by a lane-dependent loop.

size: number of int32 values (in [-1000, 1000]). block = 256 threads, grid = ceil(size / 256).
Per element: even lanes compute v = 3x + 1 and odd lanes v = x // 2 (a parity split in every warp);
negative v is negated, non-negative v gets the lane added (a data-dependent split); then a loop of
lane + 1 iterations sums (v + k) % 7, so lane 31 runs 32 times longer than lane 0.
out = loop sum + v. Integer arithmetic: results are exact.
"""
import numpy as np
from numba import cuda, int32, int64

NAME = "divergence"
DESCRIPTION = "warp divergence demo: lane-parity and data-dependent branches, lane-dependent loop counts"
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 2048
RTOL = 0.0
ATOL = 0.0
BLOCK = 256


def divergence(x, out, n):
    i = cuda.grid(1)
    if i < n:
        lane = cuda.threadIdx.x % 32
        v = x[i]
        if lane % 2 == 0:
            v = v * 3 + 1
        else:
            v = v // 2
        if v < 0:
            v = -v
        else:
            v = v + lane
        acc = 0
        for k in range(lane + 1):
            acc += (v + k) % 7
        out[i] = acc + v


KERNELS = [(divergence, (int32[::1], int32[::1], int64))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.integers(-1000, 1001, size=size, dtype=np.int32)}


def run(launch, inp):
    x = inp["x"]
    n = x.size
    out = np.zeros(n, dtype=np.int32)
    launch(divergence, (n + BLOCK - 1) // BLOCK, BLOCK, x, out, n)
    return {"out": out}


def reference(inp):
    x = inp["x"].astype(np.int64)
    lane = np.arange(x.size) % BLOCK % 32
    v = np.where(lane % 2 == 0, x * 3 + 1, x // 2)
    v = np.where(v < 0, -v, v + lane)
    acc = np.zeros_like(v)
    for k in range(32):
        acc += np.where(k <= lane, (v + k) % 7, 0)
    return {"out": (acc + v).astype(np.int32)}
