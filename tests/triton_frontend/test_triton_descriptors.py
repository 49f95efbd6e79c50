"""Triton tensor descriptors (host-built TensorDescriptor over numpy arrays): the kernel's desc.load /
desc.store run as TMA tensor copies through gpusim's tensor maps, edges zero-filled on load and
clipped on store, in both modes; the PTX really uses cp.async.bulk.tensor."""
import numpy as np
import pytest

pytest.importorskip("triton", reason="Triton is not installed (pip install gpusim[triton]; Linux only)")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import gpusim.triton as gt  # noqa: E402
from gpusim.errors import LaunchError  # noqa: E402
from programs.triton import matmul_tma  # noqa: E402


@triton.jit
def scale_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = in_desc.load([pid_m * BM, pid_n * BN])
    out_desc.store([pid_m * BM, pid_n * BN], x * 2 + 1)


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_descriptor_load_and_store_cover_a_tensor_with_ragged_edges(mode):
    a = np.random.default_rng(0).standard_normal((200, 96)).astype(np.float32)    # 200 rows: a partial tile
    out = np.full_like(a, -7.0)
    r = gt.jit_launch(scale_kernel, (4, 2), gt.tensor_descriptor(a, [64, 64]), gt.tensor_descriptor(out, [64, 64]),
                      BM=64, BN=64, mode=mode)
    assert np.array_equal(out, a * 2 + 1)          # every element written once, nothing past the edges
    if mode == "timing":
        assert r.metrics["gpusim__tma_copies.sum"] > 0


def test_descriptor_kernels_compile_to_tma_tensor_copies():
    a = np.zeros((64, 64), np.float32)
    tk = gt.compile_for(scale_kernel, gt.tensor_descriptor(a, [64, 64]), gt.tensor_descriptor(a, [64, 64]),
                        BM=64, BN=64)
    assert "cp.async.bulk.tensor.2d" in tk.ptx and tk.metadata.tensordesc_meta


def test_matmul_through_tma_descriptors_matches_numpy():
    inp = matmul_tma.inputs(matmul_tma.SMALL_SIZE, seed=2)
    out = matmul_tma.run(lambda fn, grid, *a, **m: gt.jit_launch(fn, grid, *a, mode="functional", **m), inp)
    ref = matmul_tma.reference(inp)["c"].astype(np.float32)
    assert np.allclose(out["c"].astype(np.float32), ref, rtol=matmul_tma.RTOL, atol=matmul_tma.ATOL)


@pytest.mark.parametrize("bad,msg", [
    (lambda: gt.tensor_descriptor(np.zeros((8, 3), np.float32), [8, 4]), "multiples of 16 bytes"),
    (lambda: gt.tensor_descriptor([1, 2, 3], [2]), "numpy array"),
    (lambda: gt.tensor_descriptor(np.zeros((8, 8), np.float32)[:, ::2], [8, 4]), "C-contiguous"),
])
def test_bad_descriptors_are_refused_with_the_reason(bad, msg):
    with pytest.raises(LaunchError, match=msg):
        bad()


def test_num_ctas_two_runs_in_clusters_of_two_as_tritons_launcher_does():
    from programs.triton import matmul_fp16
    inp = matmul_fp16.inputs(256, seed=1)
    runs = []

    def launch(fn, grid, *a, **m):
        runs.append(gt.jit_launch(fn, grid, *a, mode="functional", **m))
        return runs[-1]
    out = matmul_fp16.run(launch, inp, num_ctas=2, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64)
    ref = matmul_fp16.reference(inp)["c"].astype(np.float32)
    assert np.allclose(out["c"].astype(np.float32), ref, rtol=matmul_fp16.RTOL, atol=matmul_fp16.ATOL)
    assert runs[0].grid == (8, 1, 1)                  # 4 tiles x 2 CTAs, each tile's pair one cluster
    assert "reqnctapercluster" in runs[0].decoded.directives
