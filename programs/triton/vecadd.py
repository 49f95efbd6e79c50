"""triton_vecadd: Triton's tutorial 01, out = x + y on float32 vectors, BLOCK_SIZE elements per program.

size: number of elements; grid = cdiv(size, BLOCK_SIZE) programs of 4 warps (a callable of meta).
"""
import numpy as np

NAME = "triton_vecadd"
DESCRIPTION = "Triton tutorial 01: out = x + y, one program per 1024 elements"
TRITON = True
DEFAULT_SIZE = 1 << 20
SMALL_SIZE = 5000
RTOL = 0.0
ATOL = 0.0


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.random(size, dtype=np.float32), "y": rng.random(size, dtype=np.float32)}


def run(launch, inp):
    from programs.triton.kernels import add_kernel
    x, y = inp["x"], inp["y"]
    n = x.size
    out = np.zeros_like(x)
    launch(add_kernel, lambda meta: ((n + meta["BLOCK_SIZE"] - 1) // meta["BLOCK_SIZE"],), x, y, out, n,
           BLOCK_SIZE=1024)
    return {"out": out}


def reference(inp):
    return {"out": inp["x"] + inp["y"]}
