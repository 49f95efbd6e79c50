"""triton_layernorm: Triton's tutorial 05, layer normalisation forward: one program per row makes
the mean and the variance with tl.sum over BLOCK_SIZE chunks, then writes (x - mean) * rstd * w + b.

size: number of rows of 300 columns (chunks of 128, so the loops run three times with a mask).
"""
import numpy as np

NAME = "triton_layernorm"
DESCRIPTION = "Triton tutorial 05: layer norm forward (mean, rstd, normalise) per row"
TRITON = True
DEFAULT_SIZE = 2048
SMALL_SIZE = 16
RTOL = 1e-4
ATOL = 1e-5
COLS = 300
EPS = 1e-5


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((size, COLS), dtype=np.float32),
            "w": rng.random(COLS, dtype=np.float32), "b": rng.random(COLS, dtype=np.float32)}


def run(launch, inp):
    from programs.triton.kernels import layer_norm_fwd
    x, w, b = inp["x"], inp["w"], inp["b"]
    rows, cols = x.shape
    y = np.empty_like(x)
    mean = np.empty(rows, np.float32)
    rstd = np.empty(rows, np.float32)
    launch(layer_norm_fwd, (rows,), x, y, w, b, mean, rstd, x.strides[0] // 4, cols, EPS, BLOCK_SIZE=128)
    return {"y": y, "mean": mean, "rstd": rstd}


def reference(inp):
    x = inp["x"].astype(np.float64)
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(x.var(axis=1) + EPS)
    y = (x - mean[:, None]) * rstd[:, None] * inp["w"] + inp["b"]
    return {"y": y.astype(np.float32), "mean": mean.astype(np.float32), "rstd": rstd.astype(np.float32)}
