"""The host side of the matmul programs: Triton tutorial 03's launch (a 1-D grid of
cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N) programs, grouped GROUP_SIZE_M rows of tiles at a time)."""
import numpy as np


def inputs(size, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": rng.standard_normal((size, size), dtype=np.float32).astype(dtype),
            "b": rng.standard_normal((size, size), dtype=np.float32).astype(dtype)}


def run(launch, inp, config: dict):
    from programs.triton.kernels import matmul_kernel
    a, b = inp["a"], inp["b"]
    (m, k), (_, n) = a.shape, b.shape
    c = np.zeros((m, n), a.dtype)

    def grid(meta):
        return (-(-m // meta["BLOCK_SIZE_M"]) * -(-n // meta["BLOCK_SIZE_N"]),)

    launch(matmul_kernel, grid, a, b, c, m, n, k, a.strides[0] // a.itemsize, a.strides[1] // a.itemsize,
           b.strides[0] // b.itemsize, b.strides[1] // b.itemsize, c.strides[0] // c.itemsize,
           c.strides[1] // c.itemsize, **config)
    return {"c": c}


def reference(inp):
    c = inp["a"].astype(np.float64) @ inp["b"].astype(np.float64)
    return {"c": c.astype(inp["a"].dtype)}
