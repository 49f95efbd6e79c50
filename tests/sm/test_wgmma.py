"""wgmma.mma_async m64nNk16 .f32.f16.f16 / .f32.bf16.bf16 over one warpgroup (128 threads), bit-exact
against a numpy reference of gpusim's documented order (gpusim/sm/wgmma.py: per element, k = 0, 1, ...
in order, the exact product added in double and rounded once to fp32), for shared-memory operands
through matrix descriptors (no swizzle with non-canonical LBO/SBO, 128B / 64B / 32B swizzle, K slices
addressed by advancing the start address inside a swizzle atom) and A from registers; scale-d,
imm-scale-a/b; both modes agree (run_lanes' rule), and the timing model charges wait_group to `gmma`."""
import numpy as np
import pytest
from conftest import HEADER

import gpusim

WIDTH = {0: None, 1: 128, 2: 64, 3: 32}


def desc(start, lbo, sbo, swz):
    return ((start >> 4) & 0x3FFF) | (((lbo >> 4) & 0x3FFF) << 16) | (((sbo >> 4) & 0x3FFF) << 32) | (swz << 62)


def place(img, mat, start, lbo, sbo, swz):
    """Write the K-major matrix `mat` (rows x K, uint16 bits) into the shared-memory image `img`:
    core matrices of 8 rows x 16 bytes (no swizzle), or 8-row atoms of W-byte rows whose 16-byte
    chunks are permuted by the row (128B: chunk ^ row; 64B: chunk ^ row/2; 32B: chunk ^ row/4)."""
    w = WIDTH[swz]
    for mn in range(mat.shape[0]):
        r = mn % 8
        for k in range(mat.shape[1]):
            kb = 2 * k
            if w is None:
                off = start + (mn // 8) * sbo + (kb // 16) * lbo + r * 16 + kb % 16
            else:
                perm = {128: r, 64: (r >> 1) & 3, 32: (r >> 2) & 1}[w]
                off = start + (mn // 8) * sbo + r * w + ((kb // 16) ^ perm) * 16 + kb % 16
            img[off] = int(mat[mn, k]) & 0xFF
            img[off + 1] = int(mat[mn, k]) >> 8


def values(bits, bf):
    bits = np.asarray(bits, np.uint16)
    if bf:
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return bits.view(np.float16).astype(np.float64)


def random_bits(rng, shape, bf):
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    if bf:
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    return x.astype(np.float16).view(np.uint16)


def reference(a, b, d0, keep, bf, sa=1.0, sb=1.0):
    """D (64 x N) = A (64 x K) * B^T (B given N x K) + D0 in gpusim's documented order."""
    av, bv = values(a, bf) * sa, values(b, bf) * sb
    acc = d0.astype(np.float32) if keep else np.zeros(d0.shape, np.float32)
    for k in range(a.shape[1]):
        acc = (acc.astype(np.float64) + av[:, k, None] * bv[None, :, k]).astype(np.float32)
    return acc


def fragment_index(n):
    """(row, col) of D register j of thread t, as [t, j] arrays."""
    t = np.arange(128)[:, None]
    j = np.arange(n // 2)[None, :]
    q, lane = t // 32, t % 32
    return 16 * q + lane // 4 + 8 * ((j >> 1) & 1), 8 * (j >> 2) + 2 * (lane % 4) + (j & 1)


def a_fragments(a):
    """A (64 x 16 bits) as each thread's four b32 registers."""
    regs = np.zeros((128, 4), np.uint32)
    for t in range(128):
        q, lane = t // 32, t % 32
        for r in range(4):
            row, k = 16 * q + lane // 4 + 8 * (r % 2), 8 * (r // 2) + 2 * (lane % 4)
            regs[t, r] = int(a[row, k]) | (int(a[row, k + 1]) << 16)
    return regs


def kernel(n, ty, steps, a_regs, smem, sa=1, sb=1):
    nh = n // 2
    dl = ", ".join(f"%d{j}" for j in range(nh))
    p = [".param .u64 img", ".param .u64 dinit", ".param .u64 out", ".param .u64 areg", ".param .u32 nwords",
         ".param .u32 keep"] + [f".param .u64 da{s}, .param .u64 db{s}" for s in range(steps)]
    lines = [HEADER, f".visible .entry k({', '.join(p)})", "{",
             ".reg .u32 %t, %i, %w, %n, %kp; .reg .u64 %g, %x, %sa, %sb, %o, %dA, %dB, %sh;",
             ".reg .pred %p, %keep;", f".reg .f32 %d<{nh}>;", ".reg .b32 %a<4>;",
             f".shared .align 1024 .b8 sm[{smem}];",
             "mov.u32 %t, %tid.x; ld.param.u64 %g, [img]; ld.param.u32 %n, [nwords]; mov.u64 %sb, sm;",
             "shr.u64 %sh, %sb, 4; mov.u32 %i, %t;",
             "COPY: setp.ge.u32 %p, %i, %n; @%p bra DONE;",
             "mul.wide.u32 %x, %i, 4; add.u64 %sa, %g, %x; ld.global.u32 %w, [%sa];",
             "add.u64 %sa, %sb, %x; st.shared.u32 [%sa], %w; add.u32 %i, %i, 128; bra COPY;",
             "DONE: bar.sync 0;",
             f"ld.param.u64 %o, [dinit]; mul.wide.u32 %x, %t, {nh * 4}; add.u64 %o, %o, %x;"]
    lines += [f"ld.global.f32 %d{j}, [%o+{4 * j}];" for j in range(nh)]
    lines += ["ld.param.u64 %o, [areg]; mul.wide.u32 %x, %t, 16; add.u64 %o, %o, %x;"]
    lines += [f"ld.global.b32 %a{r}, [%o+{4 * r}];" for r in range(4)]
    lines += ["ld.param.u32 %kp, [keep]; setp.ne.u32 %keep, %kp, 0;", "wgmma.fence.sync.aligned;"]
    for s in range(steps):
        lines += [f"ld.param.u64 %dA, [da{s}]; ld.param.u64 %dB, [db{s}]; add.u64 %dA, %dA, %sh;"
                  "add.u64 %dB, %dB, %sh;"]
        a_op = "{%a0, %a1, %a2, %a3}" if a_regs else "%dA"
        trans = "0" if a_regs else "0, 0"
        scale_d = "%keep" if s == 0 else "1"
        lines.append(f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{{dl}}}, {a_op}, %dB, {scale_d}, "
                     f"{sa}, {sb}, {trans};")
    lines += ["wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;",
              f"ld.param.u64 %o, [out]; mul.wide.u32 %x, %t, {nh * 4}; add.u64 %o, %o, %x;"]
    lines += [f"st.global.f32 [%o+{4 * j}], %d{j};" for j in range(nh)]
    lines += ["ret;", "}", ""]
    return "\n".join(lines)


# (N, type, A: "regs" or (start, lbo, sbo, swizzle), B: (start, lbo, sbo, swizzle), K steps, scale-d, scales, gpu)
CASES = [
    (8, "f16", (0, 128, 256, 0), (4096, 128, 256, 0), 1, 0, (1, 1), "tiny"),
    (24, "bf16", (0, 256, 512, 0), (4096, 1024, 256, 0), 1, 1, (-1, 1), "tiny"),
    (32, "bf16", (0, 0, 1024, 1), (8192, 0, 1024, 1), 4, 1, (1, 1), "tiny"),
    (16, "f16", (0, 0, 512, 2), (4096, 0, 512, 2), 2, 0, (1, -1), "tiny"),
    (40, "f16", (0, 0, 256, 3), (2048, 0, 256, 3), 1, 1, (-1, -1), "tiny"),
    (64, "f16", "regs", (0, 0, 1024, 1), 1, 1, (1, 1), "tiny"),
    (256, "bf16", (0, 0, 1024, 1), (8192, 0, 1024, 1), 2, 1, (1, 1), "h100"),
]


def _id(c):
    a = "regs" if c[2] == "regs" else f"swz{c[2][3]}"
    return f"n{c[0]}-{c[1]}-A{a}-Bswz{c[3][3]}-k{16 * c[4]}"


@pytest.mark.parametrize("n, ty, la, lb, steps, keep, scales, gpu", CASES, ids=[_id(c) for c in CASES])
def test_wgmma_matches_the_documented_fp32_order_bit_for_bit(n, ty, la, lb, steps, keep, scales, gpu, rng):
    bf = ty == "bf16"
    kk = 16 * steps
    a, b = random_bits(rng, (64, kk), bf), random_bits(rng, (n, kk), bf)
    d0 = (rng.standard_normal((64, n)) * 4).astype(np.float32)
    img = np.zeros(16384 if gpu == "tiny" else 65536, np.uint8)
    if la != "regs":
        place(img, a, la[0], la[1], la[2], la[3])
    place(img, b, lb[0], lb[1], lb[2], lb[3])
    params = []
    for s in range(steps):
        for (start, lbo, sbo, swz) in ([la] if la != "regs" else [(0, 0, 0, 0)]) + [lb]:
            adv = start + (32 * s if swz else 2 * lbo * s)      # the next 16 k: 32 bytes on, or 2 core matrices
            params.append(np.uint64(desc(adv, lbo, sbo, swz)))
    rows, cols = fragment_index(n)
    dinit = d0[rows, cols].astype(np.float32)
    areg = a_fragments(a) if la == "regs" else np.zeros((128, 4), np.uint32)
    text = kernel(n, ty, steps, la == "regs", len(img) - 1024, *scales)
    k = gpusim.load_ptx(text)["k"]
    results = []
    for mode in ("functional", "timing"):
        out = np.zeros((128, n // 2), np.float32)
        res = gpusim.launch(k, 1, 128, img[:len(img) - 1024], dinit.ravel(), out, areg.ravel(), (len(img) - 1024) // 4,
                            keep, *params, mode=mode, gpu=gpu)
        results.append((out, res))
    (f_out, _), (t_out, t_res) = results
    assert np.array_equal(f_out.view(np.uint32), t_out.view(np.uint32)), "functional and timing differ"
    ref = reference(a, b, d0, keep, bf, *scales)
    assert np.array_equal(f_out.view(np.uint32), ref[rows, cols].view(np.uint32))
    m = t_res.metrics
    assert m["sm__inst_executed_pipe_tensor_op_gmma.sum"] == 4 * steps
    assert m["smsp__average_warp_latency_issue_stalled_gmma.ratio"] > 0
