"""The PTX-to-SASS map of the SASS model: what ptxas makes of each PTX instruction, no GPU needed.

gpusim executes PTX (its control flow and values are the PTX's); the SM issues SASS. To know, per PTX
instruction, how many SASS instructions the warp really issues, the launched PTX is compiled again with
ptxas, with every instruction line tagged by a `.loc` naming its own PTX line (`.file 1 "ptx"`, the
original `.loc`s removed; line numbers are unchanged), and `-lineinfo`. `nvdisasm -g` then prints, for
every SASS instruction, the PTX line it came from. So the mapping is explicit and per line:

  * a PTX line that ptxas expanded (64-bit integer work, division, address arithmetic) has several SASS
    instructions; one it folded (a `mov`, a `cvt` that is a no-op, an offset folded into an address,
    two loads merged into LDS.64/LDS.128) has none;
  * ptxas may duplicate a PTX line into several SASS basic blocks (an unrolled loop and its remainder,
    tail duplication): the line's weight is the mean over its copies, each copy's count divided by that
    block's unroll factor (the commonest count, in the block, of its floating-point and memory lines,
    which ptxas never expands, of its special-function lines (one MUFU each) and of its conversions between
    integers and FP32 (one I2FP, I2F or F2I each)). A copy is a block holding the line's load, store, atomic or
    FP32 instruction itself (for such lines), else one holding more of it than constant reads (ULDC/LDC) and
    BSSY/BSYNC; the line's other blocks are parts on the same path and add to the total (a warp-aggregated
    atomic's VOTEU/FLO/POPC, its ATOMG and its SHFL may sit in three blocks);
  * SASS with no line (the prologue, BSSY, the trailing self-branch, NOPs) goes to the nearest line before it in
    its block, else after it; a BSYNC to the first line after it (it opens the join every path runs:
    sm/pipelines.py `join_hold`); the dead self-branch after the last EXIT and NOPs are dropped;
  * integer, uniform-datapath and constant-read SASS that ptxas moved into a SASS block outside loops from
    another PTX block (hoisted ahead of a branch or a barrier or out of a loop, or sunk into the block that uses
    it) counts at the next line of the SASS block's own PTX block, where the warps run it
    (`ptxflow.moved_lines`); a line's primary instruction, memory access, branch or special-register read
    keeps its line;
  * a line inside PTX loops counts only its copies inside as many SASS loops (`_kept_copies`): what ptxas
    hoisted out of a loop, or out of an inner loop into the outer one, runs once per enclosing trip, not
    per execution of the line. PTX loops are the branches back to a label whose code reaches the branch
    (`ptx_loops`), so numba's early `ret` block, placed before the body and jumped back to, is none.

Where it cannot map: a module ptxas refuses with the tags, a line no SASS names (weight 0) whose PTX is
executed only on a path ptxas removed, loop-invariant work hoisted where ptxas kept no loop around the
line (counted as if still inside), and per-path splits within one line (counted as the mean). The map
then is what the line numbers say, not the dynamic SASS path; `spill_lines` lists the PTX lines whose SASS touches local
memory ptxas added (LDL/STL with no ld.local/st.local in the PTX line).

The listing is read back by gpusim/sasslisting.py. From each SASS instruction's control word the map
keeps, per PTX line, ptxas's stall cycles and yield flag, and the read barriers of global/local memory
SASS with the lines that wait on them (`sasslisting.read_barriers`: write-after-read waits). A wait is
matched to the barrier's latest setter in listing order, so a wait whose setter lies in a block placed
later in the listing (a loop's top waiting on its bottom) is matched to an earlier setter, or to none;
the order starts afresh with each function, as do the first reads of constant-bank blocks. A line's
barriers are the union over its copies (an unrolled loop and its remainder), and a back-edge wait in a
loop ptxas unrolled is taken on every PTX trip, not once per unrolled trip. `weights(text, arch)` ->
SassMap, cached per PTX text, architecture, tools.
"""
from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from gpusim import ptxas
from gpusim.errors import LaunchError
from gpusim.jitcache import cache_root
from gpusim.ptxflow import moved_lines, ptx_blocks, ptx_loops, run_line
from gpusim.sasslisting import (
    ALU_OPS,
    DISPATCH_SAMPLED,
    FMA_OPS,
    XU_OPS,
    bank_conflicts,
    block_lines,
    control_fields,
    dispatch_hold,
    fma_cycles,
    on_uniform,
    on_xu,
    opcode,
    parse_blocks,
    predicated_blocks,
    predicated_shared,
    read_barriers,
    uniform_cycles,
    wide_imad_waits,
    xu_chain_waits,
)
from gpusim.sasstools import disassemble, find_nvdisasm, tag_lines
from gpusim.sm.fetch import IMC_BLOCK_BYTES, IMC_BLOCKS

_ULDC = re.compile(r"^ULDC(?:\.\w+)*\s+\w+\s*,\s*c\[0x0\]\[(0x[0-9a-fA-F]+)\]")   # a uniform constant load
_FUNCTION = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.(?:entry|func)\b")
_LDS_VECTOR = re.compile(r"^LDS(?:\.[A-Z]+)*\.(64|128)\b")    # a vector shared load: LDS.64, LDS.U.128
# PTX loads, stores, atomics and FP32 arithmetic, and the one SASS instruction each becomes (beside any
# sign extension or address work): how many of these a block holds per line tells its unroll factor
_ONE_TO_ONE = re.compile(r"^\s*(@!?%\w+\s+)?(ld|st|fma|add\.f32|mul\.f32|add\.rn\.f32|mul\.rn\.f32|atom|red)\b")
_PRIMARY = {"LDG", "LDS", "LD", "STG", "STS", "ST", "LDL", "STL", "ATOM", "ATOMG", "ATOMS", "RED", "REDG",
            "FFMA", "FADD", "FMUL", "LDC"}
_OWN = _PRIMARY - {"LDC"}          # a one-to-one line's own instruction (an LDC beside it reads an address base)
# and the approximate special functions and division: one MUFU each, whatever FSETP/FMUL scaling ptxas puts
# around it (ex2.approx.f32 without .ftz is FSETP, FMUL, MUFU.EX2, FMUL; div.full.f32 a MUFU.RCP and FMULs, the
# MUFU shared by divisions by one value); a loop of these alone tells its unroll too
_MUFU = frozenset({"MUFU"})
_ONE_MUFU = re.compile(r"^\s*(@!?%\w+\s+)?((ex2|rcp|rsqrt|sqrt|sin|cos|lg2|tanh)\.approx|div\.full)(\.ftz)?\.f32\b")
# and the conversions between integers and FP32, population counts and find-leading-ones: one I2FP (ALU), I2F,
# F2I, POPC or FLO (xu) each, so that a loop of them and integer logic alone tells its unroll too (probe
# conv_rate's chains, unrolled 4x by ptxas)
_CONV = (XU_OPS - {"MUFU"}) | {"I2FP"}
_ONE_CONV = re.compile(r"^\s*(@!?%\w+\s+)?(cvt(\.r[nzmp]i?)?(\.ftz)?(\.sat)?\.([su](32|64)\.f32|f32\.[su](32|64))"
                       r"|popc\.b32|bfind\.[us]32)\s")


def _one_to_one_lines(ptx: list) -> dict:
    """PTX line -> the SASS opcodes that are its own one instruction, for the lines that become one each."""
    out = {}
    for i, s in enumerate(ptx):
        if _ONE_TO_ONE.match(s):
            out[i + 1] = _OWN
        elif _ONE_MUFU.match(s):
            out[i + 1] = _MUFU
        elif _ONE_CONV.match(s):
            out[i + 1] = _CONV
    return out


_AUX = {"ULDC", "LDC", "BSSY", "BSYNC"}    # SASS a line's own work may have split off into a block of its own


@dataclass
class SassMap:
    """Per PTX line of one module: SASS instructions per execution, and what they are."""
    weight: dict = field(default_factory=dict)        # PTX line -> SASS instructions issued per execution
    opcodes: dict = field(default_factory=dict)       # PTX line -> {SASS opcode: count, all copies}
    pipes: dict = field(default_factory=dict)         # PTX line -> (ALU instructions, FMA-pipe cycles, MUFU
                                                      # instructions, dispatch-hold cycles, sampled-only
                                                      # dispatch-hold cycles, uniform-pipe cycles) per
                                                      # execution
    spill_lines: dict = field(default_factory=dict)   # PTX line -> (spill loads, spill stores) per execution
    aggregated: list = field(default_factory=list)    # PTX lines whose global atomic ptxas warp-aggregated
    vector: dict = field(default_factory=dict)        # PTX line -> bytes per lane of its widest LDS (8 or 16)
    stall: dict = field(default_factory=dict)         # PTX line -> ptxas's stall cycles of its SASS per execution
    yields: list = field(default_factory=list)        # PTX lines whose SASS ends in an instruction that yields
    rank: dict = field(default_factory=dict)          # PTX line -> where its SASS issues (listing position)
    rd_set: dict = field(default_factory=dict)        # PTX line -> read barriers its global/local SASS sets
    rd_wait: dict = field(default_factory=dict)       # PTX line -> read barriers of such SASS its SASS waits on
    uldc: dict = field(default_factory=dict)          # PTX line -> blocks of constant bank 0 (bit mask) first read
                                                      # by a ULDC of its SASS (the immediate-constant cache's misses)
    joins: list = field(default_factory=list)         # PTX lines a BSYNC opens (a branch's join, BSSY/BSYNC)
    total: int = 0                                    # SASS instructions kept
    unmapped: int = 0                                 # of which had no line before or after them
    tools: str = ""
    xu_chain: dict = field(default_factory=dict)      # PTX line -> cycles its SASS waits on its own xu results
                                                      # beyond ptxas's stall cycles, per execution
    predicated: dict = field(default_factory=dict)    # branch line -> SASS of the block ptxas predicated instead
    predicated_smem: dict = field(default_factory=dict)   # such a branch line -> [shared accesses, dependent
                                                          # load steps] of that block (`predicated_shared`)

    def to_json(self) -> dict:
        return {"weight": {str(k): v for k, v in self.weight.items()},
                "opcodes": {str(k): v for k, v in self.opcodes.items()},
                "spill_lines": {str(k): list(v) for k, v in self.spill_lines.items()},
                "pipes": {str(k): list(v) for k, v in self.pipes.items()}, "aggregated": self.aggregated,
                "vector": {str(k): v for k, v in self.vector.items()},
                "stall": {str(k): v for k, v in self.stall.items()}, "yields": self.yields,
                "rank": {str(k): v for k, v in self.rank.items()},
                "rd_set": {str(k): v for k, v in self.rd_set.items()},
                "rd_wait": {str(k): v for k, v in self.rd_wait.items()},
                "uldc": {str(k): v for k, v in self.uldc.items()}, "joins": self.joins,
                "total": self.total, "unmapped": self.unmapped, "tools": self.tools,
                "xu_chain": {str(k): v for k, v in self.xu_chain.items()},
                "predicated": {str(k): v for k, v in self.predicated.items()},
                "predicated_smem": {str(k): v for k, v in self.predicated_smem.items()}}

    @classmethod
    def from_json(cls, d: dict) -> "SassMap":
        return cls({int(k): v for k, v in d["weight"].items()}, {int(k): v for k, v in d["opcodes"].items()},
                   {int(k): tuple(v) for k, v in d["pipes"].items()},
                   {int(k): tuple(v) for k, v in d["spill_lines"].items()},
                   d["aggregated"], {int(k): v for k, v in d.get("vector", {}).items()},
                   {int(k): v for k, v in d.get("stall", {}).items()}, d.get("yields", []),
                   {int(k): v for k, v in d.get("rank", {}).items()},
                   {int(k): v for k, v in d.get("rd_set", {}).items()},
                   {int(k): v for k, v in d.get("rd_wait", {}).items()},
                   {int(k): v for k, v in d.get("uldc", {}).items()}, d["joins"], d["total"], d["unmapped"], d["tools"],
                   {int(k): v for k, v in d.get("xu_chain", {}).items()},
                   {int(k): v for k, v in d.get("predicated", {}).items()},
                   {int(k): v for k, v in d.get("predicated_smem", {}).items()})


def weights(text: str, arch: str, flags: tuple = ()) -> SassMap:
    """The SASS map of a PTX module compiled for `arch` (cached); `flags`: more ptxas options."""
    exe, dis = ptxas.find(), find_nvdisasm()
    if exe is None or dis is None:
        raise LaunchError("model='sass' needs ptxas and nvdisasm: install gpusim[sass] (or gpusim[triton], which "
                          "bundles both), or set GPUSIM_PTXAS/GPUSIM_NVDISASM; model='ptx' needs nothing")
    tools = f"{ptxas.tool_version(exe)} | {ptxas.tool_version(dis)}"
    key = hashlib.sha256(f"map57\0{tools}\0{arch}\0{' '.join(flags)}\0{text}".encode()).hexdigest()[:24]
    path = cache_root() / "ptxas" / f"{key}.map.json"
    if path.exists():
        return SassMap.from_json(json.loads(path.read_text()))
    listing = disassemble(exe, dis, tag_lines(text), arch, flags)
    blocks, depth = parse_blocks(listing)
    m = build(blocks, text, depth)
    m.tools = tools
    ptxas.write_atomic(path, json.dumps(m.to_json()))
    return m


def build(blocks: list, text: str, depth: list | None = None) -> SassMap:
    """Per-line weights from the SASS blocks (module docstring). depth: per block, its SASS loop depth: a line in a
    PTX loop counts only its copies in SASS loops or unrolled blocks as deep as its kept PTX loops (`_kept_copies`)."""
    ptx = text.splitlines()
    m = SassMap()
    per_block, m.joins = block_lines(blocks)
    one_to_one = _one_to_one_lines(ptx)
    block_of = ptx_blocks(ptx)[1]
    per_block = [moved_lines(lines, [_movable(ins, ln, one_to_one) for (ins, *_), ln in zip(blk, lines)], block_of)
                 if depth is not None and depth[bi] == 0 else lines
                 for bi, (blk, lines) in enumerate(zip(blocks, per_block))]
    kept = _kept_copies(blocks, per_block, depth, ptx_loops(text), text) if depth is not None else None
    local_lines = {i + 1 for i, s in enumerate(ptx) if re.search(r"\b(ld|st)\.local\b", s)}
    per_line_copies: dict = defaultdict(list)      # line -> [count / unroll, per block]
    primary_copies: Counter = Counter()            # line -> blocks holding its load/store/atomic/FP32 itself
    work_copies: Counter = Counter()               # line -> blocks holding more of it than constant reads
    spills: dict = defaultdict(lambda: [0.0, 0.0])
    pipe_use: dict = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    opcodes: dict = defaultdict(Counter)
    stalls: dict = defaultdict(float)
    xu_waits: dict = defaultdict(float)
    last_ctrl: dict = {}                           # line -> control bits of its last SASS instruction
    at = 0                                         # listing position of the block's first instruction
    seen_blocks: set = set()                       # (function, constant-bank block) a ULDC read already
    functions = [i + 1 for i, s in enumerate(ptx) if _FUNCTION.match(s)]     # each function's first line
    for bi, (blk, lines) in enumerate(zip(blocks, per_block)):
        _rank_lines(m.rank, blk, lines, at, None if kept is None else {ln for ln in lines if (bi, ln) in kept})
        at += len(blk)
        m.unmapped += sum(1 for ln in lines if ln is None)
        counts = Counter(ln for ln in lines if ln is not None)
        m.total += len(blk)
        unroll = _unroll(blk, lines, one_to_one)
        primaries = {ln for (ins, *_), ln in zip(blk, lines)
                     if ln in one_to_one and opcode(ins) in one_to_one[ln]}
        work = {ln for (ins, *_), ln in zip(blk, lines) if opcode(ins) not in _AUX}
        for ln, c in counts.items():
            if kept is None or (bi, ln) in kept:
                per_line_copies[ln].append(c / unroll)
                primary_copies[ln] += ln in primaries
                work_copies[ln] += ln in work
        extra = wide_imad_waits(blk)
        chain = xu_chain_waits(blk, lines)
        conflicts = bank_conflicts(blk)
        for k, ((ins, _, ctrl), ln) in enumerate(zip(blk, lines)):
            if ln is not None and ins.startswith("ULDC"):       # the first read of each constant-bank block
                c = _ULDC.match(ins)
                b = int(c.group(1), 16) // IMC_BLOCK_BYTES if c else -1
                key = (bisect.bisect_right(functions, ln), b)
                if 0 <= b < IMC_BLOCKS and key not in seen_blocks:
                    seen_blocks.add(key)
                    at_ln = run_line(lines, k, block_of)
                    m.uldc[at_ln] = m.uldc.get(at_ln, 0) | (1 << b)
            if ln is None or (kept is not None and (bi, ln) not in kept):
                continue
            op = opcode(ins)
            if ctrl is not None:
                stalls[ln] += (control_fields(ctrl)[0] + extra[k]) / unroll
                xu_waits[ln] += chain[k] / unroll
                last_ctrl[ln] = ctrl
            opcodes[ln][op] += 1
            vec = _LDS_VECTOR.match(ins.split()[1] if ins.startswith("@") else ins)
            if vec:
                m.vector[ln] = max(m.vector.get(ln, 0), int(vec.group(1)) // 8)
            if op in ALU_OPS:
                pipe_use[ln][0] += 1.0 / unroll
            elif op in FMA_OPS:
                pipe_use[ln][1] += fma_cycles(ins, op) / unroll
                pipe_use[ln][3] += dispatch_hold(ins) / unroll
                # a bank conflict: every warp waits for its reads, or only the others (sm/scheduler.py)
                pipe_use[ln][3 if conflicts[k][1] else 6] += conflicts[k][0] / unroll
                pipe_use[ln][4] += dispatch_hold(ins, DISPATCH_SAMPLED) / unroll
            elif on_xu(ins, op):
                pipe_use[ln][2] += 1.0 / unroll
            elif on_uniform(op):
                pipe_use[ln][5] += uniform_cycles(op) / unroll
            if op in ("LDL", "STL") and ln not in local_lines:
                spills[ln][0 if op == "LDL" else 1] += 1.0 / unroll
    for ln, copies in per_line_copies.items():
        # a load/store/atomic/FP32 line is as many copies as blocks holding that instruction: the blocks around
        # it holding the rest of its SASS (an aggregated atomic's VOTEU/FLO before, SHFL after) are parts of
        # them; any line's block holding only a constant read (ULDC of an operand) is a part of the next one
        n = primary_copies[ln] or work_copies[ln] or len(copies)
        m.weight[ln] = sum(copies) / n
        m.pipes[ln] = tuple(x / n for x in pipe_use[ln])
        if ln in spills:
            m.spill_lines[ln] = (spills[ln][0] / n, spills[ln][1] / n)
        if ln in last_ctrl:
            m.stall[ln] = stalls[ln] / n
        if xu_waits.get(ln, 0.0) > 0:
            m.xu_chain[ln] = xu_waits[ln] / n
    m.yields = sorted(ln for ln, c in last_ctrl.items() if control_fields(c)[1])
    m.rd_set, m.rd_wait = read_barriers(blocks, kept, functions, per_block)
    m.opcodes = {ln: dict(c) for ln, c in opcodes.items()}
    # an atomic with a result on a warp-uniform address: ptxas elects one lane (VOTEU.ANY, FLO), adds the
    # warp's count (POPC) in one ATOMG and hands each lane its value (SHFL)
    m.aggregated = sorted(ln for ln, c in opcodes.items()
                          if ("ATOMG" in c or "ATOM" in c) and ("VOTEU" in c or "VOTE" in c))
    m.predicated = predicated_blocks(ptx, m.opcodes, m.weight)
    m.predicated_smem = predicated_shared(ptx, m.opcodes, m.predicated)
    return m


def _movable(ins: str, ln, one_to_one: dict) -> bool:
    """Whether ptxas may have moved a SASS instruction away from its PTX line's block (`ptxflow.moved_lines`):
    integer and uniform-datapath work and constant reads, not a line's own primary instruction, memory access,
    branch or special register read."""
    op = opcode(ins)
    if ln is None or (ln in one_to_one and op in one_to_one[ln]):
        return False
    return op in ALU_OPS or op in FMA_OPS or op == "ULDC" or on_uniform(op)


def _rank_lines(rank: dict, blk: list, lines: list, at: int, kept: set | None) -> None:
    """Where each line's SASS issues, as a position in the listing: its first primary instruction
    (the load, store or FP32 operation itself, not the address work beside it), else its first one, in
    the first block holding a kept copy of it. Lines are tagged per PTX instruction, so this orders the
    PTX instructions of a basic block as ptxas scheduled them (`isa/schedule.sass_order`)."""
    first: dict = {}
    for i, ((ins, *_), ln) in enumerate(zip(blk, lines)):
        if ln is None or ln in rank or (kept is not None and ln not in kept):
            continue
        if ln not in first or (first[ln][1] is False and opcode(ins) in _PRIMARY):
            first[ln] = (at + i, opcode(ins) in _PRIMARY)
    for ln, (pos, _) in first.items():
        rank[ln] = pos


def _unroll(blk, lines, one_to_one) -> int:
    """A block's unroll factor: the commonest count, per line, of its primary SASS of one-to-one lines (not
    counting LDC: a constant-bank read of an address base sits beside the load or atomic it serves)."""
    primary = Counter(ln for (ins, *_), ln in zip(blk, lines) if ln in one_to_one and opcode(ins) in one_to_one[ln])
    steady = Counter(primary.values())
    return max(1, steady.most_common(1)[0][0]) if steady else 1


def _kept_copies(blocks, per_block, depth, loops, text) -> set:
    """(block, line) pairs whose SASS counts per execution of the line. A line inside a PTX loop that ptxas
    kept as a loop (some line of it has SASS in a SASS loop or an unrolled block) counts only its copies
    there: its others were hoisted out of the loop or peeled off it, and run once per loop, not per trip.
    Nested loops the same way: a line d PTX loops deep counts its copies at least d SASS loops deep (an
    unrolled block one deeper than its loops), or, where ptxas left fewer loops around it, its deepest
    copies; a copy in the outer loop only was hoisted out of the inner one and runs once per outer trip."""
    ptx = text.splitlines()
    one_to_one = _one_to_one_lines(ptx)
    where: dict = defaultdict(list)          # line -> [(block, SASS loop depth, an unrolled block counting one)]
    for bi, (blk, lines) in enumerate(zip(blocks, per_block)):
        d = int(depth[bi]) + (_unroll(blk, lines, one_to_one) > 1)
        for ln in set(lines):
            if ln is not None:
                where[ln].append((bi, d))
    kept_loops = [(a, b) for a, b in loops if any(d > 0 for ln in range(a, b + 1) for _, d in where.get(ln, ()))]
    kept = set()
    for ln, copies in where.items():
        inside = sum(1 for a, b in kept_loops if a <= ln <= b)
        if inside:
            need = min(inside, max(d for _, d in copies))
            kept.update((bi, ln) for bi, d in copies if d > 0 and d >= need)
        else:
            kept.update((bi, ln) for bi, _ in copies)
    return kept


def pc_weights(m: SassMap, lines) -> np.ndarray:
    """Per pc of a decoded program (`lines[pc]`: its PTX line), an array of shape (n, 20): the SASS instructions it
    issues per execution, its ALU-pipe instructions, FMA-pipe cycles, 1 for a warp-aggregated atomic, the spill loads
    and stores ptxas put on its line, the bytes per lane of its widest vector shared load, ptxas's stall cycles, 1
    where its last SASS yields, the read barriers (bit masks, `read_barriers`) its SASS sets and (first pc) waits
    on, (first pc) the constant-bank blocks its ULDCs read first (bit mask), its MUFU instructions, (first pc) 1
    where its SASS holds a BSYNC (it opens the join of a branch a warp may diverge on), and at its last pc: the
    cycles its SASS waits on its own xu results beyond the stall cycles (`xu_chain`), holds the sub-partition's
    dispatch after it (`sasslisting.dispatch_hold`, and a bank conflict that holds its own warp too), such a hold
    only sampled (`DISPATCH_SAMPLED`), at a branch the SASS of the block ptxas predicated instead
    (`predicated_blocks`); its uniform-pipe cycles (`sasslisting.uniform_cycles`); at its last pc the cycles its
    register reads hold the other warps' dispatch (`sasslisting.bank_conflicts`).
    A line gpusim decodes into several pcs shares its weights and stall cycles among them (its spills and
    vector width go to its first pc, its yield to its last); a line the map does not name (no SASS came
    from it) weighs 0."""
    lines = np.asarray(lines, np.int64)
    per_line = Counter(int(x) for x in lines)
    agg = set(m.aggregated)
    first, last = {}, {}
    for pc, ln in enumerate(lines):
        first.setdefault(int(ln), pc)
        last[int(ln)] = pc
    yields = set(m.yields)
    nospill = (0.0, 0.0)
    rd_set, rd_wait, joins = m.rd_set, m.rd_wait, set(m.joins)
    return np.array([(m.weight.get(int(ln), 0.0) / per_line[int(ln)],
                      *(_pipe(m.pipes.get(int(ln), ()), k) / per_line[int(ln)] for k in (0, 1)),
                      1.0 if int(ln) in agg else 0.0,
                      *(m.spill_lines.get(int(ln), nospill) if first[int(ln)] == pc else nospill),
                      m.vector.get(int(ln), 0) if first[int(ln)] == pc else 0,
                      m.stall.get(int(ln), 0.0) / per_line[int(ln)],
                      1.0 if int(ln) in yields and last[int(ln)] == pc else 0.0,
                      rd_set.get(int(ln), 0), rd_wait.get(int(ln), 0) if first[int(ln)] == pc else 0,
                      m.uldc.get(int(ln), 0) if first[int(ln)] == pc else 0,
                      m.pipes.get(int(ln), (0.0, 0.0, 0.0))[2] / per_line[int(ln)],
                      1.0 if first[int(ln)] == pc and int(ln) in joins else 0.0,
                      m.xu_chain.get(int(ln), 0.0) if last[int(ln)] == pc else 0.0,
                      *(_pipe(m.pipes.get(int(ln), ()), k) if last[int(ln)] == pc else 0.0 for k in (3, 4)),
                      m.predicated.get(int(ln), 0.0) if last[int(ln)] == pc else 0.0,
                      _pipe(m.pipes.get(int(ln), ()), 5) / per_line[int(ln)],
                      _pipe(m.pipes.get(int(ln), ()), 6) if last[int(ln)] == pc else 0.0)
                     for pc, ln in enumerate(lines)], np.float64).reshape(-1, 20)


def predicated_shared_pcs(m: SassMap, lines) -> np.ndarray:
    """Per pc of a decoded program (`lines[pc]`: its PTX line), shape (n, 2): at the last pc of a branch over a
    block ptxas predicated, the block's shared-memory accesses and dependent load steps (`predicated_shared`);
    0 elsewhere."""
    lines = np.asarray(lines, np.int64)
    out = np.zeros((len(lines), 2), np.int64)
    for pc, ln in enumerate(lines):
        got = m.predicated_smem.get(int(ln))
        if got and (pc + 1 == len(lines) or int(lines[pc + 1]) != int(ln)):
            out[pc] = got
    return out


def _pipe(pipes: tuple, k: int) -> float:
    """Entry k of a line's `pipes` (0 where a map from before it has none)."""
    return pipes[k] if len(pipes) > k else 0.0
