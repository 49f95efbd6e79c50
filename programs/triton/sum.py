"""triton_sum: a tl.sum reduction, each program reduces BLOCK_SIZE elements to one partial sum
(Triton lowers tl.sum to shuffles within a warp and shared memory across warps).

size: number of elements; one partial per 1024 elements.
"""
import numpy as np

NAME = "triton_sum"
DESCRIPTION = "tl.sum: one partial sum per program of 1024 elements"
TRITON = True
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 10000
RTOL = 1e-5
ATOL = 1e-4
BLOCK = 1024


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.random(size, dtype=np.float32)}


def run(launch, inp):
    from programs.triton.kernels import sum_kernel
    x = inp["x"]
    nprog = (x.size + BLOCK - 1) // BLOCK
    partial = np.zeros(nprog, np.float32)
    launch(sum_kernel, (nprog,), x, partial, x.size, BLOCK_SIZE=BLOCK)
    return {"partial": partial}


def reference(inp):
    x = inp["x"].astype(np.float64)
    pad = np.zeros((x.size + BLOCK - 1) // BLOCK * BLOCK)
    pad[:x.size] = x
    return {"partial": pad.reshape(-1, BLOCK).sum(axis=1).astype(np.float32)}
