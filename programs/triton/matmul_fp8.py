"""triton_matmul_fp8: Triton's tutorial 03 matmul kernel on fp8 e4m3 inputs (`tl.float8e4nv`) with a
float32 accumulator and float32 output, 64x64x64 tiles, num_stages=3, 4 warps, as the tutorial runs
it on sm_90: B passed transposed (stored N x K, so both operands are K-major, as fp8 wgmma needs).

numpy has no fp8 dtype: A and B are uint8 arrays of e4m3 bits, typed for the kernel with
gpusim.triton.reinterpret(bits, tl.float8e4nv) (Triton's triton.reinterpret for torch tensors). The
reference decodes the bits exactly and multiplies in float64. On h100 the dot is
wgmma.mma_async m64n64k32 f32.e4m3.e4m3. Needs sm_89+: there is no a100 or v100 variant.
size: M = N = K.
"""
import numpy as np

NAME = "triton_matmul_fp8"
DESCRIPTION = "Triton tutorial 03 on fp8 e4m3 inputs, fp32 accumulation and output (wgmma on sm_90)"
TRITON = True
DEFAULT_SIZE = 512
SMALL_SIZE = 128
RTOL = 1e-5      # every fp8 product is exact in fp32; the error is fp32 summation over K terms
ATOL = 1e-4
CONFIG = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_stages=3, num_warps=4)


def e4m3_values() -> np.ndarray:
    """The value of each of the 256 e4m3 (fn) bit patterns: 1 sign, 4 exponent (bias 7), 3 mantissa
    bits, subnormals at exponent 0, no infinities, NaN at S.1111.111."""
    bits = np.arange(256)
    exp, man = (bits >> 3) & 0xF, bits & 7
    mag = np.where(exp == 0, man / 8.0 * 2.0 ** -6, (1 + man / 8.0) * 2.0 ** (exp - 7.0))
    mag = np.where((bits & 0x7F) == 0x7F, np.nan, mag)
    return np.where(bits & 0x80, -mag, mag)


def decode(bits: np.ndarray) -> np.ndarray:
    """e4m3 bits (uint8) -> their exact values as float64."""
    return e4m3_values()[bits]


def encode(x: np.ndarray) -> np.ndarray:
    """float -> the e4m3 bits of the nearest finite e4m3 value (ties to the lower magnitude's pattern)."""
    vals = e4m3_values()[:0x7F]                  # +0 .. +448, increasing with the bit pattern
    a = np.minimum(np.abs(x), vals[-1])
    hi = np.clip(np.searchsorted(vals, a), 1, len(vals) - 1)
    nearest = np.where(a - vals[hi - 1] <= vals[hi] - a, hi - 1, hi)
    return (nearest | np.where(x < 0, 0x80, 0)).astype(np.uint8)


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": encode(rng.standard_normal((size, size))), "b": encode(rng.standard_normal((size, size)))}


def run(launch, inp, **config):
    import triton.language as tl

    from gpusim.triton import reinterpret
    from programs.triton.kernels import matmul_kernel
    cfg = {**CONFIG, **config}
    a, b = inp["a"], inp["b"]
    (m, k), (_, n) = a.shape, b.shape
    bt = np.ascontiguousarray(b.T)              # N x K: B K-major, as the tutorial passes b.T on sm_90
    c = np.zeros((m, n), np.float32)

    def grid(meta):
        return (-(-m // meta["BLOCK_SIZE_M"]) * -(-n // meta["BLOCK_SIZE_N"]),)

    launch(matmul_kernel, grid, reinterpret(a, tl.float8e4nv), reinterpret(bt, tl.float8e4nv), c, m, n, k,
           k, 1, 1, k, n, 1, **cfg)
    return {"c": c}


def reference(inp):
    return {"c": decode(inp["a"]) @ decode(inp["b"])}
