"""nvdisasm's listing read back: the SASS basic blocks of a line-tagged cubin, each instruction with the
PTX line it came from and its control word, and what the control words say about read barriers.

`nvdisasm -g -hex -c` prints each SASS instruction with the `//## File "ptx", line N` tag of the PTX
line ptxas compiled it from (gpusim/sassmap.py tags every line) and, on the next line, the high word
of its encoding. The top 23 bits of that word are the control bits ptxas sets for the warp scheduler
(`CONTROL_SHIFT`): stall cycles (bits 0-3 of the control word), the yield flag (4: clear = switch to
another warp), the barrier the instruction's result releases (5-7), the barrier its operand reads
release (8-10; 7: none) and the barriers it waits on (11-16, one bit each).
"""
from __future__ import annotations

import bisect
import re
from collections import defaultdict

CONTROL_SHIFT = 41            # the control word is the encoding's high word >> 41
NO_BARRIER = 7
_LINE = re.compile(r'//## File "ptx", line (\d+)')
_INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_LABEL = re.compile(r"^(\.L_x_\d+):")
# a subroutine ptxas placed after the kernel's code in a whole-program cubin (64-bit division and the like:
# `$__internal_0_$__cuda_sm20_div_s64:`, reached by CALL.REL); it names no PTX line
_SUBROUTINE = re.compile(r"^\$__internal_\w*\$[\w$]*:")
_SELF_BRANCH = re.compile(r"^BRA\s+`\((\.L_x_\d+)\)")
# the high word of an instruction's encoding, on the line after it (`nvdisasm -hex`)
_HI_WORD = re.compile(r"^/\*\s*0x([0-9a-f]{16})\s*\*/$")
_BRANCH_TARGET = re.compile(r"`\((\.L_x_\d+)\)")
_ENDS_BLOCK = ("BRA", "EXIT", "RET", "BRX", "JMP", "JMX", "CALL", "BREAK", "WARPSYNC")
# global and local memory instructions: the LSU reads their registers when it begins them
# the SASS whose registers the LSU reads when it begins the instruction (a read barrier guards them); LDGSTS
# (cp.async) too: a pipelined Triton loop's back edge waits on the barrier its last LDGSTS set (tri_softmax's
# BRA: 4.1% of the H100's stall samples, all long_scoreboard)
LSU_MEMORY = {"LDG", "STG", "LD", "ST", "LDL", "STL", "ATOM", "ATOMG", "RED", "REDG", "LDGSTS"}


# Hopper's sub-partition pipes (as ncu names them): the ALU pipe (16 lanes: a warp instruction every 2
# cycles) and the FMA pipe (FP32 on two datapaths, one per cycle; integer multiply-add only on the heavy
# one, every 2 cycles): in FMA-pipe cycles per instruction. VIADD is the heavy half's (2 cycles), and a
# wide or high-half IMAD (IMAD.WIDE[.U32], IMAD.HI[.U32]: a 64-bit product) takes it 4 cycles, not 2 (ncu's
# pipe counters on int_imad_wide/hi_throughput, validation/data/h100/ncu/int_wide_2026-11-27)
ALU_OPS = {"IADD3", "LOP3", "SHF", "ISETP", "SEL", "LEA", "FSETP", "FSEL", "FMNMX", "IMNMX", "PLOP3", "P2R",
           "R2P", "MOV", "IABS", "BMSK", "SGXT", "PRMT", "VIMNMX", "ICMP", "CSET", "CSETP", "LOP", "SHL",
           "SHR", "IADD", "ISCADD", "SHFL_ALU", "I2FP"}
FMA_OPS = {"FFMA": 1, "FADD": 1, "FMUL": 1, "FSWZADD": 1, "HFMA2": 1, "HADD2": 1, "HMUL2": 1, "IMAD": 2, "IMUL": 2,
           "IDP": 2, "IMADSP": 2, "VIADD": 2}
# what runs on the xu pipe (ncu's xu instructions): MUFU and (probe conv_rate: one xu instruction per F2I, POPC or
# FLO, a sub-partition issuing one every ~8.5-8.8 cycles, the MUFU's rate; their results set a scoreboard, a lone
# chain waiting 17 cycles a POPC or FLO, probe int_latency) the conversions between 32-bit integers and floats (an
# I2FP.F32.S32 is an ALU instruction; the F64 forms are left out, not measured), population count and find
# leading one
XU_OPS = frozenset({"MUFU", "F2I", "I2F", "POPC", "FLO"})
_WIDE_IMAD = re.compile(r"^(?:@!?U?P\w+\s+)?IMAD\.(WIDE|HI)\b")


# cycles an IMAD.HI keeps its sub-partition from dispatching anything after it issues (probe dispatch_pairs, H200:
# at one warp a sub-partition, 7.5 cycles of dispatch_stall a step of 4 IMAD.HI.U32; int_imad_hi_throughput's
# per-SASS table, 1.4-2.3 on the instruction after each). IMAD.WIDE holds it as long in the probe (8.2 / 8.3 cycles
# a step with a uniform / a vector register operand), but as a plain 2-cycle hold it makes int_imad_wide_throughput
# 2.3% -> 13.7% and the probe's lone IMAD.WIDE chains 48.2 -> 54.5 cycles a step (H200 48.2): the H200 overlaps
# that hold with the waits around it, which this does not; left at none
DISPATCH_HOLD = {"HI": 2}
# IMAD.WIDE's hold as the H200 samples it: the ready warps of its sub-partition show dispatch_stall for 2 cycles
# after it (probe dispatch_pairs: 8.2 cycles a step of 4 at one warp, 64.0 of 275.3 at eight; prog_divergence, whose
# loop is mostly ptxas's 64-bit remainder, IMAD.WIDE.U32[.X] and ALU work: 3.94 cycles per instruction, 18.8% of its
# samples, on whatever instruction the waiting warps are at). Its time is in the FMA pipe's 4 cycles and the
# reader's wait (`WIDE_IMAD_LATENCY`), fitted without a hold, so the hold is sampled only: the dispatch goes on
DISPATCH_SAMPLED = {"WIDE": 2}


def dispatch_hold(ins: str, table: dict = DISPATCH_HOLD) -> int:
    """Cycles a SASS instruction holds its sub-partition's dispatch after it issues (`DISPATCH_HOLD`; with
    table=DISPATCH_SAMPLED, the cycles that are only sampled so)."""
    m = _WIDE_IMAD.match(ins)
    return table.get(m.group(1), 0) if m else 0


# what runs on a sub-partition's uniform-datapath pipe (ncu's pipe_uniform instructions): every U-prefixed
# instruction but the uniform moves and constant loads (UMOV, ULDC) and the asynchronous-copy and cluster ones,
# which go to their own units. ncu's smsp__inst_executed_pipe_uniform equals the count of these over the
# per-SASS tables of 19 recorded kernels (validation/data/h100/ncu/sass_stalls*/; DEVIATIONS, forty-third pass).
# The pipe's cycles per instruction (probe uniform_rate, ten loops at 16 warps a sub-partition): an add, logic op
# or multiply-add 3 (UIADD3 / ULOP3 / UIMAD: uni_p4 61.3 cycles a step for 20, uni_l4 51.6 for 17), a shift,
# compare or select about 1 (USHF in uni_w2 and vec_w2, UISETP and USEL in uni_r3 and vec_r2); the other
# uniform instructions (ULEA, UPRMT, UFLO...) are not measured and take 1
_NOT_UNIFORM_PIPE = ("UMOV", "ULDC", "UTMA", "UBLK", "UCGA", "USETMAXREG")
UNIFORM_CYCLES = {"UIADD3": 3, "ULOP3": 3, "UIMAD": 3}


def on_uniform(op: str) -> bool:
    """Whether a SASS instruction (`op`, its mnemonic without modifiers) takes the uniform datapath's pipe."""
    return op.startswith("U") and not op.startswith(_NOT_UNIFORM_PIPE)


def uniform_cycles(op: str) -> int:
    """Uniform-pipe cycles of one SASS instruction (`op` its mnemonic without modifiers, `on_uniform`)."""
    return UNIFORM_CYCLES.get(op, 1)


# BAR.SYNC.DEFER_BLOCKING (ptxas's bar.sync): a warp that arrives goes on issuing ALU, FMA-pipe and uniform-pipe
# instructions and waits for the barrier at its first other one. The H100's per-SASS samples (data/h100/ncu/
# sass_stalls*) put a barrier's stalls on that instruction, up to six past the BAR: an LDS, STS, LDG, LDC, ULDC, UMOV,
# BRA, BSSY or EXIT, never an ISETP, IADD3, IMAD, SEL, FFMA, LOP3, UIADD3 or UISETP; a clock read (CS2R) goes past
# too (the burst cases' clock after their barrier, nineteenth pass)
def passes_barrier(opcodes) -> bool:
    """Whether SASS of these mnemonics (without modifiers) all issue while their warp's barrier is pending."""
    return all(op in ALU_OPS or op in FMA_OPS or op == "CS2R" or on_uniform(op) for op in opcodes)


def deferred_pcs(opcodes: dict, lines, register_only) -> list:
    """Per pc (`lines[pc]`: its PTX line; `register_only[pc]`: it touches registers only), 1 where the warp
    may issue it while its barrier is pending: its line's SASS all `passes_barrier` (a line without SASS too)."""
    return [int(bool(r) and passes_barrier(opcodes.get(int(ln), ()))) for ln, r in zip(lines, register_only)]


def on_xu(ins: str, op: str) -> bool:
    """Whether a SASS instruction (its text, and `op` its mnemonic without modifiers) runs on the xu pipe."""
    return op in XU_OPS and ".F64" not in ins


# how long the H100 makes the next instruction that reads a wide IMAD's result wait after it issues, where ptxas's
# stall cycles say less (probe int_latency, one warp's dependent chain: IMAD.HI.U32 10.05 cycles a step at 6 stall
# cycles, IMAD.WIDE.U32 + IADD3 12.64 at 3 + 5, IMAD 4.61 at 4; 0.6 of each is the loop's own)
WIDE_IMAD_LATENCY = {"HI": 9.4, "WIDE": 7.0}
# how long after it issues an xu instruction's result is ready (probe int_latency: a lone chain of POPC or FLO,
# 17.0 cycles a step less the loop's 0.6; a division by a value that changes, whose I2F.U32.RP -> MUFU.RCP -> F2I
# chain ptxas cannot hoist, 129.5 cycles a step)
XU_LATENCY = 16.4
_WIDE_DEST = re.compile(r"^(?:@!?U?P\w+\s+)?IMAD\.(WIDE|HI)\S*\s+R(\d+),")
_DEST = re.compile(r"^(?:@!?U?P\w+\s+)?(\w+)\S*\s+R(\d+),")
_REG = re.compile(r"\bR(\d+)\b")


def _sources(ins: str) -> str:
    """The source operands of a SASS instruction's text (a store's or reduction's are all of them)."""
    body = ins.split(None, 1)[1] if ins.startswith("@") else ins
    parts = body.split(None, 1)
    if len(parts) < 2:
        return ""
    if parts[0].startswith(("ST", "RED")):
        return parts[1]
    ops = [o.strip() for o in parts[1].split(",")]
    # a predicate destination first and a register one after it (LOP3.LUT P2, R9, ...; SHFL.IDX PT, R3, ...)
    skip = 2 if len(ops) > 2 and re.match(r"^!?(PT|P\d)$", ops[0]) and re.match(r"^R\d+$", ops[1]) else 1
    return ", ".join(ops[skip:])


def _reader_wait(blk: list, i: int, dest: set, latency: float, lines: list | None = None) -> float:
    """The cycles the first later instruction of the block that reads `dest` (registers written by instruction i)
    waits for it beyond ptxas's stall cycles between them: `latency` less those, 0 if none reads it within that
    time (or, given `lines`, before the block leaves i's PTX line)."""
    ctrl, waited = blk[i][2], 0
    for j in range(i + 1, len(blk)):
        waited += control_fields(ctrl)[0]
        if waited >= latency or (lines is not None and lines[j] != lines[i]):
            return 0.0
        if any(int(r) in dest for r in _REG.findall(_sources(blk[j][0]))):
            return latency - waited
        ctrl = blk[j][2]
        if ctrl is None:
            return 0.0
    return 0.0


def wide_imad_waits(blk: list) -> list:
    """Per SASS instruction of a block (`parse_blocks`: text, line, control bits), the cycles its reader waits
    beyond ptxas's stall cycles: for an IMAD.HI or IMAD.WIDE (its register pair), after `WIDE_IMAD_LATENCY`."""
    out = [0.0] * len(blk)
    for i, (ins, _, ctrl) in enumerate(blk):
        m = _WIDE_DEST.match(ins)
        if m is not None and ctrl is not None:
            r = int(m.group(2))
            out[i] = _reader_wait(blk, i, {r, r + 1} if m.group(1) == "WIDE" else {r}, WIDE_IMAD_LATENCY[m.group(1)])
    return out


def xu_chain_waits(blk: list, lines: list) -> list:
    """Per SASS instruction of a block and its PTX line: for an xu instruction (`on_xu`) whose result a later
    instruction of the same line reads (a division's I2F -> MUFU.RCP -> F2I chain), the cycles that reader waits
    beyond ptxas's stall cycles, after `XU_LATENCY`: the scoreboard wait inside the line, which the stall cycles
    do not hold (a reader in another line waits on the scoreboard: sm/pipelines.py `xu_only`)."""
    out = [0.0] * len(blk)
    for i, (ins, _, ctrl) in enumerate(blk):
        m = _DEST.match(ins)
        if m is not None and ctrl is not None and lines[i] is not None and on_xu(ins, m.group(1)):
            out[i] = _reader_wait(blk, i, {int(m.group(2))}, XU_LATENCY, lines)
    return out


# A sub-partition's register file reads a warp's source registers from two banks (register number mod 2), one
# register a bank a cycle; a full-rate FP32 instruction (one a cycle on the FMA pipe: FFMA, FADD, FMUL and the
# half2 forms) that needs two registers of one bank holds the dispatch a cycle longer. A register the previous
# instruction marked `.reuse` in the same operand slot comes from the operand reuse cache instead, where that one
# let it issue the next cycle (1 stall cycle); after a longer stall other warps have issued in between. Probe
# chain_rate (H200, validation/data/h100/probe_chain_rate_h200.json), cycles a trip of 16 dependent
# instructions at 8 warps a sub-partition: `FFMA R0, R0, R4, R5` 268.7 (R0 and R4 in one bank: two cycles
# each), `FFMA R0, R0, R9, 0.5` 157.8, `FADD R0, R0, UR5` 157.3 (one cycle each); two chains whose second FFMA
# reads R4 and R5 from the reuse cache 204.4. ncu samples the waiting warps as dispatch_stall (3.89 cycles per
# instruction) and wait. Half-rate instructions (IMAD, the ALU pipe's) read over their two cycles (imad_w8
# 261.3, gpusim 262.6 without it).
REGISTER_BANKS = 2
_SRC_REG = re.compile(r"(?<![\w.])R(\d+)((?:\.\w+)*)")


def _bank_reads(ins: str, prev_reuse: set, prev_stall: int) -> tuple[dict, set]:
    """(the registers one SASS instruction reads from each bank, the operands it marks `.reuse`), given those the
    instruction before it marked and that one's stall cycles."""
    banks: dict = {}
    reuse = set()
    for slot, operand in enumerate(_sources(ins).split(",")):
        for m in _SRC_REG.finditer(operand):
            r = int(m.group(1))
            if ".reuse" in m.group(2):
                reuse.add((slot, r))
            if prev_stall > 1 or (slot, r) not in prev_reuse:
                banks.setdefault(r % REGISTER_BANKS, set()).add(r)
    return banks, reuse


def bank_conflicts(blk: list) -> list:
    """Per SASS instruction of a block (`parse_blocks`: text, line, control bits): (the cycles it holds its
    sub-partition's dispatch to read its source registers beyond one a bank (`REGISTER_BANKS`), whether they hold
    its warp's next instruction too: one that issues the next cycle and reads only the banks it reads twice)."""
    stall = [control_fields(ctrl)[0] if ctrl is not None else 99 for _, _, ctrl in blk]
    reads, prev_reuse, prev_stall = [], set(), 99
    for (ins, _, _), st in zip(blk, stall):
        banks, prev_reuse = _bank_reads(ins, prev_reuse, prev_stall)
        reads.append(banks)
        prev_stall = st
    out = []
    for i, (ins, _, _) in enumerate(blk):
        k, own = 0, False
        if FMA_OPS.get(opcode(ins)) == 1 and ".MMA" not in ins:
            k = max(0, max((len(v) for v in reads[i].values()), default=0) - 1)
            if k > 0 and i + 1 < len(blk) and stall[i] <= 1:
                hot = {b for b, regs in reads[i].items() if len(regs) > 1}
                own = bool(reads[i + 1]) and set(reads[i + 1]) <= hot
        out.append((k, own))
    return out


def fma_cycles(ins: str, op: str) -> int:
    """FMA-pipe cycles of one SASS instruction (`op`: its mnemonic without modifiers, in `FMA_OPS`)."""
    return 4 if op == "IMAD" and _WIDE_IMAD.match(ins) else FMA_OPS[op]


def control_fields(ctrl: int) -> tuple[int, bool, int, int, int]:
    """A control word's (stall cycles, yields, result barrier, read barrier, wait mask)."""
    return ctrl & 15, not (ctrl >> 4) & 1, (ctrl >> 5) & 7, (ctrl >> 8) & 7, (ctrl >> 11) & 63


def parse_listing(listing: str) -> list[list[tuple[str, int | None]]]:
    """SASS basic blocks, each a list of (instruction text, PTX line or None, control bits or None), per
    `nvdisasm -g -hex -c` (without -hex the control bits are None)."""
    return parse_blocks(listing)[0]


def parse_blocks(listing: str) -> tuple[list, list]:
    """The SASS basic blocks (as `parse_listing`) and, per block, its loop depth: how many loops (a label and
    a later branch back to it) it lies in; 0 outside every loop."""
    blocks, cur, line, labels_at = [], [], None, []
    starts: dict = {}            # label -> index of the block it starts
    back: list = []              # (first block, last block) of each backward branch
    for raw in listing.splitlines():
        s = raw.strip()
        hi = _HI_WORD.match(s)
        if hi:
            if cur and cur[-1][2] is None:
                cur[-1] = (cur[-1][0], cur[-1][1], int(hi.group(1), 16) >> CONTROL_SHIFT)
            elif not cur and blocks and blocks[-1] and blocks[-1][-1][2] is None:     # a block's last instruction
                blocks[-1][-1] = (blocks[-1][-1][0], blocks[-1][-1][1], int(hi.group(1), 16) >> CONTROL_SHIFT)
            continue
        if s.startswith(".text.") or s.startswith(".section") or _SUBROUTINE.match(s):
            line = None          # a new function: its lines start afresh
            if cur and _SUBROUTINE.match(s):
                blocks.append(cur)
                cur, labels_at = [], []
        m = _LINE.search(s)
        if m:
            line = int(m.group(1))
            continue
        lab = _LABEL.match(s)
        if lab:
            if cur:
                blocks.append(cur)
            cur, labels_at = [], [lab.group(1)]
            starts[lab.group(1)] = len(blocks)
            continue
        ins = _INS.search(s)
        if not ins:
            continue
        text = ins.group(2)
        op = opcode(text)
        if op == "NOP":
            continue
        sb = _SELF_BRANCH.match(text)
        if sb and not cur and sb.group(1) in labels_at:
            continue             # the dead `BRA self` after the last EXIT
        cur.append((text, line, None))
        tgt = _BRANCH_TARGET.search(text)
        if op == "BRA" and tgt and tgt.group(1) in starts:
            back.append((starts[tgt.group(1)], len(blocks)))
        if op in _ENDS_BLOCK:
            blocks.append(cur)
            cur, labels_at = [], []
    if cur:
        blocks.append(cur)
    loops: dict = {}                          # first block -> last: branches back to one label close one loop
    for first, last in back:
        loops[first] = max(last, loops.get(first, last))
    depth = [0] * len(blocks)
    for first, last in loops.items():
        for b in range(first, min(last, len(blocks) - 1) + 1):
            depth[b] += 1
    return blocks, depth


def opcode(text: str) -> str:
    """The SASS mnemonic without guard or modifiers: '@!P0 IMAD.WIDE.U32 R2, ...' -> 'IMAD'."""
    t = text.split()
    if t and t[0].startswith("@"):
        t = t[1:]
    return t[0].split(".")[0] if t else ""


def fill_lines(lines: list) -> list:
    """Unlined SASS takes the line before it in its block, else the one after it."""
    out, last = list(lines), None
    for i, ln in enumerate(out):
        if ln is None:
            out[i] = last
        else:
            last = ln
    nxt = None
    for i in range(len(out) - 1, -1, -1):
        if out[i] is None:
            out[i] = nxt
        else:
            nxt = out[i]
    return out


def block_lines(blocks: list) -> tuple[list, list]:
    """Per block, the PTX line of each SASS instruction (`fill_lines`), but a BSYNC goes to the first line after
    it, not the one before: it is the join's (every path runs it, and ptxas's join block starts with it); and the
    lines BSYNCs so open (sorted)."""
    raw = [x[1] for blk in blocks for x in blk]
    at = [i for i, x in enumerate(x for blk in blocks for x in blk) if opcode(x[0]) == "BSYNC"]
    joined = {i: next((ln for ln in raw[i + 1:] if ln is not None), None) for i in at}
    out, k = [], 0
    for blk in blocks:
        out.append(fill_lines([joined.get(k + i) or x[1] for i, x in enumerate(blk)]))
        k += len(blk)
    return out, sorted({ln for ln in joined.values() if ln is not None})


def read_barriers(blocks: list, kept: set | None = None, functions: list | None = None,
                  per_block: list | None = None) -> tuple[dict, dict]:
    """Write-after-read waits, from the control bits: per PTX line, the read barriers its global or local
    memory SASS sets (released once the LSU has read the instruction's registers), and the read barriers
    its SASS waits on (a wait on a barrier whose latest setter, in listing order, set it as such a read
    barrier: ptxas makes the next writer of those registers, or a loop's back edge, wait for the read).
    Bit b of a mask is scoreboard barrier b (0-5). functions: each PTX function's first line; a function's
    waits are not matched to another's setters. per_block: each block's PTX line per instruction, if not the
    listing's own (the SASS map's, with hoisted work placed where it runs)."""
    rd_set: dict = defaultdict(int)
    rd_wait: dict = defaultdict(int)
    read_by = [False] * 6           # per barrier: its latest setter set it as a memory read barrier
    func = -1
    for bi, blk in enumerate(blocks):
        lines = fill_lines([x[1] for x in blk]) if per_block is None else per_block[bi]
        first = next((ln for ln in lines if ln is not None), None)
        if functions and first is not None and bisect.bisect_right(functions, first) != func:
            func, read_by = bisect.bisect_right(functions, first), [False] * 6
        for (ins, _, ctrl), ln in zip(blk, lines):
            if ctrl is None:
                continue
            _, _, wr, rd, wait = control_fields(ctrl)
            keep = ln is not None and (kept is None or (bi, ln) in kept)
            hit = sum(1 << b for b in range(6) if (wait >> b) & 1 and read_by[b])
            if hit and keep:
                rd_wait[ln] |= hit
            if wr != NO_BARRIER:
                read_by[wr] = False
            if rd != NO_BARRIER:
                read_by[rd] = opcode(ins) in LSU_MEMORY
                if read_by[rd] and keep:
                    rd_set[ln] |= 1 << rd
    return dict(rd_set), dict(rd_wait)


_PTX_CBRA = re.compile(r"^\s*@!?%p\w*\s+bra(?:\.uni)?\s+(\$?[\w$]+)\s*;")
_PTX_LABEL = re.compile(r"^\s*(\$?[\w$]+):")
_PTX_ENDS_BLOCK = re.compile(r"\b(bra|ret|exit|bar|barrier|call|brx)\b")
IF_BODY_LINES = 48      # the longest block over which ptxas's if-conversion is looked for


def predicated_blocks(ptx: list, opcodes: dict, weight: dict) -> dict:
    """{PTX line of a conditional forward branch ptxas left no BRA for: the SASS instructions per execution of the
    straight-line block it jumps over}. ptxas if-converts such a short block (its SASS predicated, no branch), so
    every warp issues it, one that jumps over it too (ho_reduce6_unrolled's tree steps: ncu counts their LDS and
    STS on every warp)."""
    out = {}
    for i, text in enumerate(ptx):
        m = _PTX_CBRA.match(text)
        ln = i + 1
        if not m or "BRA" in opcodes.get(ln, {}):
            continue
        total = 0.0
        for j in range(i + 1, min(i + 1 + IF_BODY_LINES, len(ptx))):
            lab = _PTX_LABEL.match(ptx[j])
            if lab:
                if lab.group(1) == m.group(1) and total > 0:
                    out[ln] = total
                break
            if _PTX_ENDS_BLOCK.search(ptx[j].split("//")[0]):
                break
            total += weight.get(j + 1, 0.0)
    return out


SHARED_ACCESSES = ("LDS", "STS", "LDSM")


def predicated_shared(ptx: list, opcodes: dict, predicated: dict) -> dict:
    """{branch line of a block ptxas predicated (`predicated_blocks`): [its shared-memory accesses, the loads of
    them that begin a dependent step]}: the lines of the block whose SASS holds an LDS, STS or LDSM, and the loads
    that follow a store or start the block (a tree step `s[t] += s[t + d]` is one: LDS, LDS, add, STS). A warp
    that issues them with every lane predicated off still takes a shared-pipe wavefront for each and waits for
    each step's loads before the step's store (probe predicated_shared: the H200 runs such a warp 9% faster
    than one with every lane on, not twice as fast)."""
    out = {}
    for ln in sorted(predicated):
        target = _PTX_CBRA.match(ptx[ln - 1]).group(1)
        accesses = steps = 0
        loading = False
        for j in range(ln, min(ln + IF_BODY_LINES, len(ptx))):
            lab = _PTX_LABEL.match(ptx[j])
            if lab and lab.group(1) == target:
                break
            ops = opcodes.get(j + 1, {})
            load = "LDS" in ops or "LDSM" in ops
            if load or "STS" in ops:
                accesses += 1
                if load and not loading:
                    steps += 1
                loading = load
        if accesses:
            out[ln] = [accesses, steps]
    return out
