"""Tensor-core PTX as nvcc writes it (tests/isa/ptx/tensor_tile.cu, compiled to tensor_tile.ptx): cp.async
from cuda_pipeline.h, ldmatrix/mma.sync inline asm, and the tf32 / fp8 / bf16 conversion intrinsics."""
from pathlib import Path

import numpy as np
import pytest
from test_isa_tensor_formats import f8_reference, f8_table, tf32_reference

import gpusim

PTX = (Path(__file__).parent / "ptx" / "tensor_tile.ptx").read_text()


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_nvcc_cp_async_ldmatrix_mma_tile_equals_numpy(mode):
    rng = np.random.default_rng(9)
    a = rng.integers(-8, 9, (16, 16)).astype(np.float16)
    b = rng.integers(-8, 9, (16, 8)).astype(np.float16)
    d = np.zeros(128, np.float32)
    res = gpusim.launch(gpusim.load_ptx(PTX)["tile"], 1, 32, a, np.ascontiguousarray(b.T), d, mode=mode)
    assert np.array_equal(d.reshape(16, 8), a.astype(np.float32) @ b.astype(np.float32))
    assert res.metrics["smsp__inst_executed_op_ldgsts.sum"] == 2


def test_nvcc_conversion_intrinsics_round_like_the_references():
    rng = np.random.default_rng(10)
    x = (rng.standard_normal(32) * 300).astype(np.float32)
    y = (rng.standard_normal(32) * 0.05).astype(np.float32)
    tf32, e4, e5, bf, back = (np.zeros(32, t) for t in (np.uint32, np.uint16, np.uint16, np.uint32, np.uint32))
    gpusim.launch(gpusim.load_ptx(PTX)["convert"], 1, 32, x, y, tf32, e4, e5, bf, back)
    assert np.array_equal(tf32, [tf32_reference(v, "rna", False) for v in x])
    for got, fmt in ((e4, "e4m3"), (e5, "e5m2")):   # make_float2(y, x): x to the high byte, y to the low
        assert np.array_equal(got, [(f8_reference(float(u), fmt) << 8) | f8_reference(float(v), fmt)
                                    for u, v in zip(x, y)])
    bits = np.concatenate([y, x]).view(np.uint32).astype(np.int64)
    rne = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint32)
    assert np.array_equal(bf, rne[:32] | (rne[32:] << 16))
    lo = [(int(c) & 0xFF) for c in e4]
    hi = [(int(c) >> 8) for c in e4]
    table = f8_table("e4m3")

    def f16(code):
        v = float(table[code & 0x7F]) * (-1 if code & 0x80 else 1)
        return int(np.float16(v).view(np.uint16))

    assert np.array_equal(back, [f16(a) | (f16(b) << 16) for a, b in zip(lo, hi)])
