"""triton_histogram: tl.atomic_add into 64 bins of global memory, one atomic per element
(Triton emits atom.global.gpu.acq_rel.add).

size: number of int32 values; 512 per program.
"""
import numpy as np

NAME = "triton_histogram"
DESCRIPTION = "tl.atomic_add histogram: 64 bins, one global atomic per element"
TRITON = True
DEFAULT_SIZE = 1 << 18
SMALL_SIZE = 5000
RTOL = 0.0
ATOL = 0.0
BINS = 64
BLOCK = 512


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.integers(0, 1 << 20, size, dtype=np.int32)}


def run(launch, inp):
    from programs.triton.kernels import histogram_kernel
    x = inp["x"]
    hist = np.zeros(BINS, np.int32)
    launch(histogram_kernel, ((x.size + BLOCK - 1) // BLOCK,), x, hist, x.size, NUM_BINS=BINS, BLOCK_SIZE=BLOCK)
    return {"hist": hist}


def reference(inp):
    return {"hist": np.bincount(inp["x"] % BINS, minlength=BINS).astype(np.int32)}
