"""triton_matmul_fp16: Triton's tutorial 03 as written, float16 inputs and output with a float32
accumulator, 64x64x32 tiles, num_stages=3, 4 warps.

On h100 Triton makes it of cp.async (the pipelined K loop), wgmma (the dot, with fence.proxy.async)
and ldmatrix; on a100 of cp.async, ldmatrix and mma.sync.m16n8k16; on v100 (sm_70, `--gpu v100`) the
dot is FMAs.
size: M = N = K.
"""
from programs.triton import _matmul

NAME = "triton_matmul_fp16"
DESCRIPTION = "Triton tutorial 03: fp16 matmul, 64x64x32 tiles, 3 stages (tensor cores on sm_80+)"
TRITON = True
DEFAULT_SIZE = 512
SMALL_SIZE = 128
RTOL = 1e-2
ATOL = 2e-2
CONFIG = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, num_stages=3, num_warps=4)


def inputs(size, seed=0):
    import numpy as np
    return _matmul.inputs(size, np.float16, seed)


def run(launch, inp, **config):
    return _matmul.run(launch, inp, {**CONFIG, **config})


reference = _matmul.reference
