"""TMA tensor copies (cp.async.bulk.tensor.Nd .tile) with tensor maps from gpusim.tma.encode_tiled: boxes
partly outside the tensor (zeros loaded, nothing stored), negative coordinates, element strides, a tensor
map as a 128-byte grid-constant parameter or through global memory, 1D to 5D, and a 128B-swizzled load
that wgmma consumes directly (the same swizzle on both sides); both modes agree."""
import itertools

import numpy as np
import pytest
from conftest import HEADER
from test_wgmma import desc, fragment_index, place, random_bits, reference

import gpusim
from gpusim.errors import LaunchError
from gpusim.tma import encode_tiled

MODES = ("functional", "timing")


def box_reference(t, coords, box, es):
    """The box as TMA loads it: dim 0 innermost, zeros outside the tensor (t indexed [dim_{n-1}, .., dim0])."""
    n = [(b + e - 1) // e for b, e in zip(box, es)]
    out = np.zeros(n[::-1], t.dtype)
    for j in itertools.product(*[range(k) for k in n[::-1]]):
        x = [coords[d] + j[len(n) - 1 - d] * es[d] for d in range(len(n))]
        if all(0 <= x[d] < t.shape[len(n) - 1 - d] for d in range(len(n))):
            out[j] = t[tuple(x[::-1])]
    return out


def load_kernel(rank, coords, nbytes, tmap_param=True):
    regs = ", ".join(f"%c{d}" if d % 2 == 0 else str(c) for d, c in enumerate(coords))   # registers and immediates
    tm = "tmap" if tmap_param else "%tm"
    param = ".param .align 64 .b8 tmap[128]" if tmap_param else ".param .u64 tmp"
    return "\n".join([HEADER, f".visible .entry k({param}, .param .u64 out)", "{",
                      ".reg .u32 %t, %i, %w, %nt; .reg .u64 %o, %x, %sa, %tm; .reg .pred %lane0, %ok, %p;",
                      ".reg .b64 %st; .reg .s32 %c<5>;",
                      ".shared .align 1024 .b8 buf[8192]; .shared .align 8 .b64 bar;",
                      "mov.u32 %t, %tid.x; mov.u32 %nt, %ntid.x; setp.eq.u32 %lane0, %t, 0;",
                      "" if tmap_param else "ld.param.u64 %tm, [tmp];"]
                     + [f"mov.s32 %c{d}, {c};" for d, c in enumerate(coords)]
                     + ["@%lane0 mbarrier.init.shared::cta.b64 [bar], 1;", "bar.sync 0;",
                        f"@%lane0 mbarrier.arrive.expect_tx.shared::cta.b64 %st, [bar], {nbytes};",
                        f"@%lane0 cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile"
                        f".mbarrier::complete_tx::bytes [buf], [{tm}, {{{regs}}}], [bar];",
                        "WAIT: mbarrier.try_wait.parity.shared::cta.b64 %ok, [bar], 0; @!%ok bra WAIT;",
                        "ld.param.u64 %o, [out]; mov.u32 %i, %t;",
                        f"COPY: setp.ge.u32 %p, %i, {nbytes // 4}; @%p bra END;",
                        "mul.wide.u32 %x, %i, 4; mov.u64 %sa, buf; add.u64 %sa, %sa, %x; ld.shared.u32 %w, [%sa];",
                        "add.u64 %sa, %o, %x; st.global.u32 [%sa], %w; add.u32 %i, %i, %nt; bra COPY;",
                        "END: ret;", "}", ""])


def run_both(text, make_args, block=64, gpu="tiny"):
    k = gpusim.load_ptx(text)["k"]
    outs = []
    for mode in MODES:
        args = make_args()
        res = gpusim.launch(k, 1, block, *args, mode=mode, gpu=gpu)
        outs.append((args, res))
    return outs


LOADS = [  # (tensor shape innermost first, dtype, box, element strides, coords)
    ((20, 13), np.uint32, (8, 4), (1, 1), (16, 11)),
    ((20, 13), np.uint32, (8, 4), (1, 1), (-3, -1)),
    ((37,), np.uint16, (24,), (1,), (20,)),
    ((16, 9, 5), np.uint8, (16, 4, 2), (2, 1, 1), (3, 7, 4)),
    ((6, 5, 4, 3, 2), np.uint64, (4, 2, 2, 2, 2), (1, 1, 2, 1, 1), (4, -1, 1, 2, 0)),
]
NAMES = {np.uint8: "UINT8", np.uint16: "UINT16", np.uint32: "UINT32", np.uint64: "UINT64"}


@pytest.mark.parametrize("shape, dt, box, es, coords", LOADS, ids=[f"{len(c[0])}d-{i}" for i, c in enumerate(LOADS)])
@pytest.mark.parametrize("through", ["param", "global"])
def test_tensor_load_fills_the_box_with_zeros_outside_the_tensor(shape, dt, box, es, coords, through, rng):
    esize = np.dtype(dt).itemsize
    pitch = -(-shape[0] * esize // 16) * 16                 # rows padded to 16 bytes
    t = np.zeros(shape[::-1][:-1] + (pitch // esize,), dt)
    t[...] = rng.integers(1, 250, t.shape).astype(dt)
    strides = [pitch] if len(shape) > 1 else []
    for d in range(1, len(shape) - 1):
        strides.append(strides[-1] * shape[d])
    ref = box_reference(t[..., :shape[0]], coords, box, es)
    nbytes = ref.nbytes
    text = load_kernel(len(shape), coords, nbytes, through == "param")

    def args():
        tm = encode_tiled(NAMES[dt], len(shape), t.copy(), shape, strides, box, es)
        return [tm, np.zeros(-(-nbytes // 4), np.uint32)]

    for (tm_out, res) in run_both(text, args):
        got = tm_out[1].view(np.uint8)[:nbytes]
        assert np.array_equal(got, ref.reshape(-1).view(np.uint8))
    assert res.metrics["gpusim__tma_bytes.sum"] == nbytes


@pytest.mark.parametrize("swizzle, code, width", [("128B", 1, 64), ("64B", 2, 32), ("32B", 3, 16)])
def test_tensor_load_swizzles_16_byte_chunks_by_row_as_wgmma_descriptors_expect(swizzle, code, width, rng):
    t = rng.integers(0, 2**16, (16, width), dtype=np.uint64).astype(np.uint16)     # 16 rows of one swizzle span
    ref = np.zeros(t.nbytes, np.uint8)
    place(ref, t, 0, 0, 8 * 2 * width, code)
    text = load_kernel(2, (0, 0), t.nbytes)

    def args():
        return [encode_tiled("UINT16", 2, t.copy(), (width, 16), (2 * width,), (width, 16), swizzle=swizzle),
                np.zeros(t.nbytes // 4, np.uint32)]

    for (out, _res) in run_both(text, args):
        assert np.array_equal(out[1].view(np.uint8), ref)
    assert not np.array_equal(ref, t.reshape(-1).view(np.uint8))


def test_tensor_store_writes_the_box_inside_the_tensor_only(rng):
    shape, box, coords = (5, 3, 2, 2, 3), (4, 2, 2, 2, 2), (2, 2, 0, 1, 2)
    n = int(np.prod(box))
    strides = [32]
    for d in range(1, 4):
        strides.append(strides[-1] * shape[d])
    text = "\n".join([HEADER, ".visible .entry k(.param .u64 tmp)", "{",
                      ".reg .u32 %t, %v; .reg .u64 %x, %sa, %tm; .reg .pred %lane0, %p;",
                      ".shared .align 128 .b8 buf[512];",
                      "mov.u32 %t, %tid.x; setp.eq.u32 %lane0, %t, 0; ld.param.u64 %tm, [tmp];",
                      f"setp.lt.u32 %p, %t, {n}; mul.lo.u32 %v, %t, 7; add.u32 %v, %v, 1;",
                      "mul.wide.u32 %x, %t, 4; mov.u64 %sa, buf; add.u64 %sa, %sa, %x; @%p st.shared.u32 [%sa], %v;",
                      "fence.proxy.async.shared::cta; bar.sync 0;",
                      "@%lane0 cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%tm, {2, 2, 0, 1, 2}], "
                      "[buf];",
                      "@%lane0 cp.async.bulk.commit_group; @%lane0 cp.async.bulk.wait_group 0;", "ret;", "}", ""])
    base = np.full((3, 2, 2, 3, 8), 0xDEAD, np.uint32)

    def args():
        return [encode_tiled("UINT32", 5, base.copy(), shape, strides, box)]

    results = run_both(text, args)
    ref = base.copy()
    vals = (np.arange(n) * 7 + 1).astype(np.uint32).reshape(box[::-1])
    for j in itertools.product(*[range(b) for b in box[::-1]]):
        x = [coords[d] + j[4 - d] for d in range(5)]
        if all(0 <= x[d] < shape[d] for d in range(5)):
            ref[tuple(x[::-1])] = vals[j]
    for (a, _res) in results:
        assert np.array_equal(a[0].array, ref)
    assert (ref != 0xDEAD).sum() < n                       # some of the box was outside


def test_tma_128b_swizzled_tiles_feed_wgmma_directly(rng):
    """A (64 x 64 f16) and B (32 x 64) loaded by TMA with the 128B swizzle; four wgmma k-steps read them
    through 128B-swizzled descriptors whose start advances 32 bytes per step."""
    n, kk = 32, 64
    a, b = random_bits(rng, (64, kk), False), random_bits(rng, (n, kk), False)
    nh = n // 2
    dl = ", ".join(f"%d{j}" for j in range(nh))
    params = ".param .align 64 .b8 ta[128], .param .align 64 .b8 tb[128], .param .u64 out"
    lines = [HEADER, f".visible .entry k({params})",
             "{", ".reg .u32 %t; .reg .u64 %o, %x, %dA, %dB; .reg .pred %lane0, %ok; .reg .b64 %st;",
             f".reg .f32 %d<{nh}>;", ".shared .align 1024 .b8 sa[8192]; .shared .align 1024 .b8 sb[4096];",
             ".shared .align 8 .b64 bar;",
             "mov.u32 %t, %tid.x; setp.eq.u32 %lane0, %t, 0;",
             "@%lane0 mbarrier.init.shared::cta.b64 [bar], 1; bar.sync 0;",
             "@%lane0 mbarrier.arrive.expect_tx.shared::cta.b64 %st, [bar], 12288;",
             "@%lane0 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sa], "
             "[ta, {0, 0}], [bar];",
             "@%lane0 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sb], "
             "[tb, {0, 0}], [bar];",
             "WAIT: mbarrier.try_wait.parity.shared::cta.b64 %ok, [bar], 0; @!%ok bra WAIT;",
             "wgmma.fence.sync.aligned;"]
    swz = desc(0, 0, 1024, 1)
    for s in range(4):
        lines += [f"mov.u64 %dA, sa; add.u64 %dA, %dA, {32 * s}; shr.u64 %dA, %dA, 4; or.b64 %dA, %dA, {swz};",
                  f"mov.u64 %dB, sb; add.u64 %dB, %dB, {32 * s}; shr.u64 %dB, %dB, 4; or.b64 %dB, %dB, {swz};",
                  f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {{{dl}}}, %dA, %dB, {1 if s else 0}, "
                  "1, 1, 0, 0;"]
    lines += ["wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;",
              f"ld.param.u64 %o, [out]; mul.wide.u32 %x, %t, {nh * 4}; add.u64 %o, %o, %x;"]
    lines += [f"st.global.f32 [%o+{4 * j}], %d{j};" for j in range(nh)] + ["ret;", "}", ""]

    def args():
        return [encode_tiled("FLOAT16", 2, a.copy(), (kk, 64), (kk * 2,), (kk, 64), swizzle="128B"),
                encode_tiled("FLOAT16", 2, b.copy(), (kk, n), (kk * 2,), (kk, n), swizzle="CU_TENSOR_MAP_SWIZZLE_128B"),
                np.zeros((128, nh), np.float32)]

    rows, cols = fragment_index(n)
    ref = reference(a, b, np.zeros((64, n), np.float32), 0, False)[rows, cols]
    for (out, _res) in run_both("\n".join(lines), args, block=128):
        assert np.array_equal(out[2].view(np.uint32), ref.view(np.uint32))


def test_encode_tiled_refuses_what_gpusim_does_not_model():
    t = np.zeros(64, np.float32)
    with pytest.raises(LaunchError, match="interleaved"):
        encode_tiled("FLOAT32", 1, t, (64,), (), (32,), interleave="32B")
    with pytest.raises(LaunchError, match="NaN_REQUEST_ZERO_FMA"):
        encode_tiled("FLOAT32", 1, t, (64,), (), (32,), oob_fill="NAN_REQUEST_ZERO_FMA")
    with pytest.raises(LaunchError, match="swizzle span"):
        encode_tiled("FLOAT32", 1, t, (64,), (), (64,), swizzle="128B")
