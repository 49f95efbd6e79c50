"""Instruction fetch: a per-SM instruction cache, filled through the L2.

Each PTX instruction stands for `inst_bytes` of machine code, so instruction `pc` lives in cache
line `pc * inst_bytes // line_bytes`. A warp whose next instruction's line is not in its SM's
instruction cache stalls on no_instruction until the line arrives: its four sectors are read from
the L2 like data (so the first SM to need a line finds it in DRAM, the others in the L2), plus
`miss_latency` cycles of the fetch path itself. Warps that want a line already on its way wait for
the same fill. Each SM streams ahead of the furthest line any of its warps has entered, keeping
`prefetch_lines` lines requested beyond it, so straight-line code rarely waits after the first
miss; a warp that misses on a line the stream skipped (code behind a branch other warps jumped over, such as
one warp's loop after the rest of its CTA went to their exit) restarts the stream from that line. The cache
starts cold at every launch, as a freshly launched kernel's code is on the H100
(with the L2 flushed, a one-warp kernel's no_instruction stall is one DRAM round trip). With `code_in_l2`
(the default) the code is found in the L2 instead, as the H100's cold fetch costs: 334 cycles of
no_instruction for launch_empty's one warp, nearer an L2 hit than a DRAM round trip. The SMs that start
together queue at the slices of the first lines (tried without that queue: the short kernels' no_instruction
fell to 0.3-0.5x the H100's, against 0.8-1.5x with it).

The immediate-constant cache (IMC) holds the launch's constant bank 0 (the block and grid sizes at
c[0x0][0x0..0x17], the kernel parameters from c[0x0][0x210]) in 64-B blocks, per SM, cold
at every launch. An instruction that reads a parameter (`ld.param`) or %ntid / %nctaid stands for the
SASS ULDC that reads its block: the first warp of an SM to need a block starts its fill and, with every
other warp that needs it before it arrives, stalls on imc_miss for `imc_latency` cycles. The H100's
per-instruction stall sampling puts imc_miss on the first ULDC of each 64-B block and nowhere else
(validation/data/h100/ncu/sass_stalls_2026-11-27). The SASS model takes the blocks from the ULDCs of
ptxas's listing, each at the PTX line its first ULDC came from (gpusim/sassmap.py); the PTX model from
the PTX's parameter reads and launch-size registers.

The SASS model: every sm_90 kernel starts with `LDC R1, c[0x0][0x28]` (the stack pointer; the kernel's first pc
stands for it), a constant load through the sub-partition's MIO queue. The first on an SM whose constant caches
are cold (`constants_cold`, as ncu leaves them: it flushes every cache before a recorded launch) starts the fill
of the constant line through the L2, where every SM starting the kernel asks the same slice for it, plus
`ldc_latency`; each warp's first LDC holds one of the sub-partition's `mio_entries` until the line is in, and an
LDC or S2R that finds them all held waits on mio_throttle. On the H200 (validation/probes/warp_start.py, caches
flushed) one-wave vecadd with 256-thread CTAs samples 4.3 cycles of mio_throttle per instruction, on the first
LDC and on `S2R SR_CTAID.X`; with the caches left warm 1.3 (data/h100/probe_warp_start_warm_h200.json: what is
left comes from a CTA's warps starting together, not modelled). The PTX model holds no entries (its figures
were not re-run with them).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.memory.cache import fill, make_cache, probe
from gpusim.memory.dram import dram_writeback
from gpusim.memory.l2 import l2_access
from gpusim.memory.replacement import check_policy
from gpusim.sm.stalls import IMC_MISS, MIO_THROTTLE
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class FetchSpec:
    """The instruction cache of one SM."""
    icache_bytes: int = param(131072, "B", "instruction cache per SM (the L1.5 / L1i level)", (1, 1 << 22))
    icache_assoc: int = param(4, "ways", "its associativity", (1, 1024))
    line_bytes: int = param(128, "B", "its line size", (1, 4096))
    inst_bytes: int = param(16, "B", "machine code per instruction (Volta and later: 128-bit instructions)", (1, 64))
    miss_latency: int = param(76, "cycles", "the fetch path's own delay on a miss, beyond the L2 read of the line "
                                              "(fitted: launch_empty's no_instruction stall, 334 cycles of its one "
                                              "warp)", (0, MAX_CYCLES))
    prefetch_lines: int = param(32, "lines", "lines each SM keeps requested ahead of the furthest line entered "
                                             "(32: one exposed miss per kernel start, as ncu shows)", (1, 4096))
    replacement: str = param("lru", "name", "replacement policy: lru | fifo | srrip (gpusim/memory/replacement.py)")
    code_in_l2: bool = param(True, "flag", "the kernel's code is in the L2 when it starts (a cold instruction-cache "
                                           "miss costs an L2 hit); False: it comes from DRAM", (0, 1))
    imc_latency: int = param(94, "cycles", "an immediate-constant cache miss (fitted: launch_empty's imc_miss "
                                           "stall, 94 cycles of its one warp)", (0, MAX_CYCLES))
    mio_entries: int = param(8, "entries", "entries of a sub-partition's MIO that first LDCs hold until the SM's "
                                           "constant line is in; an LDC or S2R that finds them all held waits "
                                           "(mio_throttle). 0: no such wait (fitted with ldc_latency on the "
                                           "warp_start probe's four-wave and one-wave 256-thread kernels, caches "
                                           "flushed)", (0, 64))
    ldc_latency: int = param(100, "cycles", "the constant path's own delay on an SM's first LDC, beyond the L2 read of "
                                            "the line (fitted with mio_entries)", (0, MAX_CYCLES))
    constants_cold: bool = param(True, "flag", "the constant caches start cold, as ncu leaves them (it flushes every "
                                               "cache before a recorded launch); False: warm from a launch before",
                                 (0, 1))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        for name in ("icache_bytes", "icache_assoc", "line_bytes", "inst_bytes", "prefetch_lines"):
            if getattr(self, name) < 1:
                raise ConfigError(f"bad value for '{prefix}{name}': must be at least 1")
        if self.line_bytes % self.inst_bytes or (self.line_bytes // self.inst_bytes) & (
                self.line_bytes // self.inst_bytes - 1):
            raise ConfigError(f"bad value for '{prefix}line_bytes': must hold a power-of-two number of "
                              "instructions")
        check_policy(self.replacement, prefix + "replacement")


Fetch = namedtuple("Fetch", "cache miss_latency prefetch_lines line_shift last_line warp_line warp_line_ready "
                           "stream_head counters code_in_l2 imc_mask imc_ready imc_latency mio_op ldc_ready ldc_ring "
                           "ldc_head ldc_full ldc_latency constants_cold")
MISSES, IMC_MISSES = 0, 1      # counters
OP_LD = oc.OP["ld"]
CODE_SECTOR = np.int64(1) << 41        # the kernel's code, as sectors of its own address range
CONST_SECTOR = np.int64(1) << 40       # constant bank 0, as sectors of its own address range
SP_SECTOR = 0x28 // 32                 # its sector of c[0x0][0x28], the stack pointer each kernel's first LDC reads
MIO_LDC, MIO_S2R = 1, 2                # `mio_op`: takes an MIO entry until the constant line is in; needs a free one
PARAM_BASE = 0x210                     # sm_90: kernel parameters from c[0x0][0x210]
LAUNCH_SREGS = ("ntid.x", "ntid.y", "ntid.z", "nctaid.x", "nctaid.y", "nctaid.z")   # c[0x0][0x0..0x17]
IMC_BLOCK_BYTES = 64                   # the H100's sampled imc_miss stalls fall on the first ULDC of each 64-B block
IMC_BLOCKS = 52                        # blocks a per-pc mask names (the SASS model's masks pass through float64)


def imc_masks(d) -> np.ndarray:
    """Per pc of decoded kernel d (the PTX model): the blocks of constant bank 0 (bit mask) it reads through
    the immediate-constant cache: a kernel parameter's (ld.param), or block 0 for the launch sizes."""
    out = np.zeros(d.n, np.int64)
    sregs = {oc.SR[name] for name in LAUNCH_SREGS}
    for pc in range(d.n):
        for slot in range(d.opk.shape[1]):
            k = d.opk[pc, slot]
            b = -1
            if k == oc.OK_SREG and d.opv[pc, slot] in sregs:
                b = 0
            elif (k == oc.OK_ADDR and d.ins[pc, oc.F_SPACE] == oc.SP_PARAM and d.opv[pc, slot] == -1
                  and d.ins[pc, oc.F_OP] == OP_LD):
                b = (PARAM_BASE + int(d.opo[pc, slot])) // IMC_BLOCK_BYTES
            if 0 <= b < IMC_BLOCKS:
                out[pc] |= np.int64(1) << b
    return out


def mio_ops(d, s2r) -> np.ndarray:
    """Per pc of decoded kernel d: MIO_LDC at the kernel's first pc (ptxas starts every sm_90 kernel with
    `LDC R1, c[0x0][0x28]`), MIO_S2R where it reads a special register through S2R (`s2r`: those registers)."""
    out = np.zeros(d.n, np.int64)
    for pc in range(d.n):
        for slot in range(oc.S0, oc.NSLOT):
            if d.opk[pc, slot] == oc.OK_SREG and int(d.opv[pc, slot]) in s2r:
                out[pc] = MIO_S2R
    if d.n:
        out[0] = MIO_LDC
    return out


def make_state(spec: FetchSpec, n_sm: int, n_warps: int, d, uldc=None, subpartitions: int = 4, s2r=(),
               mio: bool = False) -> Fetch:
    """uldc: per pc, the constant-bank blocks its SASS's ULDCs read first (the SASS model, 64-B blocks:
    sassmap.py); otherwise the PTX's parameter reads stand for them. s2r: the special registers read by S2R.
    mio: the first LDC holds an MIO entry (the SASS model; the PTX model, whose figures were not re-run with it,
    holds none)."""
    n_pcs = d.n
    shift = (spec.line_bytes // spec.inst_bytes).bit_length() - 1
    masks = imc_masks(d) if uldc is None else np.ascontiguousarray(uldc, np.int64)
    return Fetch(make_cache(n_sm, spec.icache_bytes, spec.icache_assoc, spec.replacement, spec.line_bytes),
                 np.int64(spec.miss_latency), np.int64(spec.prefetch_lines), np.int64(shift),
                 np.int64((n_pcs - 1) >> shift), np.full(n_warps, -1, np.int64), np.zeros(n_warps, np.int64),
                 np.full(n_sm, -1, np.int64), np.zeros(2, np.int64), bool(spec.code_in_l2), masks,
                 np.full((n_sm, IMC_BLOCKS), -1, np.int64), np.int64(spec.imc_latency),
                 mio_ops(d, s2r) if spec.mio_entries > 0 and mio else np.zeros(n_pcs, np.int64),
                 np.full(n_sm, -1, np.int64),
                 np.zeros((n_sm * subpartitions, max(spec.mio_entries, 1)), np.int64),
                 np.zeros(n_sm * subpartitions, np.int64), np.zeros(n_sm * subpartitions, np.int64),
                 np.int64(spec.ldc_latency), bool(spec.constants_cold))


def counters(f: Fetch) -> dict:
    return {"gpusim__icache_misses.sum": int(f.counters[MISSES]),
            "gpusim__imc_misses.sum": int(f.counters[IMC_MISSES])}


@njit(inline="always")
def constant_ready(f, sm, pc, t):
    """Cycle the constant-bank blocks the instruction at pc reads (if any) are in SM sm's immediate-constant
    cache, for a warp that reaches it at t: the first warp to need a block starts its fill (one ULDC after
    another: a second block's fill starts when the first has come)."""
    mask = f.imc_mask[pc]
    if mask == 0:
        return np.int64(0)
    return _constant_blocks(f, sm, mask, t)


@njit(inline="always")
def constants_ready(f, sm, sp, pc, t, now):
    """`constant_ready` (for a warp there at max(t, now)), and for the prologue LDC or an S2R at pc, ready at t,
    whose sub-partition sp's MIO entries were all held by first LDCs then: the cycle the oldest of them was given
    back. With the reason of the later: imc_miss or mio_throttle."""
    c = constant_ready(f, sm, pc, max(t, now))
    m = f.ldc_full[sp]
    if f.mio_op[pc] == 0 or m <= c or m <= t:
        return c, IMC_MISS
    return m, MIO_THROTTLE


@njit(inline="always")
def ldc_issued(f, l2, noc, dram, sm, sp, pc, now):
    """After a warp issued pc: the first LDC takes its MIO entry (`ldc_entry`)."""
    if f.mio_op[pc] == MIO_LDC:
        ldc_entry(f, l2, noc, dram, sm, sp, now)


@njit
def ldc_entry(f, l2, noc, dram, sm, sp, now):
    """The first LDC of a warp of SM sm, issued at `now`: it holds an entry of sub-partition sp's MIO until the SM's
    constant line is in; the first on the SM starts the line's fill, through the L2 (the constant bank is there,
    written by the launch), where every SM starting the kernel asks the same slice for the same line."""
    r = f.ldc_ready[sm]
    if r < 0:
        r = now
        if f.constants_cold:
            sec = CONST_SECTOR + SP_SECTOR
            if probe(l2.cache, 0, sec, now) < 0:
                dram_writeback(dram, sec, fill(l2.cache, 0, sec, now, now, False), now)
            r = l2_access(l2, noc, dram, sm, sec, now, False) + f.ldc_latency
        f.ldc_ready[sm] = r
    h = f.ldc_head[sp]
    f.ldc_ring[sp, h] = max(r, now + 1)
    h = (h + 1) % f.ldc_ring.shape[1]
    f.ldc_head[sp] = h
    if f.ldc_ring[sp, h] > now + 1:       # the oldest of the last entries taken is still held: all are
        f.ldc_full[sp] = f.ldc_ring[sp, h]


@njit
def _constant_blocks(f, sm, mask, t):
    ready = np.int64(0)
    for b in range(IMC_BLOCKS):
        if (mask >> b) == 0:
            break
        if (mask >> b) & 1:
            r = f.imc_ready[sm, b]
            if r < 0:
                r = max(t, ready) + f.imc_latency
                f.imc_ready[sm, b] = r
                f.counters[IMC_MISSES] += 1
            ready = max(ready, r)
    return ready


@njit
def _fill_line(f, l2, noc, dram, sm, line, now):
    """Request a line for SM sm's instruction cache: the cycle it arrives."""
    t = now
    for s in range(4):
        sec = CODE_SECTOR + line * 4 + s
        if f.code_in_l2 and probe(l2.cache, 0, sec, now) < 0:      # written there when the module was loaded
            dram_writeback(dram, sec, fill(l2.cache, 0, sec, now, now, False), now)
        t = max(t, l2_access(l2, noc, dram, sm, sec, now, False))
    t += f.miss_latency
    f.counters[MISSES] += 1
    fill(f.cache, sm, line << 2, t, now, False)
    return t


@njit
def fetch_line(f, l2, noc, dram, sm, w, line, now):
    """The lookup (and, on a miss, the fill and the stream prefetch) when warp w enters a new line."""
    r = probe(f.cache, sm, line << 2, now)
    missed = r < 0
    if missed:
        r = _fill_line(f, l2, noc, dram, sm, line, now)
    ahead = min(line + f.prefetch_lines, f.last_line)
    # stream ahead of the furthest line entered, and after a miss ahead of the missed line (code that a
    # branch skipped, e.g. the loop of one warp after the others jumped to their exit, was never streamed)
    if f.stream_head[sm] < ahead or missed:
        for x in range(line + 1 if missed else max(f.stream_head[sm] + 1, line + 1), ahead + 1):
            if probe(f.cache, sm, x << 2, now) < 0:
                _fill_line(f, l2, noc, dram, sm, x, now)
        f.stream_head[sm] = max(f.stream_head[sm], ahead)
    if r <= now:             # remember the line and when it came, to skip the lookup next time
        f.warp_line[w] = line
        f.warp_line_ready[w] = r
    return r


@njit(inline="always")
def fetch_ready(f, l2, noc, dram, sm, w, pc, now):
    """Cycle warp w's instruction at `pc` is (or was) in the instruction cache; a miss starts the fill.
    Fast path: the warp is still in the line it last found present."""
    line = pc >> f.line_shift
    if f.warp_line[w] == line:
        return f.warp_line_ready[w]
    return fetch_line(f, l2, noc, dram, sm, w, line, now)
