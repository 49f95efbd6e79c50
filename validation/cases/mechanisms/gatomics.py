"""Mechanism microbenchmarks: gatomics: contended global atomics.

The family and its cases are described in validation/cases/mechanisms/__init__.py.
"""
from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda import config

from validation.cases._case import make_case

# is what lets LLVM's load/store vectorizer merge adjacent words into v2/v4 shared accesses.
ALIGN = None if config.ENABLE_CUDASIM else 16
MASK32 = 0xFFFFFFFF
HASH_MUL = 0x45D9F3B



# ----------------------------------------------------------------------------------------------
# gatomics: contended global atomics
# ----------------------------------------------------------------------------------------------

GA_GRID, GA_BLOCK = 528, 256


def gatomic_hash(seed, mask, skew, reps, counters):
    t = cuda.grid(1)
    for k in range(reps):
        x = (t * reps + k) ^ seed
        x = ((x ^ (x >> 16)) * HASH_MUL) & MASK32
        x = ((x ^ (x >> 16)) * HASH_MUL) & MASK32
        x = x ^ (x >> 16)
        b = (x >> 8) & mask
        if x & skew:
            b = 0
        cuda.atomic.add(counters, b, 1)


def gatomic_fixed(shift, stride, reps, counters):
    t = cuda.grid(1)
    idx = (t >> shift) * stride
    for _ in range(reps):
        cuda.atomic.add(counters, idx, 1)


def gatomic_fixed_f32(shift, stride, reps, counters):
    t = cuda.grid(1)
    idx = (t >> shift) * stride
    for _ in range(reps):
        cuda.atomic.add(counters, idx, np.float32(1.0))


def gatomic_wrap(mask, reps, counters):
    t = cuda.grid(1)
    idx = t & mask
    for _ in range(reps):
        cuda.atomic.add(counters, idx, 1)


def gatomic_lane0(shift, stride, reps, counters):
    t = cuda.grid(1)
    if t & 31 == 0:
        idx = (t >> shift) * stride
        for _ in range(reps):
            cuda.atomic.add(counters, idx, 1)


def gatomic_lane0_f32(shift, stride, reps, counters):
    t = cuda.grid(1)
    if t & 31 == 0:
        idx = (t >> shift) * stride
        for _ in range(reps):
            cuda.atomic.add(counters, idx, np.float32(1.0))


def _hash_np(t, k, reps, seed):
    x = (t * reps + k) ^ seed
    x = ((x ^ (x >> 16)) * HASH_MUL) & MASK32
    x = ((x ^ (x >> 16)) * HASH_MUL) & MASK32
    return x ^ (x >> 16)


def _seed(seed):
    return np.int64((0x2545F491 + 0x9E3779B1 * int(seed)) & 0x7FFFFFFF)


def _ga_hash_case(name, desc, bins, skew, reps, grid=GA_GRID, block=GA_BLOCK):
    nth = grid * block

    def inputs(seed=0):
        return {"seed": _seed(seed), "mask": np.int64(bins - 1), "skew": np.int64(skew),
                "reps": np.int64(reps), "counters": np.zeros(bins, np.int32)}

    def bins_of(inp):
        t = np.arange(nth, dtype=np.int64)[:, None]
        k = np.arange(reps, dtype=np.int64)[None, :]
        x = _hash_np(t, k, reps, int(inp["seed"]))
        b = (x >> 8) & (bins - 1)
        return np.where(x & skew, 0, b)

    def reference(inp):
        return {"counters": np.bincount(bins_of(inp).ravel(), minlength=bins).astype(np.int32)}

    def derive(out, inp):
        b = bins_of(inp)                                   # (threads, reps)
        per_warp = b.reshape(nth // 32, 32, reps).transpose(0, 2, 1)   # (warps, reps, lanes)
        distinct = np.array([[np.unique(r).size for r in w] for w in per_warp[:64]])
        c = np.asarray(out["counters"], np.int64)
        return {"atomics_total": nth * reps, "warp_instructions": nth // 32 * reps, "bins": bins,
                "hot_bin_share": float(c.max()) / (nth * reps),
                "distinct_addresses_per_warp_instr_mean": float(distinct.mean()),
                "lines_touched_total": -(-bins * 4 // 128)}

    return make_case(name, desc, "gatomics", gatomic_hash, grid, block, inputs, reference,
                     ("seed", "mask", "skew", "reps", "counters"), ("counters",), derive=derive)


def _ga_fixed_case(name, desc, shift, stride, reps, grid=GA_GRID, block=GA_BLOCK, dtype=np.int32, lane0=False):
    """Every thread (or, lane0, lane 0 of every warp) adds 1 `reps` times to counters[(t >> shift) * stride]."""
    nth = grid * block
    size = ((nth - 1) >> shift) * stride + 1
    who = np.arange(0, nth, 32) if lane0 else np.arange(nth)

    def inputs(seed=0):
        return {"shift": np.int64(shift), "stride": np.int64(stride), "reps": np.int64(reps),
                "counters": np.zeros(size, dtype)}

    def reference(inp):      # float32 counts stay exact: every address receives far fewer than 2**24 adds
        idx = (who >> shift) * stride
        return {"counters": (np.bincount(idx, minlength=size) * reps).astype(dtype)}

    def derive(out, inp):
        idx = (who >> shift) * stride
        return {"atomics_total": who.size * reps, "warp_instructions": nth // 32 * reps,
                "distinct_addresses": int(np.unique(idx).size),
                "lines_per_warp_instr": 1 if lane0 else int(np.unique(idx[:32] * 4 // 128).size)}

    if lane0:
        kernel = gatomic_lane0_f32 if dtype == np.float32 else gatomic_lane0
    else:
        kernel = gatomic_fixed_f32 if dtype == np.float32 else gatomic_fixed
    return make_case(name, desc, "gatomics", kernel, grid, block, inputs, reference,
                     ("shift", "stride", "reps", "counters"), ("counters",), derive=derive)


def _ga_wrap_case(name, desc, words, reps, grid=GA_GRID, block=GA_BLOCK):
    """Every thread adds 1 `reps` times to counters[t % words]: each warp RED writes 32 consecutive words
    (one line, four sectors, no two lanes on one address), and every warp of the grid hits the same
    `words` counters (a histogram's merge of per-block counts)."""
    nth = grid * block

    def inputs(seed=0):
        return {"mask": np.int64(words - 1), "reps": np.int64(reps), "counters": np.zeros(words, np.int32)}

    def reference(inp):
        return {"counters": (np.bincount(np.arange(nth) & (words - 1), minlength=words) * reps).astype(np.int32)}

    def derive(out, inp):
        return {"atomics_total": nth * reps, "warp_instructions": nth // 32 * reps, "distinct_addresses": words,
                "lines_touched_total": -(-min(nth, words) * 4 // 128)}

    return make_case(name, desc, "gatomics", gatomic_wrap, grid, block, inputs, reference,
                     ("mask", "reps", "counters"), ("counters",), derive=derive)


def gatomics_cases(grid=GA_GRID, block=GA_BLOCK, reps=8, skew_reps=2):
    nth = grid * block
    cta_shift = int(block).bit_length() - 1
    assert 1 << cta_shift == block
    return [
        _ga_hash_case("gatomic_bins256", f"{nth * reps} global int32 atomic adds to 256 bins, uniform "
                      "random bin per atomic", 256, 0, reps, grid, block),
        _ga_hash_case("gatomic_bins256_skew", f"{nth * skew_reps} global atomic adds to 256 bins, half of "
                      "them to bin 0 (hot address), the rest uniform", 256, 1, skew_reps, grid, block),
        _ga_fixed_case("gatomic_per_cta", f"{nth * reps} global atomic adds, one address per CTA "
                       f"({grid} contiguous words)", cta_shift, 1, reps, grid, block),
        _ga_hash_case("gatomic_bins4096", f"{nth * reps} global atomic adds to 4096 bins, uniform random "
                      "bin per atomic", 4096, 0, reps, grid, block),
        _ga_fixed_case("gatomic_f32_per_cta", f"{nth * reps} global float32 atomic adds, one address per CTA "
                       f"({grid} contiguous words): gatomic_per_cta in float", cta_shift, 1, reps, grid, block,
                       np.float32),
        _ga_fixed_case("gatomic_f32_per_warp", f"{nth * reps} global float32 atomic adds, one address per warp "
                       f"({nth // 32} contiguous words)", 5, 1, reps, grid, block, np.float32),
        _ga_fixed_case("gatomic_f32_spread", f"{nth * reps} global float32 atomic adds, one address per thread "
                       "(consecutive words: 4 sectors per warp RED, no lane shares one)", 0, 1, reps, grid, block,
                       np.float32),
        _ga_fixed_case("gatomic_per_warp8", f"{nth * reps} global int32 atomic adds, one address per warp "
                       f"({nth // 32} contiguous words): atomic_per_warp with gatomics' grid", 5, 1, reps, grid,
                       block),
        _ga_fixed_case("gatomic_lane0_one", f"{nth // 32 * reps} global int32 atomic adds from lane 0 of every "
                       "warp to one address: single-lane requests in a chain (the end of a reduction)",
                       30, 0, reps, grid, block, lane0=True),
        _ga_fixed_case("gatomic_lane0_one_f32", f"{nth // 32 * reps} global float32 atomic adds from lane 0 of "
                       "every warp to one address", 30, 0, reps, grid, block, np.float32, lane0=True),
        _ga_fixed_case("gatomic_lane0_per_warp", f"{nth // 32 * reps} global int32 atomic adds from lane 0 of "
                       f"every warp, one address per warp ({nth // 32} contiguous words): single-lane requests "
                       "without a chain", 5, 1, reps, grid, block, lane0=True),
        _ga_wrap_case("gatomic_wrap32", f"{nth * reps} global int32 atomic adds, thread t to word t % 32: "
                      "every warp RED to the same 32 words (one line, no lane sharing an address)", 32, reps,
                      grid, block),
        _ga_wrap_case("gatomic_wrap256", f"{nth * reps} global int32 atomic adds, thread t to word t % 256: "
                      "coalesced warp REDs into one 1-KiB array (a 256-bin histogram's merge)", 256, reps,
                      grid, block),
        _ga_wrap_case("gatomic_wrap2048", f"{nth * reps} global int32 atomic adds, thread t to word t % 2048: "
                      "coalesced warp REDs into one 8-KiB array", 2048, reps, grid, block),
        _ga_fixed_case("gatomic_strided", f"{nth * reps} global atomic adds, one address per thread "
                       "32 words apart (32 lines per warp RED)", 0, 32, reps, grid, block),
    ]
