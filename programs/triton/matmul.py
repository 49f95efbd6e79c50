"""triton_matmul: Triton's tutorial 03 kernel on float32 with tl.dot(input_precision="ieee") and
num_stages=1: Triton makes the dot of FMAs on tiles in shared memory (ld/st.shared, bar.sync).

With the tutorial's defaults fp32 dots run in tf32 on tensor cores (ldmatrix + mma.sync.m16n8k8.tf32,
wgmma on sm_90 from BLOCK_SIZE_M 64) and num_stages > 1 pipelines the K loop with cp.async; those
variants run too (tests/triton_frontend), with tf32's tolerance.
size: M = N = K.
"""
from programs.triton import _matmul

NAME = "triton_matmul"
DESCRIPTION = "Triton tutorial 03: fp32 matmul, 32x32x32 tiles, FMA dot (ieee), no pipelining"
TRITON = True
DEFAULT_SIZE = 512
SMALL_SIZE = 64
RTOL = 1e-4
ATOL = 1e-4
CONFIG = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=4, INPUT_PRECISION="ieee",
              num_stages=1, num_warps=4)


def inputs(size, seed=0):
    import numpy as np
    return _matmul.inputs(size, np.float32, seed)


def run(launch, inp, **config):
    return _matmul.run(launch, inp, {**CONFIG, **config})


reference = _matmul.reference
