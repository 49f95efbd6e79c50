"""FP32 FMA latency (one warp, one dependent chain) and issue throughput (many warps, 8 chains); integer
issue throughput on the ALU pipe and the FMA pipe's heavy half.

All values are exact in float32 (b = 1, c a multiple of 1/4, results far below 2**24), so the check
is bit-exact whatever the order or fusion of operations.

- fma_latency: 1 block of 32 threads; each thread runs 4096 dependent fma.rn.f32 (16 per loop
  iteration, so loop overhead issues in the shadow of the chain). %clock64 around the chain;
  `derive` gives cycles per FMA (the dependent-issue latency of the FMA pipe).
- fma_throughput: 528 blocks x 256 threads (4 blocks = 32 warps per SM, 8 per SMSP); each thread
  runs 8 independent chains, 32 FMAs per loop iteration x 128 (4096 FMAs). Issue-bound: at most one
  warp-FMA per SMSP per cycle (FP32 pipes of 2 x 16 lanes per SMSP).
- launch_empty: one block of 32 threads that writes one word: the fixed cost of a launch.
- int_alu_throughput / int_imad_throughput (recorded 2026-11-27): 528 x 256 threads, 8 independent
  uint32 chains per thread, 2048 steps each: (a ^ b) + c (a LOP3, and an add ptxas makes IMAD.IADD
  nearly always) or a * b + c (IMAD). ncu: the ALU pipe 95.9% busy at one instruction per 2 cycles per
  SMSP, and the FMA pipe's heavy half 94% busy with IMADs at one per 2 cycles (fmalite takes none).
- int_imad_wide_throughput / int_imad_hi_throughput (recorded 2026-11-27, twentieth pass): the same chains
  with a 32x32->64-bit multiply folded back (IMAD.WIDE.U32 + LOP3) or its high half (IMAD.HI.U32 + LOP3):
  the FMA-pipe cost of the wide and high-half multiplies ptxas makes of 64-bit and division work.
"""
from __future__ import annotations

import numpy as np
from numba import cuda, uint32, uint64
from numba.cuda import libdevice

from validation.cases._case import make_case, poison
from validation.cases._intrinsics import clock64

LAT_ITERS = 256  # x16 FMAs


def fma_latency(a_in, b_in, c_in, iters, out, cycles):
    i = cuda.threadIdx.x
    a = a_in[i]
    b = b_in[i]
    c = c_in[i]
    t0 = clock64()
    for _ in range(iters):
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
        a = cuda.fma(a, b, c)
    out[i] = a
    t1 = clock64()
    cycles[i] = t1 - t0


def _lat_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return {"a_in": rng.integers(0, 64, 32).astype(np.float32),
            "b_in": np.ones(32, np.float32),
            "c_in": (rng.integers(1, 4, 32) * 0.25).astype(np.float32),
            "iters": np.int64(LAT_ITERS), "out": poison(32, np.float32),
            "cycles": np.full(32, -1, np.int64)}


def _lat_ref(inp):
    n = 16 * int(inp["iters"])
    return {"out": (inp["a_in"].astype(np.float64) + n * inp["c_in"]).astype(np.float32)}


def _lat_derive(out, inp):
    n = 16 * int(inp["iters"])
    cyc = out["cycles"].astype(np.int64)
    return {"cycles": int(cyc[0]), "fmas": n, "cycles_per_fma": float(cyc[0]) / n,
            "cycles_per_fma_lane_max": float(cyc.max()) / n}


TP_GRID, TP_BLOCK, TP_ITERS = 528, 256, 128


def fma_throughput(b_in, c_in, iters, out):
    t = cuda.grid(1)
    b = b_in[0]
    c = c_in[0]
    base = np.float32(t & 7)
    a0 = base
    a1 = base + np.float32(1)
    a2 = base + np.float32(2)
    a3 = base + np.float32(3)
    a4 = base + np.float32(4)
    a5 = base + np.float32(5)
    a6 = base + np.float32(6)
    a7 = base + np.float32(7)
    for _ in range(iters):
        a0 = cuda.fma(a0, b, c)
        a1 = cuda.fma(a1, b, c)
        a2 = cuda.fma(a2, b, c)
        a3 = cuda.fma(a3, b, c)
        a4 = cuda.fma(a4, b, c)
        a5 = cuda.fma(a5, b, c)
        a6 = cuda.fma(a6, b, c)
        a7 = cuda.fma(a7, b, c)
        a0 = cuda.fma(a0, b, c)
        a1 = cuda.fma(a1, b, c)
        a2 = cuda.fma(a2, b, c)
        a3 = cuda.fma(a3, b, c)
        a4 = cuda.fma(a4, b, c)
        a5 = cuda.fma(a5, b, c)
        a6 = cuda.fma(a6, b, c)
        a7 = cuda.fma(a7, b, c)
        a0 = cuda.fma(a0, b, c)
        a1 = cuda.fma(a1, b, c)
        a2 = cuda.fma(a2, b, c)
        a3 = cuda.fma(a3, b, c)
        a4 = cuda.fma(a4, b, c)
        a5 = cuda.fma(a5, b, c)
        a6 = cuda.fma(a6, b, c)
        a7 = cuda.fma(a7, b, c)
        a0 = cuda.fma(a0, b, c)
        a1 = cuda.fma(a1, b, c)
        a2 = cuda.fma(a2, b, c)
        a3 = cuda.fma(a3, b, c)
        a4 = cuda.fma(a4, b, c)
        a5 = cuda.fma(a5, b, c)
        a6 = cuda.fma(a6, b, c)
        a7 = cuda.fma(a7, b, c)
    out[t] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


def _make_tp(grid=TP_GRID, block=TP_BLOCK, iters=TP_ITERS, name="fma_throughput"):
    n = grid * block

    def inputs(seed=0):
        return {"b_in": np.ones(1, np.float32), "c_in": np.full(1, 0.25, np.float32),
                "iters": np.int64(iters), "out": poison(n, np.float32)}

    def reference(inp):
        base = (np.arange(n) & 7).astype(np.float64)
        tot = 8 * base + 28 + 32 * int(inp["iters"]) * float(inp["c_in"][0])
        return {"out": tot.astype(np.float32)}

    def derive(out, inp):
        return {"fmas_total": n * 32 * int(inp["iters"])}

    return make_case(name, f"{grid}x{block} threads x 8 independent FMA chains x {4 * iters}: FP32 "
                     "issue throughput", "compute", fma_throughput, grid, block, inputs, reference,
                     ("b_in", "c_in", "iters", "out"), ("out",), derive=derive)


# Integer issue throughput: 8 independent uint32 chains per thread, 4 steps each per iteration. The
# xor-add step is a LOP3 and an IADD3 (the ALU pipe: 16 lanes per sub-partition), the multiply-add an
# IMAD (the FMA pipe's heavy half). b and c come from memory so ptxas cannot fold them.
def int_alu_throughput(b_in, c_in, iters, out):
    t = cuda.grid(1)
    b = b_in[0]
    c = c_in[0]
    a0, a1, a2, a3 = uint32(t), uint32(t + 1), uint32(t + 2), uint32(t + 3)
    a4, a5, a6, a7 = uint32(t + 4), uint32(t + 5), uint32(t + 6), uint32(t + 7)
    for _ in range(iters):
        for _r in range(4):
            a0 = uint32((a0 ^ b) + c)
            a1 = uint32((a1 ^ b) + c)
            a2 = uint32((a2 ^ b) + c)
            a3 = uint32((a3 ^ b) + c)
            a4 = uint32((a4 ^ b) + c)
            a5 = uint32((a5 ^ b) + c)
            a6 = uint32((a6 ^ b) + c)
            a7 = uint32((a7 ^ b) + c)
    out[t] = uint32(((a0 ^ a1) ^ (a2 ^ a3)) ^ ((a4 ^ a5) ^ (a6 ^ a7)))


def int_imad_throughput(b_in, c_in, iters, out):
    t = cuda.grid(1)
    b = b_in[0]
    c = c_in[0]
    a0, a1, a2, a3 = uint32(t), uint32(t + 1), uint32(t + 2), uint32(t + 3)
    a4, a5, a6, a7 = uint32(t + 4), uint32(t + 5), uint32(t + 6), uint32(t + 7)
    for _ in range(iters):
        for _r in range(4):
            a0 = uint32(a0 * b + c)
            a1 = uint32(a1 * b + c)
            a2 = uint32(a2 * b + c)
            a3 = uint32(a3 * b + c)
            a4 = uint32(a4 * b + c)
            a5 = uint32(a5 * b + c)
            a6 = uint32(a6 * b + c)
            a7 = uint32(a7 * b + c)
    out[t] = uint32(((a0 ^ a1) ^ (a2 ^ a3)) ^ ((a4 ^ a5) ^ (a6 ^ a7)))


# The same 8 chains with the multiply's 64-bit product folded back into 32 bits: uint64(a) * uint64(b) is one
# IMAD.WIDE.U32 (the FMA pipe's heavy half, its two result registers) and the fold a LOP3 on the ALU pipe; the
# high half alone (umulhi) is one IMAD.HI.U32 and an add. ptxas expands 64-bit and division work into these
# (a mul.hi.s64 by a constant: four IMAD.WIDE.U32[.X]; a 32-bit rem/div: IMAD.HI.U32).
def int_imad_wide_throughput(b_in, c_in, iters, out):
    t = cuda.grid(1)
    b = uint64(b_in[0])
    a0, a1, a2, a3 = uint32(t), uint32(t + 1), uint32(t + 2), uint32(t + 3)
    a4, a5, a6, a7 = uint32(t + 4), uint32(t + 5), uint32(t + 6), uint32(t + 7)
    for _ in range(iters):
        for _r in range(4):
            w = uint64(a0) * b
            a0 = uint32(w >> uint64(32)) ^ uint32(w)
            w = uint64(a1) * b
            a1 = uint32(w >> uint64(32)) ^ uint32(w)
            w = uint64(a2) * b
            a2 = uint32(w >> uint64(32)) ^ uint32(w)
            w = uint64(a3) * b
            a3 = uint32(w >> uint64(32)) ^ uint32(w)
            w = uint64(a4) * b
            a4 = uint32(w >> uint64(32)) ^ uint32(w)
            w = uint64(a5) * b
            a5 = uint32(w >> uint64(32)) ^ uint32(w)
            w = uint64(a6) * b
            a6 = uint32(w >> uint64(32)) ^ uint32(w)
            w = uint64(a7) * b
            a7 = uint32(w >> uint64(32)) ^ uint32(w)
    out[t] = uint32(((a0 ^ a1) ^ (a2 ^ a3)) ^ ((a4 ^ a5) ^ (a6 ^ a7)))


def int_imad_hi_throughput(b_in, c_in, iters, out):
    t = cuda.grid(1)
    b = b_in[0]
    c = c_in[0]
    a0, a1, a2, a3 = uint32(t), uint32(t + 1), uint32(t + 2), uint32(t + 3)
    a4, a5, a6, a7 = uint32(t + 4), uint32(t + 5), uint32(t + 6), uint32(t + 7)
    for _ in range(iters):
        for _r in range(4):
            a0 = uint32(libdevice.umulhi(a0, b) ^ c)
            a1 = uint32(libdevice.umulhi(a1, b) ^ c)
            a2 = uint32(libdevice.umulhi(a2, b) ^ c)
            a3 = uint32(libdevice.umulhi(a3, b) ^ c)
            a4 = uint32(libdevice.umulhi(a4, b) ^ c)
            a5 = uint32(libdevice.umulhi(a5, b) ^ c)
            a6 = uint32(libdevice.umulhi(a6, b) ^ c)
            a7 = uint32(libdevice.umulhi(a7, b) ^ c)
    out[t] = uint32(((a0 ^ a1) ^ (a2 ^ a3)) ^ ((a4 ^ a5) ^ (a6 ^ a7)))


def _wide_step(a, b, c):
    w = a.astype(np.uint64) * np.uint64(b)
    return ((w >> np.uint64(32)) ^ (w & np.uint64(0xFFFFFFFF))).astype(np.uint32)


def _hi_step(a, b, c):
    return (((a.astype(np.uint64) * np.uint64(b)) >> np.uint64(32)).astype(np.uint32) ^ c).astype(np.uint32)


def _make_int_tp(name, kernel, np_step, what, grid=TP_GRID, block=TP_BLOCK, iters=TP_ITERS // 2):
    n = grid * block

    def inputs(seed=0):
        return {"b_in": np.full(1, 0x9E3779B9, np.uint32), "c_in": np.full(1, 0x7F4A7C15, np.uint32),
                "iters": np.int64(iters), "out": poison(n, np.uint32)}

    def reference(inp):
        b, c = np.uint32(inp["b_in"][0]), np.uint32(inp["c_in"][0])
        t = np.arange(n, dtype=np.uint32)
        acc = np.zeros(n, np.uint32)
        for k in range(8):
            a = (t + np.uint32(k)).astype(np.uint32)
            for _ in range(4 * int(inp["iters"])):
                a = np_step(a, b, c)
            acc ^= a
        return {"out": acc}

    def derive(out, inp):
        return {"steps_total": n * 32 * int(inp["iters"])}

    return make_case(name, f"{grid}x{block} threads x 8 independent uint32 chains x {4 * iters} {what}: "
                     "integer issue throughput", "compute", kernel, grid, block, inputs, reference,
                     ("b_in", "c_in", "iters", "out"), ("out",), derive=derive)


def _make_lat():
    return make_case("fma_latency", "one warp, 4096 dependent FP32 FMAs: FMA dependent-issue latency",
                     "compute", fma_latency, 1, 32, _lat_inputs, _lat_ref,
                     ("a_in", "b_in", "c_in", "iters", "out", "cycles"), ("out", "cycles"),
                     derive=_lat_derive)


def empty(out):
    if cuda.grid(1) == 0:
        out[0] = 1


def _empty_case():
    return make_case("launch_empty", "one block of 32 threads writing one word: launch overhead",
                     "compute", empty, 1, 32, lambda seed=0: {"out": np.zeros(1, np.int32)},
                     lambda inp: {"out": np.ones(1, np.int32)}, ("out",), ("out",))


def int_cases(grid=TP_GRID, block=TP_BLOCK, iters=TP_ITERS // 2) -> list:
    return [_make_int_tp("int_alu_throughput", int_alu_throughput, lambda a, b, c: (a ^ b) + c,
                         "xor-add steps (LOP3 + IADD3)", grid, block, iters),
            _make_int_tp("int_imad_throughput", int_imad_throughput, lambda a, b, c: a * b + c,
                         "multiply-add steps (IMAD)", grid, block, iters),
            _make_int_tp("int_imad_wide_throughput", int_imad_wide_throughput, _wide_step,
                         "wide multiplies folded to 32 bits (IMAD.WIDE.U32 + LOP3)", grid, block, iters),
            _make_int_tp("int_imad_hi_throughput", int_imad_hi_throughput, _hi_step,
                         "high-half multiplies (IMAD.HI.U32 + LOP3)", grid, block, iters)]


CASES = [_make_lat(), _make_tp(), _empty_case()] + int_cases()
