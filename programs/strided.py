"""strided: out[i] = src[i * stride], a gather whose loads are spread over `stride` times more memory.

size: number of elements copied (len(out)); src has size * stride elements (stride = 4).
grid = ceil(size / 256) blocks of 256 threads. Shows uncoalesced loads: each warp's 32 loads
touch 4x as many 32-byte sectors as a unit-stride copy.
"""
import numpy as np
from numba import cuda, float32, int64

NAME = "strided"
DESCRIPTION = "strided copy out[i] = src[i * stride] (uncoalesced loads, stride 4)"
DEFAULT_SIZE = 1 << 18
SMALL_SIZE = 4096
RTOL = 0.0
ATOL = 0.0
BLOCK = 256
STRIDE = 4


def strided_copy(src, out, stride, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = src[i * stride]


KERNELS = [(strided_copy, (float32[::1], float32[::1], int64, int64))]


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"src": rng.random(size * STRIDE, dtype=np.float32), "stride": STRIDE}


def run(launch, inp):
    src, stride = inp["src"], int(inp["stride"])
    n = src.size // stride
    out = np.zeros(n, dtype=np.float32)
    launch(strided_copy, (n + BLOCK - 1) // BLOCK, BLOCK, src, out, stride, n)
    return {"out": out}


def reference(inp):
    stride = int(inp["stride"])
    n = inp["src"].size // stride
    return {"out": inp["src"][: n * stride : stride].copy()}
