"""triton_flash_attention: Triton's tutorial 06 fused attention forward (flash attention), written
compactly: softmax(Q K^T / sqrt(d)) V for fp16 Q, K, V of shape (Z, H, N_CTX, 64), fp32 accumulation,
causal (default) or not (`run(..., causal=False)`), BLOCK_M=64, BLOCK_N=64, 4 warps, num_stages=3.

On h100 Triton makes both dots wgmma.mma_async m64n64k16 f32.f16.f16 (Q K^T with both operands
from shared memory, P V with P from registers), with the online softmax between them in registers.
BLOCK_M=128 and num_stages=2 run as well (tests/triton_frontend); nothing in it is refused.
size: N_CTX (a multiple of BLOCK_M); Z=1, H=2 heads. `reference(inp, causal=...)` takes the same flag.
"""
import math

import numpy as np

NAME = "triton_flash_attention"
DESCRIPTION = "Triton tutorial 06: fused attention forward (online softmax, causal), fp16, head_dim 64"
TRITON = True
DEFAULT_SIZE = 1024
SMALL_SIZE = 128
RTOL = 1e-2
ATOL = 1e-2
HEADS = 2
HEAD_DIM = 64
CONFIG = dict(BLOCK_M=64, BLOCK_N=64, num_stages=3, num_warps=4)


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    shape = (1, HEADS, size, HEAD_DIM)
    return {k: (rng.standard_normal(shape, dtype=np.float32) * 0.5).astype(np.float16) for k in "qkv"}


def run(launch, inp, causal=True, **config):
    from programs.triton.kernels import attn_fwd_kernel
    cfg = {**CONFIG, **config}
    q, k, v = inp["q"], inp["k"], inp["v"]
    z, h, n_ctx, d = q.shape
    out = np.zeros_like(q)
    st = [s // q.itemsize for s in q.strides]
    launch(attn_fwd_kernel, (n_ctx // cfg["BLOCK_M"], z * h), q, k, v, out, 1.0 / math.sqrt(d), st[0], st[1],
           st[2], h, n_ctx, HEAD_DIM=d, CAUSAL=causal, **cfg)
    return {"out": out}


def reference(inp, causal=True):
    q, k, v = (inp[x].astype(np.float32) for x in "qkv")
    s = q @ k.swapaxes(-1, -2) / np.float32(math.sqrt(q.shape[-1]))
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return {"out": ((p / p.sum(axis=-1, keepdims=True)) @ v).astype(np.float16)}
