"""The CUDA C programs of the classic kinds in programs/cuda/ (PTX committed; programs/cuda/build.sh
rebuilds it with nvcc -arch=sm_90 -ptx -lineinfo), in PTX_PROGRAMS' format (see ptx_programs.py).
`file` is an absolute path, so `PTX_DIR / file` finds it."""
from __future__ import annotations

from pathlib import Path

import numpy as np

CUDA_DIR = Path(__file__).resolve().parent / "cuda"
N = 4096
MAT = 128        # matmul_tiled_cu: MAT x MAT matrices
TR = 256         # transposes: TR x TR matrices


def _matmul_reference(args):
    a = args[0].astype(np.float64).reshape(MAT, MAT)
    b = args[1].astype(np.float64).reshape(MAT, MAT)
    return {2: (a @ b).astype(np.float32).ravel()}


GM = 128         # gemm_mma_cu: GM x GM x GM, f16 inputs, f32 result


def _gemm_mma_reference(args):
    a = args[0].astype(np.float64).reshape(GM, GM)
    bt = args[1].astype(np.float64).reshape(GM, GM)
    return {2: (a @ bt.T).astype(np.float32).ravel()}


def _transpose_reference(args):
    return {1: args[0].reshape(TR, TR).T.ravel().copy()}


def _float_sum_reference(args):
    total = args[1].astype(np.float64) + args[0].sum(dtype=np.float64)
    return {1: total.astype(np.float32)}


def _int_sum_reference(args):
    return {1: (args[1] + args[0].sum(dtype=np.int64)).astype(np.int32)}


def _scan_reference(args, seg=512):
    segments = args[0].astype(np.int64).reshape(-1, seg)
    return {1: np.cumsum(segments, axis=1).astype(np.int32).ravel(),
            2: segments.sum(axis=1).astype(np.int32)}


def _histogram_reference(args):
    return {1: (args[1] + np.bincount(args[0] & 255, minlength=256)).astype(np.uint32)}


def _histogram_dsm_reference(args):
    return {1: (args[1] + np.bincount(args[0] & 1023, minlength=1024)).astype(np.uint32)}


def _bitonic_reference(args, seg=1024):
    return {0: np.sort(args[0].reshape(-1, seg), axis=1).ravel()}


def _spec(file, kernel, grid, block, args, reference, rtol=0.0, atol=0.0):
    return dict(file=str(CUDA_DIR / file), kernel=kernel, grid=grid, block=block, args=args,
                reference=reference, rtol=rtol, atol=atol)


CUDA_PROGRAMS = {
    "gemm_mma_cu": _spec(
        "gemm_mma_cu.ptx", "gemm_mma", (GM // 16, GM // 32, 1), (128, 1, 1),
        [f"f16[{GM * GM}]=rand", f"f16[{GM * GM}]=rand", f"f32[{GM * GM}]=zeros", f"i32={GM}", f"i32={GM}",
         f"i32={GM}"], _gemm_mma_reference, rtol=1e-4, atol=1e-4),
    "matmul_tiled_cu": _spec(
        "matmul_tiled_cu.ptx", "matmul_tiled", (MAT // 16, MAT // 16, 1), (16, 16, 1),
        [f"f32[{MAT * MAT}]=rand", f"f32[{MAT * MAT}]=rand", f"f32[{MAT * MAT}]=zeros", f"i32={MAT}"],
        _matmul_reference, rtol=1e-5, atol=1e-5),
    "transpose_naive_cu": _spec(
        "transpose_naive_cu.ptx", "transpose_naive", (TR // 32, TR // 32, 1), (32, 8, 1),
        [f"f32[{TR * TR}]=rand", f"f32[{TR * TR}]=zeros", f"i32={TR}"], _transpose_reference),
    "transpose_tiled_cu": _spec(
        "transpose_tiled_cu.ptx", "transpose_tiled", (TR // 32, TR // 32, 1), (32, 8, 1),
        [f"f32[{TR * TR}]=rand", f"f32[{TR * TR}]=zeros", f"i32={TR}"], _transpose_reference),
    "reduce_warp_cu": _spec(
        "reduce_warp_cu.ptx", "reduce_warp", (8, 1, 1), (256, 1, 1),
        [f"f32[{N}]=rand", "f32[1]=fill:0", f"i32={N}"], _float_sum_reference, rtol=1e-5, atol=1e-5),
    "reduce_cg_cu": _spec(
        "reduce_cg_cu.ptx", "reduce_cg", (8, 1, 1), (256, 1, 1),
        [f"i32[{N}]=rand", "i32[1]=fill:0", f"i32={N}"], _int_sum_reference),
    "scan_cu": _spec(
        "scan_cu.ptx", "scan_blelloch", (N // 512, 1, 1), (256, 1, 1),
        [f"i32[{N}]=rand", f"i32[{N}]=zeros", f"i32[{N // 512}]=zeros", f"i32={N}"], _scan_reference),
    "histogram_cu": _spec(
        "histogram_cu.ptx", "histogram", (8, 1, 1), (256, 1, 1),
        [f"i32[{N}]=rand", "u32[256]=zeros", f"i32={N}"], _histogram_reference),
    "histogram_dsm_cu": _spec(     # thread-block clusters of 4 (compiled in): bins in distributed shared memory
        "histogram_dsm_cu.ptx", "histogram_dsm", (16, 1, 1), (256, 1, 1),
        [f"i32[{4 * N}]=rand", "u32[1024]=zeros", f"i32={4 * N}"], _histogram_dsm_reference),
    "bitonic_sort_cu": _spec(
        "bitonic_sort_cu.ptx", "bitonic_sort", (8, 1, 1), (512, 1, 1),
        ["f32[8192]=rand"], _bitonic_reference),
}
