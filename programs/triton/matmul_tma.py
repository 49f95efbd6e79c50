"""triton_matmul_tma: an fp16 matmul whose tiles all move by TMA: host-built tensor descriptors
(`gpusim.triton.tensor_descriptor`, Triton's TensorDescriptor over numpy arrays) loaded and stored with
`desc.load` / `desc.store`; 128x128x64 tiles, 3 stages, 4 warps.

On h100 Triton makes it of cp.async.bulk.tensor (TMA loads into 128-byte-swizzled shared memory, and
the C store), mbarrier waits on each stage and wgmma reading the swizzled tiles. The grid is 2-D, one
program per C tile; edges past M, N or K are zero-filled by the TMA unit.
size: M = N = K.
"""
NAME = "triton_matmul_tma"
DESCRIPTION = "fp16 matmul with TMA tensor descriptors, wgmma and mbarrier pipelining (sm_90)"
TRITON = True
DEFAULT_SIZE = 512
SMALL_SIZE = 192
RTOL = 1e-2
ATOL = 2e-2
CONFIG = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, num_stages=3, num_warps=4)


def inputs(size, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    return {"a": rng.standard_normal((size, size), dtype=np.float32).astype(np.float16),
            "b": rng.standard_normal((size, size), dtype=np.float32).astype(np.float16)}


def run(launch, inp, **config):
    import numpy as np

    from gpusim.triton import tensor_descriptor
    from programs.triton.kernels import matmul_tma_kernel
    cfg = {**CONFIG, **config}
    a, b = inp["a"], inp["b"]
    (m, k), (_, n) = a.shape, b.shape
    c = np.zeros((m, n), np.float16)
    bm, bn, bk = cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"], cfg["BLOCK_SIZE_K"]
    launch(matmul_tma_kernel, (-(-m // bm), -(-n // bn)), tensor_descriptor(a, [bm, bk]),
           tensor_descriptor(b, [bk, bn]), tensor_descriptor(c, [bm, bn]), k, **cfg)
    return {"c": c}


def reference(inp):
    import numpy as np
    c = inp["a"].astype(np.float64) @ inp["b"].astype(np.float64)
    return {"c": c.astype(np.float16)}
