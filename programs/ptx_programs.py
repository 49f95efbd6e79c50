"""Example programs given as PTX (from CUDA C in programs/ptx/, built with nvcc -arch=sm_90 -ptx -lineinfo).

PTX_PROGRAMS maps a name to a dict:
    file        the .ptx file in programs/ptx/ (see PTX_DIR)
    kernel      the .entry to launch (extern "C", so unmangled)
    grid, block 3-tuples
    args        one argspec string per kernel parameter, in order (see programs/argspec.py);
                arrays are passed as 64-bit device pointers
    reference   callable(args) -> {arg index: expected array after the kernel}, where args are the
                parsed arguments as they were before the kernel
    rtol, atol  tolerance of those arrays against the reference (0, 0: bit-exact)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

PTX_DIR = Path(__file__).resolve().parent / "ptx"
N = 4096


def _vecadd_reference(args):
    a, b = args[0], args[1]
    return {2: a + b}


def _reduce_reference(args):
    total = args[1].astype(np.float64) + args[0].sum(dtype=np.float64)
    return {1: total.astype(np.float32)}


def _poly_reference(args):
    x, coeffs, degree = args[0].astype(np.float64), args[1].astype(np.float64), int(args[3])
    y = np.zeros_like(x)
    for c in coeffs[degree::-1]:  # Horner, highest power first
        y = y * x + c
    return {2: y.astype(np.float32)}


PTX_PROGRAMS = {
    "vecadd_cu": dict(
        file="vecadd_cu.ptx",
        kernel="vecadd",
        grid=(N // 256, 1, 1),
        block=(256, 1, 1),
        args=[f"f32[{N}]=rand", f"f32[{N}]=rand", f"f32[{N}]=zeros", f"i32={N}"],
        reference=_vecadd_reference,
        rtol=0.0,
        atol=0.0,
    ),
    "reduce_cu": dict(
        file="reduce_cu.ptx",
        kernel="reduce_sum",
        grid=(8, 1, 1),
        block=(256, 1, 1),
        args=[f"f32[{N}]=rand", "f32[1]=fill:0", f"i32={N}"],
        reference=_reduce_reference,
        rtol=1e-5,
        atol=1e-5,
    ),
    "poly_cu": dict(
        file="poly_cu.ptx",
        kernel="polyval",
        grid=(8, 1, 1),
        block=(128, 1, 1),
        args=[f"f32[{N}]=rand", "f32[8]=rand", f"f32[{N}]=zeros", "i32=7", f"i32={N}"],
        reference=_poly_reference,
        rtol=1e-5,
        atol=1e-6,
    ),
}


def _add_cuda_programs():
    from programs.cuda_programs import CUDA_PROGRAMS
    PTX_PROGRAMS.update(CUDA_PROGRAMS)


_add_cuda_programs()
