"""Triton's flash attention forward (tutorial 06) and the fp8 e4m3 matmul run on h100 with their dots
on wgmma (f32.f16.f16 and f32.e4m3.e4m3): the PTX holds those wgmmas, the simulated run executes them
on the tensor pipe (no mma.sync, no FMA fallback), and the results match numpy."""
import re

import numpy as np
import pytest

pytest.importorskip("triton", reason="Triton is not installed (pip install gpusim[triton]; Linux only)")

import gpusim.triton as gt  # noqa: E402
from programs.triton import flash_attention, matmul_fp8  # noqa: E402

GMMA = "sm__inst_executed_pipe_tensor_op_gmma.sum"
HMMA = "sm__inst_executed_pipe_tensor_op_hmma.sum"


def _run(mod, size=None, **config):
    """(outputs, [LaunchResult], inputs) of mod at SMALL_SIZE on h100, functional mode."""
    inp, runs = mod.inputs(size or mod.SMALL_SIZE, seed=5), []

    def launch(fn, grid, *args, **meta):
        runs.append(gt.jit_launch(fn, grid, *args, gpu="h100", mode="functional", **meta))
        return runs[-1]
    return mod.run(launch, inp, **config), runs, inp


def _ptx(mod, **config):
    kernels = []
    mod.run(lambda fn, grid, *a, **meta: kernels.append(gt.compile_for(fn, *a, **meta)),
            mod.inputs(mod.SMALL_SIZE), **config)
    return kernels[0]


def _close(got, expect, mod):
    np.testing.assert_allclose(got.astype(np.float64), expect.astype(np.float64), rtol=mod.RTOL, atol=mod.ATOL)


@pytest.mark.parametrize("causal", [True, False], ids=["causal", "noncausal"])
@pytest.mark.parametrize("config", [{}, dict(BLOCK_M=128, num_stages=2)], ids=["m64-stages3", "m128-stages2"])
def test_flash_attention_matches_numpy_softmax_qkt_v(causal, config):
    out, _, inp = _run(flash_attention, causal=causal, **config)
    _close(out["out"], flash_attention.reference(inp, causal=causal)["out"], flash_attention)


def test_flash_attention_both_dots_are_fp16_wgmma_executed_on_the_tensor_pipe():
    ptx = _ptx(flash_attention).ptx
    mmas = re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)\.(\w+)\.(\w+)\.(\w+)", ptx)
    assert set(mmas) == {("m64n64k16", "f32", "f16", "f16")}
    assert len(mmas) == 2 * 64 // 16            # Q K^T and P V, each HEAD_DIM or BLOCK_N / k16 steps
    assert "mma.sync" not in ptx
    _, runs, _ = _run(flash_attention, causal=True)
    # causal, N_CTX 128, BLOCK 64: key blocks 1 + 2 per head, 2 heads; 8 wgmma a block, 4 warps each
    assert runs[0].metrics[GMMA] == (1 + 2) * 2 * 8 * 4 and runs[0].metrics[HMMA] == 0


def test_fp8_matmul_matches_the_exactly_decoded_product():
    out, _, inp = _run(matmul_fp8)
    ref = matmul_fp8.reference(inp)["c"]
    assert out["c"].dtype == np.float32
    _close(out["c"], ref, matmul_fp8)


def test_fp8_matmul_dot_is_e4m3_wgmma_on_fp8_pointers():
    k = _ptx(matmul_fp8)
    assert k.signature["a_ptr"] == k.signature["b_ptr"] == "*fp8e4nv"
    mmas = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)\.(\w+)\.(\w+)\.(\w+)", k.ptx))
    assert mmas == {("m64n64k32", "f32", "e4m3", "e4m3")}
    _, runs, _ = _run(matmul_fp8)
    n, tile = matmul_fp8.SMALL_SIZE, matmul_fp8.CONFIG
    ctas = (n // tile["BLOCK_SIZE_M"]) * (n // tile["BLOCK_SIZE_N"])
    assert runs[0].metrics[GMMA] == ctas * 4 * (n // 32) and runs[0].metrics[HMMA] == 0   # 4 warps, k32 steps


def test_e4m3_codec_round_trips_every_finite_value_and_saturates():
    bits = np.array([b for b in range(256) if b & 0x7F != 0x7F], np.uint8)
    vals = matmul_fp8.decode(bits)
    assert np.array_equal(matmul_fp8.encode(vals)[vals != 0], bits[vals != 0])
    assert vals.max() == 448.0 and vals[vals > 0].min() == 2.0 ** -9
    assert matmul_fp8.decode(matmul_fp8.encode(np.array([1e6, -1e6])))[0] == 448.0
