"""Held-out whole kernels ported from public code (none written for this project), as validation cases.

Like `programs.py`, these are never used for fitting the preset: they measure how well gpusim predicts
code it was not tuned on. Each case names its source in DESCRIPTION and in the comment above its kernel:
the NVIDIA CUDA samples (scan, sortingNetworks, matrixMul, convolutionSeparable, transpose, reduction),
Mark Harris's "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), Sanders & Kandrot's "CUDA by
Example" (histogram with global atomics), NVIDIA developer-blog kernels (warp-aggregated atomics;
Volta-safe warp-synchronous code), Bell & Garland's CSR SpMV kernels (NVIDIA NVR-2008-004), the
stencil_1d of NVIDIA's "CUDA C/C++ Basics" tutorial, Simon Boehm's SGEMM_CUDA 2-D block tiling, and
textbook patterns (thread-private histograms, pointer chases, gathers).

Rules every case follows:
- one kernel launch; every check is bit-exact (RTOL = ATOL = 0). Float cases use small integers stored
  as float32, so every partial sum is exact and the result does not depend on the summation order or on
  NVVM contracting a*b+c into fma (the validation suite compiles with contraction on, as the GPU does).
  Kernels whose float results depend on libdevice or on rounding order (BlackScholes, n-body,
  Mandelbrot, Monte Carlo) are left out for that reason.
- no float atomics; integer atomics only where their result is order-independent, or the check is
  (stream compaction: `run` sorts the compacted prefix before it is compared).
- the recorder relaunches a case's kernel on the same device arrays for its timings, so no kernel may
  index out of bounds on a relaunch: the compaction kernels write their output modulo its (power-of-two)
  capacity.

`small_cases()` builds small variants of every case (same kernels) for numba's CUDA simulator and for
the fast functional test in tests/timing/test_heldout_cases.py.
"""
from __future__ import annotations

from validation.cases._case import Case
from validation.cases.heldout.atomics import _compact_case, _histo_case, filter_naive, filter_warp_aggregated
from validation.cases.heldout.irregular import _gather_case, _spmv_case, _transpose_diag_case
from validation.cases.heldout.reductions import _harris_case, _reduce_gs_case, reduce4_first_add, reduce6_unrolled
from validation.cases.heldout.shared import _bitonic_case, _matmul32_case, _scan_case, _smem_chase_case
from validation.cases.heldout.spills import _local_hist_case, _regtile_case
from validation.cases.heldout.stencils import _conv_case, _stencil_case


# ---------------------------------------------------------------------------------------------------
def _all(small: bool) -> list[Case]:
    s = small
    return [
        _local_hist_case(*((2, 64, 8) if s else ())),
        _regtile_case(*((128, 128, 16) if s else ())),
        _histo_case("ho_hist256_global_uniform", False, 4096 if s else 1 << 21, *((2, 64) if s else ())),
        _histo_case("ho_hist256_global_skewed", True, 4096 if s else 1 << 19, *((2, 64) if s else ())),
        _compact_case("ho_compact_atomic_naive", filter_naive, 1000 if s else 1 << 20, *((64,) if s else ())),
        _compact_case("ho_compact_warp_aggregated", filter_warp_aggregated, 1000 if s else 1 << 22,
                      *((64,) if s else ())),
        _reduce_gs_case("ho_reduce_gs_two_loads", True, *((1 << 13, 4) if s else ())),
        _reduce_gs_case("ho_reduce_gs_one_load", False, *((1 << 13, 4) if s else ())),
        _smem_chase_case(*((64, 32) if s else ())),
        _scan_case(*((1 << 12,) if s else ())),
        _bitonic_case(*((1 << 11,) if s else ())),
        _matmul32_case(*((64, 64, 96) if s else ())),
        _harris_case("ho_reduce4_first_add", reduce4_first_add, *((1 << 11,) if s else ())),
        _harris_case("ho_reduce6_unrolled", reduce6_unrolled, *((1 << 11,) if s else ())),
        _conv_case("ho_convsep_rows", True, *((256, 16) if s else ())),
        _conv_case("ho_convsep_cols", False, *((32, 128) if s else ())),
        _transpose_diag_case(*((64, 32) if s else ())),
        _spmv_case("ho_spmv_csr_scalar", False, *((512, 64, 64) if s else ())),
        _spmv_case("ho_spmv_csr_vector", True, *((64, 64, 64) if s else ())),
        _stencil_case(*((1 << 11,) if s else ())),
        _gather_case(*((1 << 11,) if s else ())),
    ]


def small_cases() -> list[Case]:
    """Small variants of every case (same kernels, same names) for numba's simulator and fast tests."""
    return _all(small=True)


CASES = _all(small=False)
