"""wgmma.mma_async over one warpgroup (128 threads): m64nNk16 .f32.f16.f16 / .f32.bf16.bf16, m64nNk8
.f32.tf32.tf32 (low 13 mantissa bits ignored), m64nNk32 .f32 with .e4m3/.e5m2 inputs (mixed too) and .s32
with .s8/.u8 inputs (wrapping, or .satfinite), bit-exact against a numpy reference of gpusim's documented
order (gpusim/sm/wgmma.py: per element, k = 0, 1, ... in order, the exact product added in double and
rounded once to fp32; integers exact), for shared-memory operands
through matrix descriptors (no swizzle with non-canonical LBO/SBO, 128B / 64B / 32B swizzle, K slices
addressed by advancing the start address inside a swizzle atom) and A from registers; scale-d,
imm-scale-a/b; both modes agree (run_lanes' rule), and the timing model charges wait_group to `barrier`,
as the H100 samples its WARPGROUP.DEPBAR."""
import numpy as np
import pytest
from conftest import HEADER

import gpusim

WIDTH = {0: None, 1: 128, 2: 64, 3: 32}


def desc(start, lbo, sbo, swz):
    return ((start >> 4) & 0x3FFF) | (((lbo >> 4) & 0x3FFF) << 16) | (((sbo >> 4) & 0x3FFF) << 32) | (swz << 62)


def place(img, mat, start, lbo, sbo, swz, esize=2, mn_major=False):
    """Write the K-major matrix `mat` (rows x K, uint16 bits) into the shared-memory image `img`:
    core matrices of 8 rows x 16 bytes (no swizzle), or 8-row atoms of W-byte rows whose 16-byte
    chunks are permuted by the row (128B: chunk ^ row; 64B: chunk ^ row/2; 32B: chunk ^ row/4).
    mn_major: the same with the roles of the rows (now 8 k) and the 16-byte chunks (now along M/N),
    as CUTLASS's canonical MN-major layouts place them."""
    if mn_major:
        return _place_mn(img, mat, start, lbo, sbo, swz, esize)
    w = WIDTH[swz]
    for mn in range(mat.shape[0]):
        r = mn % 8
        for k in range(mat.shape[1]):
            kb = esize * k
            if w is None:
                off = start + (mn // 8) * sbo + (kb // 16) * lbo + r * 16 + kb % 16
            else:
                perm = {128: r, 64: (r >> 1) & 3, 32: (r >> 2) & 1}[w]
                off = start + (mn // 8) * sbo + r * w + ((kb // 16) ^ perm) * 16 + kb % 16
            for j in range(esize):
                img[off + j] = (int(mat[mn, k]) >> (8 * j)) & 0xFF


def _place_mn(img, mat, start, lbo, sbo, swz, esize):
    w = WIDTH[swz]
    for mn in range(mat.shape[0]):
        for k in range(mat.shape[1]):
            r = k % 8
            if w is None:
                t = 16 // esize
                off = start + (mn // t) * sbo + (k // 8) * lbo + r * 16 + (mn % t) * esize
            else:
                per = w // esize
                perm = {128: r, 64: (r >> 1) & 3, 32: (r >> 2) & 1}[w]
                byte = (mn % per) * esize
                off = start + (mn // per) * lbo + (k // 8) * sbo + r * w + ((byte // 16) ^ perm) * 16 + byte % 16
            for j in range(esize):
                img[off + j] = (int(mat[mn, k]) >> (8 * j)) & 0xFF


ESIZE = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}


def fp8(bits, exp_bits):
    bits = np.asarray(bits, np.int64)
    man_bits = 7 - exp_bits
    bias = (1 << (exp_bits - 1)) - 1
    sign = np.where(bits & 0x80, -1.0, 1.0)
    e, m = (bits >> man_bits) & ((1 << exp_bits) - 1), bits & ((1 << man_bits) - 1)
    normal = (1 + m / (1 << man_bits)) * np.exp2(e - bias)
    sub = m / (1 << man_bits) * 2.0 ** (1 - bias)
    return sign * np.where(e == 0, sub, normal)


def values(bits, kind):
    if kind in (True, False):                  # the f16 / bf16 flag of the callers before more types
        kind = "bf16" if kind else "f16"
    bits = np.asarray(bits)
    if kind == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if kind == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if kind == "tf32":
        return (bits.astype(np.uint32) & 0xFFFFE000).view(np.float32).astype(np.float64)
    if kind == "s8":
        return bits.astype(np.uint8).view(np.int8).astype(np.float64)
    if kind == "u8":
        return bits.astype(np.float64)
    return fp8(bits, 4 if kind == "e4m3" else 5)


def random_bits(rng, shape, kind):
    if kind in (True, False):
        kind = "bf16" if kind else "f16"
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    if kind == "bf16":
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    if kind == "f16":
        return x.astype(np.float16).view(np.uint16)
    if kind == "tf32":
        return x.view(np.uint32)                          # low mantissa bits set: ignored by the tensor core
    b = rng.integers(0, 256, shape).astype(np.uint8)
    if kind == "e4m3":
        b[(b & 0x7F) == 0x7F] ^= 1                        # no NaN
    if kind == "e5m2":
        b[(b & 0x7C) == 0x7C] &= 0xFB                     # no inf / NaN
    return b


def reference(a, b, d0, keep, kinds, sa=1.0, sb=1.0, satfinite=False):
    """D (64 x N) = A (64 x K) * B^T (B given N x K) + D0 in gpusim's documented order."""
    if kinds in (True, False):
        kinds = ("bf16", "bf16") if kinds else ("f16", "f16")
    av, bv = values(a, kinds[0]) * sa, values(b, kinds[1]) * sb
    if kinds[0] in ("s8", "u8"):
        acc = d0.astype(np.int64) if keep else np.zeros(d0.shape, np.int64)
        acc = acc + (av.astype(np.int64)[:, None, :] * bv.astype(np.int64)[None, :, :]).sum(axis=2)
        if satfinite:
            return np.clip(acc, -2**31, 2**31 - 1).astype(np.int32)
        return acc.astype(np.uint64).astype(np.uint32).view(np.int32)
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


def a_fragments(a, esize=2):
    """A (64 x K elements of esize bytes) as each thread's four b32 registers."""
    regs = np.zeros((128, 4), np.uint32)
    per, half_k = 4 // esize, 16 // esize
    for t in range(128):
        q, lane = t // 32, t % 32
        for r in range(4):
            row, k = 16 * q + lane // 4 + 8 * (r % 2), half_k * (r // 2) + per * (lane % 4)
            regs[t, r] = sum((int(a[row, k + e]) & ((1 << (8 * esize)) - 1)) << (8 * esize * e) for e in range(per))
    return regs


def kernel(n, ty, steps, a_regs, smem, sa=1, sb=1, trans=(0, 0)):
    nh = n // 2
    ta, tb = (ty, ty) if isinstance(ty, str) else ty
    integer = ta in ("s8", "u8")
    dt = "s32" if integer else "f32"
    kk = 32 // ESIZE[ta]
    dl = ", ".join(f"%d{j}" for j in range(nh))
    p = [".param .u64 img", ".param .u64 dinit", ".param .u64 out", ".param .u64 areg", ".param .u32 nwords",
         ".param .u32 keep"] + [f".param .u64 da{s}, .param .u64 db{s}" for s in range(steps)]
    lines = [HEADER, f".visible .entry k({', '.join(p)})", "{",
             ".reg .u32 %t, %i, %w, %n, %kp; .reg .u64 %g, %x, %sa, %sb, %o, %dA, %dB, %sh;",
             ".reg .pred %p, %keep;", f".reg .{dt} %d<{nh}>;", ".reg .b32 %a<4>;",
             f".shared .align 1024 .b8 sm[{smem}];",
             "mov.u32 %t, %tid.x; ld.param.u64 %g, [img]; ld.param.u32 %n, [nwords]; mov.u64 %sb, sm;",
             "shr.u64 %sh, %sb, 4; mov.u32 %i, %t;",
             "COPY: setp.ge.u32 %p, %i, %n; @%p bra DONE;",
             "mul.wide.u32 %x, %i, 4; add.u64 %sa, %g, %x; ld.global.u32 %w, [%sa];",
             "add.u64 %sa, %sb, %x; st.shared.u32 [%sa], %w; add.u32 %i, %i, 128; bra COPY;",
             "DONE: bar.sync 0;",
             f"ld.param.u64 %o, [dinit]; mul.wide.u32 %x, %t, {nh * 4}; add.u64 %o, %o, %x;"]
    lines += [f"ld.global.{dt} %d{j}, [%o+{4 * j}];" for j in range(nh)]
    lines += ["ld.param.u64 %o, [areg]; mul.wide.u32 %x, %t, 16; add.u64 %o, %o, %x;"]
    lines += [f"ld.global.b32 %a{r}, [%o+{4 * r}];" for r in range(4)]
    lines += ["ld.param.u32 %kp, [keep]; setp.ne.u32 %keep, %kp, 0;", "wgmma.fence.sync.aligned;"]
    for s in range(steps):
        lines += [f"ld.param.u64 %dA, [da{s}]; ld.param.u64 %dB, [db{s}]; add.u64 %dA, %dA, %sh;"
                  "add.u64 %dB, %dB, %sh;"]
        a_op = "{%a0, %a1, %a2, %a3}" if a_regs else "%dA"
        scale_d = "%keep" if s == 0 else "1"
        rest = "" if integer else f", {sa}, {sb}"
        if ta in ("f16", "bf16"):
            rest += f", {trans[1]}" if a_regs else f", {trans[0]}, {trans[1]}"
        sat = ".satfinite" if sa == "sat" else ""
        lines.append(f"wgmma.mma_async.sync.aligned.m64n{n}k{kk}.{dt}.{ta}.{tb}{sat} {{{dl}}}, {a_op}, %dB, "
                     f"{scale_d}{rest};")
    lines += ["wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;",
              f"ld.param.u64 %o, [out]; mul.wide.u32 %x, %t, {nh * 4}; add.u64 %o, %o, %x;"]
    lines += [f"st.global.{dt} [%o+{4 * j}], %d{j};" for j in range(nh)]
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
    (16, "tf32", (0, 0, 1024, 1), (8192, 0, 1024, 1), 4, 1, (-1, 1), "tiny"),
    (24, "tf32", "regs", (0, 512, 128, 0), 1, 1, (1, -1), "tiny"),
    (32, ("e4m3", "e5m2"), (0, 0, 512, 2), (4096, 0, 512, 2), 2, 1, (1, 1), "tiny"),
    (8, "e5m2", "regs", (0, 0, 256, 3), 1, 0, (-1, 1), "tiny"),
    (48, ("s8", "u8"), (0, 0, 1024, 1), (8192, 0, 1024, 1), 2, 1, ("wrap", None), "tiny"),
    (24, ("u8", "s8"), "regs", (0, 512, 128, 0), 1, 1, ("sat", None), "tiny"),
    (16, "s8", (0, 128, 256, 0), (4096, 128, 256, 0), 1, 0, ("wrap", None), "tiny"),
    # M/N-major (imm-trans = 1): (start, lbo, sbo, swizzle, True)
    (16, "f16", (0, 1024, 128, 0, True), (4096, 128, 512, 0), 2, 1, (1, 1), "tiny"),
    (128, "bf16", (0, 0, 1024, 1, True), (4096, 4096, 1024, 1, True), 2, 1, (1, -1), "tiny"),
    (24, "f16", "regs", (0, 0, 512, 2, True), 1, 1, (1, 1), "tiny"),
    (16, "bf16", (0, 512, 256, 3, True), (2048, 512, 256, 3, True), 1, 0, (-1, 1), "tiny"),
]


def _id(c):
    a = "regs" if c[2] == "regs" else f"swz{c[2][3]}" + ("mn" if len(c[2]) > 4 else "")
    ty = c[1] if isinstance(c[1], str) else "x".join(c[1])
    return f"n{c[0]}-{ty}-A{a}-Bswz{c[3][3]}{'mn' if len(c[3]) > 4 else ''}-steps{c[4]}"


@pytest.mark.parametrize("n, ty, la, lb, steps, keep, scales, gpu", CASES, ids=[_id(c) for c in CASES])
def test_wgmma_matches_the_documented_fp32_order_bit_for_bit(n, ty, la, lb, steps, keep, scales, gpu, rng):
    ta, tb = (ty, ty) if isinstance(ty, str) else ty
    integer = ta in ("s8", "u8")
    esize = ESIZE[ta]
    kk = 32 // esize * steps
    a, b = random_bits(rng, (64, kk), ta), random_bits(rng, (n, kk), tb)
    if integer:
        big = 2**31 - 2000 if scales[0] == "sat" else 2**31 - 1
        d0 = rng.integers(-big, big, (64, n)).astype(np.int32)
    else:
        d0 = (rng.standard_normal((64, n)) * 4).astype(np.float32)
    img = np.zeros(16384 if gpu == "tiny" else 65536, np.uint8)
    if la != "regs":
        place(img, a, la[0], la[1], la[2], la[3], esize, len(la) > 4)
    place(img, b, lb[0], lb[1], lb[2], lb[3], esize, len(lb) > 4)
    params = []
    for s in range(steps):
        for (start, lbo, sbo, swz, *mn) in ([la] if la != "regs" else [(0, 0, 0, 0)]) + [lb]:
            if mn:      # M/N-major: the next 16 k are two 8-k groups on
                adv = start + 2 * (sbo if swz else lbo) * s
            else:       # K-major: 32 bytes on inside the swizzle atom, or 2 core matrices
                adv = start + (32 * s if swz else 2 * lbo * s)
            params.append(np.uint64(desc(adv, lbo, sbo, swz)))
    rows, cols = fragment_index(n)
    dinit = d0[rows, cols]
    areg = a_fragments(a, esize) if la == "regs" else np.zeros((128, 4), np.uint32)
    trans = (int(la != "regs" and len(la) > 4), int(len(lb) > 4))
    text = kernel(n, ty, steps, la == "regs", len(img) - 1024, *scales, trans=trans)
    k = gpusim.load_ptx(text)["k"]
    assert k.decoded.regs_per_thread > n // 2      # the accumulators count towards the registers per thread
    results = []
    for mode in ("functional", "timing"):
        out = np.zeros((128, n // 2), d0.dtype)
        res = gpusim.launch(k, 1, 128, img[:len(img) - 1024], dinit.ravel(), out, areg.ravel(), (len(img) - 1024) // 4,
                            keep, *params, mode=mode, gpu=gpu)
        results.append((out, res))
    (f_out, _), (t_out, t_res) = results
    assert np.array_equal(f_out.view(np.uint32), t_out.view(np.uint32)), "functional and timing differ"
    ref = reference(a, b, d0, keep, (ta, tb), *((1, 1) if integer else scales), satfinite=scales[0] == "sat")
    assert np.array_equal(f_out.view(np.uint32), ref[rows, cols].view(np.uint32))
    m = t_res.metrics
    assert m["sm__inst_executed_pipe_tensor_op_gmma.sum"] == 4 * steps
    assert m["smsp__average_warp_latency_issue_stalled_barrier.ratio"] > 0
