"""Probe (device only): what do partial-sector stores cost when several warps write the words of one sector?

prog_transpose_naive's warps each store 32 words 4 KiB apart (one word in each of 32 lines), and the 8
warps of its (32, 8) blocks write the 8 words of the same 32-byte sectors: 1 M partial writes, 8 to a
sector. The H100 takes 42.0k cycles with 50 cycles per instruction of drain; gpusim 29.0k, with none.
store_s32 (one partial write per sector, no sharing) agrees within 1%. So the question is what sharing a
sector costs, and where. Each kernel here writes every word of an n x n float32 matrix exactly once, in
the transpose's store pattern (warp lane l writes row 32 bx + l, column `col`), and differs only in which
warps write the 8 words of a sector:

- share_k (blocks of 32 x K warps, K = 1, 2, 4, 8): warp ty of block (bx, by) writes column K by + ty, so
  a sector's 8 words come from K warps of one block (one SM) and 8 / K blocks (other SMs: the blocks of
  one by are 32 apart in launch order). K = 8 is prog_transpose_naive's stores without its loads.
- warp8 (blocks of 32 x 8 warps): each warp writes its 8 columns with 8 stores in a row, so a sector's 8
  words come from one warp's consecutive stores (the L1 merges those: the store_order probe).

n = 1024 (4 MiB, as prog_transpose_naive), and n = 2048 (16 MiB) and 512 (1 MiB) for K = 1 and 8. A second set
(lines_store) keeps the 8 warps of a block on each sector but lets a store write spl = 1, 2 or 4 sectors
in each of 32 / spl lines, with one CTA per tile of 32 sectors or 16 and 66 CTAs looping over the tiles
(whether the limit is each SM's or the L2's). ncu flushes the caches before each kernel. The kernels are
numba.cuda functions, so gpusim runs the very same code (tests/timing/test_partial_write_rate.py,
validation/DEVIATIONS.md tenth pass).

    python3 validation/probes/sector_share.py --out validation/data/h100/probe_sector_share.json
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):      # numba-cuda calls it at import; numpy 2.5 dropped it
    np.row_stack = np.vstack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from numba import cuda, int32  # noqa: E402

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

STALLS = ("drain", "lg_throttle", "long_scoreboard", "not_selected", "wait", "selected", "no_instruction")
METRICS = ",".join([f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]
                   + ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum",
                      "sm__warps_active.avg.pct_of_peak_sustained_active",
                      "l1tex__t_sector_hit_rate.pct", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "lts__t_sectors_op_write.sum",
                      "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "dram__bytes_write.sum"])
# counters not in the validation recordings: asked in a second pass, so that a name this ncu lacks costs only them
EXTRA = ("lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,"
         "lts__t_sector_op_write_hit_rate.pct,l1tex__m_xbar2l1tex_read_sectors.sum,"
         "l1tex__m_l1tex2xbar_write_sectors.sum")
# (kernel, K or 8 for warp8, n)
RUNS = (("share", 1, 1024), ("share", 2, 1024), ("share", 4, 1024), ("share", 8, 1024),
        ("warp8", 8, 1024), ("share", 1, 2048), ("share", 8, 2048), ("share", 1, 512), ("share", 8, 512))
# the second set (lines_store): (sectors per line, tiles, CTAs): 1 M writes, 8 to a sector, from 32 / spl lines
# per store; one tile per CTA, or a few CTAs looping over the tiles (is the limit per SM or the L2's?)
NTILES = 4096
LINES_RUNS = ((1, NTILES, NTILES), (2, NTILES, NTILES), (4, NTILES, NTILES), (1, NTILES, 16), (1, NTILES, 66),
              (4, NTILES, 16))


def share_store(out, n):
    """Warp ty of block (bx, by) writes column blockDim.y * by + ty of rows 32 bx .. 32 bx + 31."""
    x = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    out[x * n + y] = y


def warp8_store(out, n):
    """Warp ty of block (bx, by) writes columns 8 (8 by + ty) .. +7 of rows 32 bx .. 32 bx + 31, one
    store per column."""
    x = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    y = (cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y) * 8
    for j in range(8):
        out[x * n + y + j] = y + j


def lines_store(out, spl, ntiles):
    """Block tile t (blocks of 32 x 8 warps, t from blockIdx.x in steps of gridDim.x) fills 32 sectors: lane l
    writes word ty of sector l % spl of line (l // spl) * ntiles + t. A warp's store writes one word in
    each of 32 sectors, spl of them in each of 32 / spl lines."""
    lane = cuda.threadIdx.x
    w = cuda.threadIdx.y
    t = cuda.blockIdx.x
    while t < ntiles:
        line = (lane // spl) * ntiles + t
        out[line * 32 + (lane % spl) * 8 + w] = t
        t += cuda.gridDim.x


def lines_expected(spl: int, ntiles: int) -> np.ndarray:
    """What lines_store leaves: every word of the sectors it writes holds its tile, the rest -1."""
    e = np.full(32 * ntiles * (32 // spl) * 32 // 32, -1, np.int32).reshape(-1, 32)     # one row of words per line
    for lane in range(32):
        rows = (lane // spl) * ntiles + np.arange(ntiles)
        for w in range(8):
            e[rows, (lane % spl) * 8 + w] = np.arange(ntiles)
    return e.ravel()


def launch_shape(kind: str, k: int, n: int) -> tuple[tuple, tuple]:
    """(grid, block) of a run: every word of the n x n matrix written once."""
    if kind == "share":
        return (n // 32, n // k), (32, k)
    return (n // 32, n // 64), (32, 8)


def expected(n: int) -> np.ndarray:
    """What every kernel leaves: word (x, y) holds its column y."""
    return np.tile(np.arange(n, dtype=np.int32), n)


def inner():
    kernels = {"share": cuda.jit((int32[::1], int32))(share_store),
               "warp8": cuda.jit((int32[::1], int32))(warp8_store)}
    for kind, k, n in RUNS:
        out = cuda.to_device(np.full(n * n, -1, np.int32))
        grid, block = launch_shape(kind, k, n)
        kernels[kind][grid, block](out, n)
        cuda.synchronize()
        print(f"kernel {kind} k {k} n {n} correct {bool((out.copy_to_host() == expected(n)).all())}", flush=True)
    lines = cuda.jit((int32[::1], int32, int32))(lines_store)
    for spl, ntiles, ctas in LINES_RUNS:
        want = lines_expected(spl, ntiles)
        out = cuda.to_device(np.full(want.size, -1, np.int32))
        lines[ctas, (32, 8)](out, spl, ntiles)
        cuda.synchronize()
        print(f"kernel lines spl {spl} ctas {ctas} correct {bool((out.copy_to_host() == want).all())}", flush=True)


def main():
    out = ncu_out(inner, "probe_sector_share.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:(share|warp8|lines)_store", METRICS)
    extra, _, extra_err = under_ncu(__file__, "regex:(share|warp8|lines)_store", EXTRA)
    results = []
    for i, (kind, k, n) in enumerate(RUNS):
        m = launches[i][1] if i < len(launches) else {}
        if i < len(extra):
            m = {**m, **extra[i][1]}
        grid, block = launch_shape(kind, k, n)
        results.append({"kernel": kind, "warps_per_sector_in_block": k, "n": n, "grid": list(grid),
                        "block": list(block), **m})
    for j, (spl, ntiles, ctas) in enumerate(LINES_RUNS):
        i = len(RUNS) + j
        m = launches[i][1] if i < len(launches) else {}
        if i < len(extra):
            m = {**m, **extra[i][1]}
        results.append({"kernel": "lines", "sectors_per_line": spl, "tiles": ntiles, "grid": [ctas],
                        "block": [32, 8], **m})
    import inspect
    code = "\n".join(inspect.getsource(f) for f in (share_store, warp8_store, lines_store))
    write(out, ncu_record("validation/probes/sector_share.py", t0, results, stdout, stderr + extra_err[-1000:],
                          "kernel", kernels=code))
    for r in results:
        print(r["kernel"], r.get("warps_per_sector_in_block", r.get("sectors_per_line")), r.get("n", r["grid"]),
              r.get("gpc__cycles_elapsed.max"),
              {k.split("stalled_")[-1].split("_per")[0]: v for k, v in r.items() if "stalled" in k},
              r.get("lts__t_sectors_op_write.sum"), r.get("lts__t_requests_srcunit_tex_op_write.sum"))


if __name__ == "__main__":
    main()
