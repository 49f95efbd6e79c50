"""triton_softmax: Triton's tutorial 02, a row-wise softmax fused into one kernel (max, exp, sum,
divide on a row held in registers); each program walks rows with a stride of the grid.

size: number of rows of 781 columns (BLOCK_SIZE = next power of two, 1024). num_stages=3: the
tutorial's pipelined row loop, which Triton builds on cp.async (commit/wait groups) and ldmatrix.
"""
import numpy as np

NAME = "triton_softmax"
DESCRIPTION = "Triton tutorial 02: fused row-wise softmax, rows strided over the programs"
TRITON = True
DEFAULT_SIZE = 4096
SMALL_SIZE = 37
RTOL = 1e-5
ATOL = 1e-6
COLS = 781
NUM_STAGES = 3


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((size, COLS), dtype=np.float32)}


def run(launch, inp, num_stages=NUM_STAGES):
    from programs.triton.kernels import softmax_kernel
    x = inp["x"]
    rows, cols = x.shape
    y = np.empty_like(x)
    block = 1 << (cols - 1).bit_length()
    launch(softmax_kernel, (min(rows, 64),), y, x, x.strides[0] // 4, y.strides[0] // 4, rows, cols,
           BLOCK_SIZE=block, num_stages=num_stages, num_warps=8)
    return {"y": y}


def reference(inp):
    x = inp["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": (e / e.sum(axis=1, keepdims=True)).astype(np.float32)}
