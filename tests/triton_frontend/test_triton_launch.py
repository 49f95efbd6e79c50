"""gpusim.triton: @triton.jit kernels compiled on the CPU run on gpusim with Triton's call shape,
specialisation and launch geometry; mistakes are LaunchErrors that name them."""
import re

import numpy as np
import pytest

triton = pytest.importorskip("triton", reason="Triton is not installed (pip install gpusim[triton]; Linux only)")
tl = pytest.importorskip("triton.language")

import gpusim.triton as gt  # noqa: E402
from gpusim.errors import LaunchError  # noqa: E402


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def scale(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


@triton.jit
def bad_block(x_ptr):
    tl.store(x_ptr + tl.arange(0, 3), 1.0)        # tl.arange needs a power of two


def _vectors(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32), np.zeros(n, np.float32)


def test_jit_launch_runs_the_kernel_and_updates_arrays_in_place():
    x, y, out = _vectors(3000)
    res = gt.jit_launch(add, (triton.cdiv(3000, 1024),), x, y, out, 3000, BLOCK=1024, mode="functional")
    np.testing.assert_array_equal(out, x + y)
    assert res.grid == (3, 1, 1) and res.mode == "functional"


def test_block_is_32_threads_per_warp_of_num_warps():
    x, y, out = _vectors(512)
    res = gt.jit_launch(add, (1,), x, y, out, 512, BLOCK=512, num_warps=8, mode="functional")
    assert res.block == (256, 1, 1)
    np.testing.assert_array_equal(out, x + y)


def test_on_gpusim_takes_tritons_call_shape_and_a_grid_of_the_meta_parameters():
    x, y, out = _vectors(2000)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (triton.cdiv(meta["x_ptr"].size, meta["BLOCK"]),)

    res = gt.on_gpusim(add, mode="functional")[grid](x, y, out, 2000, BLOCK=256)
    np.testing.assert_array_equal(out, x + y)
    assert res.grid == (8, 1, 1) and seen["BLOCK"] == 256 and seen["x_ptr"] is x


def test_timing_mode_counts_cycles():
    x, y, out = _vectors(1024)
    res = gt.jit_launch(add, (1,), x, y, out, 1024, BLOCK=1024, gpu="tiny")
    assert res.cycles > 0 and res.mode == "timing"
    np.testing.assert_array_equal(out, x + y)


def test_an_int_equal_to_one_is_specialised_to_a_constexpr_and_leaves_the_ptx_parameters():
    x, y, out = _vectors(16)
    k = gt.compile_for(add, x, y, out, 1, BLOCK=16)
    assert k.signature["n"] == "constexpr"
    assert len(k.kernel.decoded.params) == 3 + 2          # three pointers and Triton's two scratch pointers
    gt.jit_launch(add, (1,), x, y, out, 1, BLOCK=16, mode="functional")
    assert out[0] == x[0] + y[0] and not out[1:].any()


def _n_attrs(k) -> str:
    """The attributes of parameter n in the kernel's Triton IR."""
    return re.search(r"%n: i\d+ (\{[^}]*\})?", k.asm["ttir"]).group(0)


def test_ints_divisible_by_16_get_triton_divisibility_and_large_ints_are_i64():
    x, y, out = _vectors(16)
    assert "tt.divisibility = 16" in _n_attrs(gt.compile_for(add, x, y, out, 4096, BLOCK=16))
    assert "tt.divisibility" not in _n_attrs(gt.compile_for(add, x, y, out, 4097, BLOCK=16))
    assert gt.compile_for(add, x, y, out, 4097, BLOCK=16).signature["n"] == "i32"
    assert gt.compile_for(add, x, y, out, 2**33, BLOCK=16).signature["n"] == "i64"


def test_numpy_scalars_pass_as_python_scalars_and_floats_as_fp32():
    x, _, out = _vectors(100)
    k = gt.compile_for(scale, x, out, np.int32(100), np.float32(2.5), BLOCK=128)
    assert k.signature["alpha"] == "fp32" and k.signature["n"] == "i32"
    gt.jit_launch(scale, (1,), x, out, np.int64(100), np.float32(2.5), BLOCK=128, mode="functional")
    np.testing.assert_array_equal(out, x * np.float32(2.5))


def test_array_dtypes_become_triton_pointer_types():
    a16, a8, out = np.zeros(16, np.float16), np.zeros(16, np.int8), np.zeros(16, np.int64)
    k = gt.compile_for(add, a16, a8, out, 16, BLOCK=16)
    assert [k.signature[p] for p in ("x_ptr", "y_ptr", "out_ptr")] == ["*fp16", "*i8", "*i64"]


@triton.jit
def widen(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n).to(tl.float32), mask=offs < n)


def test_reinterpret_types_raw_bits_as_bf16_and_fp8_pointers_and_passes_the_array():
    x = np.array([1.5, -2.0, 0.1, 3e38], np.float32)
    bf16 = (x.view(np.uint32) >> 16).astype(np.uint16)         # bf16 = the top half of an fp32
    out = np.zeros(4, np.float32)
    k = gt.compile_for(widen, gt.reinterpret(bf16, tl.bfloat16), out, 4, BLOCK=4)
    assert k.signature["x_ptr"] == "*bf16"
    gt.jit_launch(widen, (1,), gt.reinterpret(bf16, "bfloat16"), out, 4, BLOCK=4, mode="functional")
    np.testing.assert_array_equal(out, (bf16.astype(np.uint32) << 16).view(np.float32))
    e4m3 = np.array([0x38, 0xC4, 0x01, 0x7E], np.uint8)          # 1, -3, 2^-9, 448
    gt.jit_launch(widen, (1,), gt.reinterpret(e4m3, tl.float8e4nv), out, 4, BLOCK=4, mode="functional")
    np.testing.assert_array_equal(out, [1.0, -3.0, 2.0 ** -9, 448.0])


@pytest.mark.parametrize("array, dtype, words", [
    (np.zeros(4, np.uint16), "float8e4nv", ["8 bits wide", "uint16"]),
    (np.zeros(4, np.uint8), "float8", ["no triton.language dtype"]),
    ([0, 1], "float8e4nv", ["numpy array", "list"]),
])
def test_reinterpret_refuses_other_widths_and_names(array, dtype, words):
    with pytest.raises(LaunchError) as e:
        gt.reinterpret(array, dtype)
    for w in words:
        assert w in str(e.value)


def test_compiled_kernels_are_cached_per_specialisation():
    x, y, out = _vectors(64)
    assert gt.compile_for(add, x, y, out, 64, BLOCK=64) is gt.compile_for(add, x, y, out, 48, BLOCK=64)
    assert gt.compile_for(add, x, y, out, 64, BLOCK=64) is not gt.compile_for(add, x, y, out, 64, BLOCK=32)


@pytest.mark.parametrize("gpu, target", [("h100", ".target sm_90a"), ("a100", ".target sm_80"),
                                         ("v100", ".target sm_70")])
def test_kernels_compile_for_the_presets_architecture(gpu, target):
    x, y, out = _vectors(64)
    assert target in gt.compile_for(add, x, y, out, 64, BLOCK=64, gpu=gpu).ptx


@pytest.mark.parametrize("args, kwargs, words", [
    ((np.zeros(4, np.float32),), {"BLOCK": 4}, ["missing", "y_ptr", "parameters"]),
    ((np.zeros(4, np.float32),) * 3 + (4, 4, 5), {}, ["positional", "parameters"]),
    ((np.zeros(4, np.float32),) * 3 + (4, 4), {"BLOCK": 4}, ["multiple values", "BLOCK"]),
    ((np.zeros(4, np.float32),) * 3 + (4,), {"BLOCK": 4, "BLOK": 2}, ["no parameter 'BLOK'"]),
    ((np.zeros(4, np.complex64),) * 3 + (4,), {"BLOCK": 4}, ["complex64", "no Triton pointer type"]),
    ((np.zeros(4, np.float32),) * 3 + ("four",), {"BLOCK": 4}, ["cannot pass"]),
    ((np.zeros(8, np.float32)[::2],) * 3 + (4,), {"BLOCK": 4}, ["non-contiguous"]),
], ids=["too_few", "too_many", "twice", "unknown_keyword", "complex_array", "string", "strided_view"])
def test_bad_calls_are_launch_errors_that_name_the_mistake(args, kwargs, words):
    with pytest.raises(LaunchError) as e:
        gt.jit_launch(add, (1,), *args, mode="functional", **kwargs)
    for w in words:
        assert w in str(e.value)


def test_a_plain_function_is_refused():
    with pytest.raises(LaunchError, match="expected a @triton.jit function"):
        gt.jit_launch(lambda x: x, (1,), 1)


def test_a_triton_compile_error_is_a_launch_error_naming_the_kernel():
    with pytest.raises(LaunchError, match="Triton could not compile 'bad_block'"):
        gt.jit_launch(bad_block, (1,), np.zeros(4, np.float32), mode="functional")


@triton.jit
def affine_if(x_ptr, coeffs, flag, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    if flag:
        v = v * coeffs[0] + coeffs[1]
    tl.store(x_ptr + offs, v, mask=offs < n)


def test_tuples_are_flattened_and_bools_pass_as_u1_parameters():
    x = np.arange(10, dtype=np.float32)
    k = gt.compile_for(affine_if, x, (2.0, 3.0), True, 10, BLOCK=16)
    assert k.signature["coeffs"] == ("fp32", "fp32") and k.signature["flag"] == "u1"
    gt.jit_launch(affine_if, (1,), x, (2.0, 3.0), True, 10, BLOCK=16, mode="functional")
    np.testing.assert_array_equal(x, np.arange(10, dtype=np.float32) * 2 + 3)
    gt.jit_launch(affine_if, (1,), x, (2.0, 3.0), False, 10, BLOCK=16, mode="functional")
    np.testing.assert_array_equal(x, np.arange(10, dtype=np.float32) * 2 + 3)


def test_a_spec_made_from_a_preset_compiles_for_that_presets_architecture():
    from gpusim.presets import get_preset
    mine = get_preset("a100").with_(name="my_a100")
    assert gt.arch_of(mine) == 80 and gt.arch_of(get_preset("tiny")) == 90


@triton.jit
def same_block(x_ptr, out_ptr, BLOCK: tl.constexpr, MOD: tl.constexpr):
    offs = tl.arange(0, BLOCK)                  # every program reads the same BLOCK elements
    x = tl.load(x_ptr + offs, cache_modifier=MOD)
    tl.store(out_ptr + tl.program_id(0) * BLOCK + offs, x * 2.0)


@pytest.mark.parametrize("modifier,l1_hits", [("", True), (".ca", True), (".cg", False), (".cv", False)])
def test_a_loads_cache_modifier_decides_whether_the_l1_serves_it(modifier, l1_hits):
    """Triton's cache_modifier becomes ld.global.cg / .cv, which read past the L1 (the programs' shared block is
    then read from the L2 each time); plain and .ca loads hit the L1 of the SMs that read it before."""
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256 * 264, np.float32)
    ptx = gt.compile_for(same_block, x, out, BLOCK=256, MOD=modifier).ptx
    assert ("ld.global" + modifier + ".") in ptx or not modifier
    res = gt.jit_launch(same_block, (264,), x, out, BLOCK=256, MOD=modifier, num_warps=2, mode="timing")
    np.testing.assert_array_equal(out.reshape(264, 256), np.broadcast_to(2 * x, (264, 256)))
    hit = res.metrics["l1tex__t_sector_hit_rate.pct"]
    assert (hit > 40) if l1_hits else (hit == 0)
