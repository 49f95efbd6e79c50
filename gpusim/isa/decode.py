"""Decode a parsed kernel (and the .func functions it may call) into numeric arrays.

The executor never sees Python objects: it reads `ins`/`opk`/`opv`/`opo` (see opcodes.py) and a call
table. Symbols are resolved here to addresses in their state space; branch targets to pcs; each
branch gets its reconvergence pc from the control-flow graph (cfg.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpusim.errors import PTXSyntaxError, UnsupportedInstruction
from gpusim.isa import ast
from gpusim.isa import opcodes as oc
from gpusim.isa.b128 import lower_b128
from gpusim.isa.calls import CALL_W, FRAME_REG, call_record, cyclic_functions, recursion
from gpusim.isa.ccflag import attach_carry
from gpusim.isa.cfg import reconverge
from gpusim.isa.classes import instruction_class
from gpusim.isa.forms import check_instruction, reg_type, special_register_family
from gpusim.isa.hopper import decode_hopper, rename_cp
from gpusim.isa.immediates import imm_bits
from gpusim.isa.layout import Layout as _Layout
from gpusim.isa.modifiers import classify
from gpusim.isa.schedule import sass_order, sink_load_consumers
from gpusim.isa.symbols import place_symbols
from gpusim.isa.tensorops import BASES as TENSOR_BASES
from gpusim.isa.tensorops import encode as encode_tensor
from gpusim.isa.types import TYPE_CODE, TYPE_SIZE


@dataclass
class Param:
    name: str
    offset: int
    size: int
    type: str


@dataclass
class DecodedKernel:
    name: str
    file: str
    ins: np.ndarray
    opk: np.ndarray
    opv: np.ndarray
    opo: np.ndarray
    calls: np.ndarray
    saves: np.ndarray           # recursion save sets (calls.py)
    nregs: int
    params: list
    param_size: int
    shared_static: int
    local_size: int
    globals_size: int
    global_inits: list          # (offset from GLOBAL_BASE, bytes)
    const_bytes: bytes
    ptx_lines: list             # per pc
    src_lines: list             # per pc: (file path, line) or None
    texts: list                 # per pc: instruction text
    reg_words: np.ndarray       # 32-bit words per register (0 for predicates)
    directives: dict = field(default_factory=dict)
    vlist: np.ndarray = field(default_factory=lambda: np.zeros((1, 1), np.int64))   # hopper.py: register vectors
    recursive: bool = False     # some function is on a call-graph cycle: threads need a call stack
    global_symbols: dict = field(default_factory=dict)   # module .global variable -> (address, bytes)
    _regs: int | None = None

    @property
    def regs_per_thread(self) -> int:
        """Estimated registers per thread (liveness analysis; see liveness.py)."""
        if self._regs is None:
            from gpusim.isa.liveness import register_estimate
            self._regs = register_estimate(self, self.reg_words)
        return self._regs

    @property
    def n(self) -> int:
        return len(self.ins)


class Decoder:
    def __init__(self, module: ast.Module, kernel: str, stores_sink: bool = True, order: dict | None = None):
        self.stores_sink = stores_sink
        self.order = order
        self.m = module
        self.k = module.functions[kernel]
        self.file = module.file
        self.glob = _Layout()
        self.const = _Layout()
        self.shared = _Layout()
        self.local = _Layout()
        self.params = _Layout()
        self.regs: dict[tuple, int] = {}
        self.sym: dict[str, tuple[int, int]] = {}   # name -> (space, address)
        self.func_sym: dict[tuple, tuple[int, int]] = {}
        self.global_inits: list = []
        self.reg_words: list[int] = []
        self.frames: dict[str, tuple[int, int]] = {}     # function -> (.local offset, bytes) of its frame
        self.call_sites: list[tuple] = []                # (call index, pc, caller, callee)
        self.cyclic = cyclic_functions(list(self._functions()))
        self.frame_reg: dict[str, int] = {}              # cyclic function -> its frame register
        self.vlists: list[list[int]] = []                # wgmma register vectors (hopper.py)

    # ------------------------------------------------------------------ symbols
    def _functions(self):
        yield self.k
        for fn in self.m.functions.values():
            if fn.kind == "func":
                yield fn

    def lookup(self, fn: ast.Function, name: str):
        hit = self.func_sym.get((fn.name, name)) or self.sym.get(name)
        return hit

    # ------------------------------------------------------------------ registers
    def reg(self, fn: ast.Function, name: str, ins: ast.Instr) -> int:
        scope = fn.name
        key = (scope, name)
        if key in self.regs:
            return self.regs[key]
        if name not in fn.regs and not self._in_range(fn, name):
            self._fail(ins, f"register '{name}' is not declared")
        typ = fn.regs.get(name) or fn.reg_ranges[name.rstrip("0123456789")][0]
        idx = self.regs[key] = len(self.reg_words)
        if typ == "b128":       # two 64-bit halves in adjacent registers: name (low) and name{hi}
            self.regs[(scope, name + "{hi}")] = idx + 1
            self.reg_words += [2, 2]
        else:
            self.reg_words.append(0 if typ == "pred" else (2 if TYPE_SIZE[TYPE_CODE[typ]] == 8 else 1))
        return idx

    @staticmethod
    def _in_range(fn, name):
        stem = name.rstrip("0123456789")
        if stem not in fn.reg_ranges or stem == name:
            return False
        digits = name[len(stem):]
        return len(digits) <= 9 and int(digits) < fn.reg_ranges[stem][1]

    def _fail(self, ins: ast.Instr, msg: str):
        raise PTXSyntaxError(msg, self.file, ins.line, ins.col, ins.text)

    # ------------------------------------------------------------------ main
    def decode(self) -> DecodedKernel:
        place_symbols(self)
        for name in sorted(self.cyclic):        # recursion: frames per activation (calls.py)
            self.frame_reg[name] = self.regs[(name, FRAME_REG)] = len(self.reg_words)
            self.reg_words.append(2)
            self.m.functions[name].regs.setdefault(FRAME_REG, "b64")
        # flatten: kernel, then each .func followed by its synthetic return
        seq: list[tuple[ast.Function, ast.Instr | None]] = []
        labels: dict[tuple, int] = {}
        entries: dict[str, int] = {}
        retf: dict[str, int] = {}
        for fn in self._functions():
            entries[fn.name] = len(seq)
            body = (sink_load_consumers(fn.body, self.stores_sink) if self.order is None    # ptxas-like order
                    else sass_order(fn.body, self.order, self.stores_sink))            # ptxas's (isa/schedule.py)
            for item in body:
                if isinstance(item, ast.Label):
                    labels[(fn.name, item.name)] = len(seq)
                else:
                    seq.append((fn, item))
            if fn.kind == "func":
                retf[fn.name] = len(seq)
                seq.append((fn, None))
            else:
                # falling off the end of a kernel exits
                seq.append((fn, ast.Instr("exit", [], fn.line, 1, "exit (end of kernel)")))
        n = len(seq)
        ins = np.zeros((n, oc.NF), np.int64)
        opk = np.zeros((n, oc.NSLOT), np.int64)
        opv = np.zeros((n, oc.NSLOT), np.int64)
        opo = np.zeros((n, oc.NSLOT), np.int64)
        self._ins_ref = ins
        calls = []
        lines, srcs, texts = [], [], []
        for pc, (fn, it) in enumerate(seq):
            ins[pc, oc.F_GUARD] = -1
            ins[pc, oc.F_TARGET] = -1
            if it is None:
                ins[pc, oc.F_OP] = oc.OP["retf"]
                ins[pc, oc.F_CLASS] = oc.C_BRANCH
                lines.append(fn.line)
                srcs.append(None)
                texts.append(f"(return from {fn.name})")
                continue
            lines.append(it.line)
            srcs.append(self._src(it.loc))
            texts.append(it.text.strip())
            ins[pc, oc.F_LINE] = it.line
            if it.base == "isspacep" and len(it.operands) == 2 and isinstance(it.operands[1], ast.Reg):
                # cvta's address windows answer it (compare.exec_cvta, mode 2); the predicate goes to D0
                pred, addr = it.operands
                self.instr(pc, fn, ast.Instr("cvta." + ".".join(it.mods) + ".u64", [addr, addr], it.line, it.col,
                                             it.text, it.guard, it.guard_neg, it.loc),
                           ins, opk, opv, opo, labels, entries, retf, calls)
                if not isinstance(pred, ast.Reg) or reg_type(fn, pred.name) != "pred":
                    self._fail(it, "isspacep writes a .pred register")
                opv[pc, oc.D0] = self.reg(fn, pred.name, it)
                ins[pc, oc.F_MOD] = 2
                continue
            self.instr(pc, fn, self._frame_mov(fn, it), ins, opk, opv, opo, labels, entries, retf, calls)
        reconverge(ins, sorted(entries.values()) + [len(seq)])
        ids, saves = recursion(self, ins, opk, opv)
        for ci, sid in ids.items():
            calls[ci][3] = sid
        self.recursive_calls = len(ids)
        for pc in range(n):     # branches straight to a kernel exit retire their taken lanes at once
            if ins[pc, oc.F_OP] == oc.OP["bra"] and ins[pc, oc.F_TARGET] >= 0:
                tgt = ins[pc, oc.F_TARGET]
                if ins[tgt, oc.F_OP] in (oc.OP["exit"], oc.OP["ret"]) and ins[tgt, oc.F_GUARD] < 0:
                    ins[pc, oc.F_MOD] = 1
        call_arr = np.array(calls, np.int64).reshape(-1, CALL_W) if calls else np.zeros((1, CALL_W), np.int64)
        const = bytearray(self.const.size)
        for off, data in getattr(self, "const_init", []):
            const[off:off + len(data)] = data
        params = [Param(v.name, self.params.addr[v.name], v.size, v.type) for v in self.k.params]
        width = max([len(v) for v in self.vlists] + [1])
        vlist = np.zeros((max(len(self.vlists), 1), width), np.int64)
        for j, v in enumerate(self.vlists):
            vlist[j, :len(v)] = v
        return DecodedKernel(
            name=self.k.name, file=self.file, ins=ins, opk=opk, opv=opv, opo=opo, calls=call_arr, saves=saves,
            recursive=bool(self.recursive_calls),
            nregs=max(len(self.reg_words), 1), params=params, param_size=self.params.size,
            shared_static=self.shared_static, local_size=self.local.size,
            globals_size=self.glob.size, global_inits=self.global_inits, const_bytes=bytes(const),
            ptx_lines=lines, src_lines=srcs, texts=texts,
            reg_words=np.array(self.reg_words or [0], np.int64), directives=dict(self.k.directives), vlist=vlist,
            global_symbols={v.name: (self.sym[v.name][1], max(v.size, 1)) for v in self.m.vars
                            if v.space == "global" and v.name in self.sym})

    def _src(self, loc):
        if loc is None or loc[1] == 0:
            return None
        return (self.m.files.get(loc[0], "?"), loc[1])

    # ------------------------------------------------------------------ one instruction
    def instr(self, pc, fn, it: ast.Instr, ins, opk, opv, opo, labels, entries, retf, calls):
        if it.base == "cp":
            it = rename_cp(self, it)        # hopper.py: cp.async.mbarrier.arrive, cp.async.bulk
        base = it.base
        base = oc.OP_ALIASES.get(base, base) if base in oc.OP_ALIASES else base
        if base is None or base not in oc.OP:
            raise UnsupportedInstruction(it.opcode, self.file, it.line, it.text)
        m = classify(it.base, it.mods)
        if m.unknown:
            raise UnsupportedInstruction(it.opcode, self.file, it.line, it.text,
                                         "unknown modifier " + ", ".join("." + u for u in m.unknown))
        check_instruction(self, fn, it, base, m)     # operand forms, types, modifiers (forms.py, accept.py)
        pairwise = bool(m.types) and m.types[0] == TYPE_CODE["b128"]
        if pairwise:
            it = lower_b128(self, fn, it, base, m)       # b128.py: 64-bit halves
        if base == "ret" and fn.kind == "func":
            base = "bra"
            it = ast.Instr(it.opcode, [], it.line, it.col, it.text, it.guard, it.guard_neg, it.loc)
        if base == "prefetch":
            base = "nop"
        if base == "membar" or (base == "bar" and m.sub == 3):
            base = "membar" if base == "membar" else "nop"
        row = ins[pc]
        row[oc.F_OP] = oc.OP[base]
        row[oc.F_TYPE] = m.types[0] if m.types else 0
        row[oc.F_TYPE2] = m.types[1] if len(m.types) > 1 else row[oc.F_TYPE]
        row[oc.F_MOD] = 1 if m.to else m.sub
        row[oc.F_MOD2] = m.sub2 if base in ("setp", "set", "bar") else m.rnd
        row[oc.F_FLAGS] = m.flags
        row[oc.F_SPACE] = m.space
        row[oc.F_VEC] = m.vec
        row[oc.F_FUNC] = entries[fn.name]
        if it.loc:
            row[oc.F_SRCLINE] = it.loc[1]
        if it.guard is not None:
            row[oc.F_GUARD] = self.reg(fn, it.guard, it)
            row[oc.F_GNEG] = int(it.guard_neg)
        if base in TENSOR_BASES:
            encode_tensor(fn, it, base, row)        # tensorops.py: shapes, types, sub-operations
        ty = row[oc.F_TYPE]
        row[oc.F_CLASS] = instruction_class(base, ty, m.flags, row[oc.F_SPACE], row[oc.F_MOD])
        ops = list(it.operands)
        if base == "bra":
            if ops:
                tgt = ops[0]
                if not isinstance(tgt, ast.Sym) or (fn.name, tgt.name) not in labels:
                    self._fail(it, f"branch target '{getattr(tgt, 'name', tgt)}' is not a label")
                row[oc.F_TARGET] = labels[(fn.name, tgt.name)]
            else:
                row[oc.F_TARGET] = retf[fn.name]     # ret in a .func
            return
        if base == "call":
            self.call(pc, fn, it, row, entries, retf, calls)
            return
        if base in ("mbarrier", "wgmma", "cpbulk"):
            decode_hopper(self, pc, fn, it, base, m, row, opk, opv, opo)
            return
        if base in ("st", "red", "cp", "stmatrix"):
            dsts, srcs = [], ops
        elif base in ("bar", "membar", "exit", "trap", "brkpt", "nop", "nanosleep", "ret"):
            dsts, srcs = [], ops
            if base == "bar" and m.sub == 2:      # bar.red: d, a, {b,} c
                dsts, srcs = ops[:1], ops[1:]
        else:
            dsts, srcs = ops[:1], ops[1:]
        slot = oc.D0
        for d in dsts:
            items = d.items if isinstance(d, ast.Vec) else (
                (d.first, d.second) if isinstance(d, ast.PredPair) else (d,))
            if isinstance(d, ast.Vec) and base == "mov":
                row[oc.F_MOD] = 1       # unpack
                row[oc.F_VEC] = len(items)
            for x in items:
                self.operand(pc, slot, fn, it, x, ty, opk, opv, opo, base)
                slot += 1
        row[oc.F_NDST] = slot - oc.D0
        slot = oc.S0
        for i, s in enumerate(srcs):
            if isinstance(s, ast.Vec):
                if base == "mov":
                    row[oc.F_MOD] = 2   # pack
                    row[oc.F_VEC] = len(s.items)
                for x in s.items:
                    self.operand(pc, slot, fn, it, x, self._src_type(base, row, i), opk, opv, opo, base)
                    slot += 1
            else:
                self.operand(pc, slot, fn, it, s, self._src_type(base, row, i), opk, opv, opo, base)
                slot += 1
            if slot > oc.NSLOT:
                self._fail(it, "too many operands")
        row[oc.F_NSRC] = slot - oc.S0
        if pairwise and base == "mov":
            row[oc.F_MOD] = 3       # pairwise copy of the two 64-bit halves
        attach_carry(self, pc, base, m, opk, opv)      # ccflag.py: the carry flag CC.CF

    @staticmethod
    def _src_type(base, row, i):
        if base in TENSOR_BASES:
            return TYPE_CODE["u32"]
        if base == "cvt":
            return row[oc.F_TYPE2]
        if base in ("shl", "shr") and i == 1:
            return TYPE_CODE["u32"]
        if base in ("selp", "slct") and i == 2:
            return row[oc.F_TYPE2] if base == "slct" else TYPE_CODE["pred"]
        if base in ("bfe",) and i > 0:
            return TYPE_CODE["u32"]
        if base in ("setp", "set") and i == 2:
            return TYPE_CODE["pred"]
        if base in ("shfl", "vote", "activemask", "redux", "prmt", "bfi", "ld", "st", "atom", "red"):
            return row[oc.F_TYPE]
        return row[oc.F_TYPE2] if base == "set" else row[oc.F_TYPE]

    def operand(self, pc, slot, fn, it, x, ty, opk, opv, opo, base):
        if slot >= oc.NSLOT:
            self._fail(it, "too many operands")
        if isinstance(x, ast.Sink):
            opk[pc, slot] = oc.OK_SINK
        elif isinstance(x, ast.Reg):
            if x.name in oc.SREG or special_register_family(x.name) and reg_type(fn, x.name) is None:
                if x.name not in oc.SREG:
                    raise UnsupportedInstruction(it.opcode, self.file, it.line, it.text,
                                                 f"special register {x.name} is not modelled")
                opk[pc, slot] = oc.OK_SREG
                opv[pc, slot] = oc.SREG[x.name]
            else:
                opk[pc, slot] = oc.OK_REGNEG if x.neg else oc.OK_REG
                opv[pc, slot] = self.reg(fn, x.name, it)
        elif isinstance(x, ast.Imm):
            if isinstance(x.value, int) and not -(1 << 63) <= x.value < (1 << 64):
                self._fail(it, f"integer {x.text[:40]} does not fit 64 bits (only .b128 moves take wider ones)")
            opk[pc, slot] = oc.OK_IMM
            try:
                opv[pc, slot] = imm_bits(x, ty)
            except ValueError as e:
                self._fail(it, f"bad immediate: {e}")
        elif isinstance(x, ast.Sym):
            hit = self.lookup(fn, x.name)
            if hit is None:
                self._fail(it, f"unknown symbol '{x.name}'")
            if self._in_frame(fn, x.name) and base != "add":
                raise UnsupportedInstruction(it.opcode, self.file, it.line, it.text,
                                             f"the address of '{x.name}' in recursive function '{fn.name}' "
                                             "outside mov")
            opk[pc, slot] = oc.OK_IMM
            opv[pc, slot] = hit[1] + x.offset
        elif isinstance(x, ast.Addr):
            opk[pc, slot] = oc.OK_ADDR
            opo[pc, slot] = x.offset
            if x.base is None:
                opv[pc, slot] = -1
            elif x.base.startswith("%"):
                opv[pc, slot] = self.reg(fn, x.base, it)
            else:
                hit = self.lookup(fn, x.base)
                if hit is None:
                    self._fail(it, f"unknown symbol '{x.base}'")
                space, addr = hit
                opv[pc, slot] = self.frame_reg[fn.name] if self._in_frame(fn, x.base) else -1
                opo[pc, slot] = addr + x.offset
                row_space = self._row_space(pc)
                if base in ("ld", "st", "ldu", "atom", "red") and row_space == oc.SP_PARAM and space == oc.SP_LOCAL:
                    self._set_space(pc, oc.SP_LOCAL)     # .func parameters live per thread
        else:
            self._fail(it, f"unsupported operand {x!r}")

    def _in_frame(self, fn, name) -> bool:
        """A .param/.local symbol of a recursive function: addressed relative to its frame register."""
        hit = self.func_sym.get((fn.name, name))
        return fn.name in self.frame_reg and hit is not None and hit[0] == oc.SP_LOCAL

    def _frame_mov(self, fn, it):
        """`mov %rd, sym` of a recursive function's frame symbol -> `add.u64 %rd, %__frame, sym`."""
        if (fn.name in self.frame_reg and it.base == "mov" and len(it.operands) == 2
                and isinstance(it.operands[1], ast.Sym) and self._in_frame(fn, it.operands[1].name)):
            return ast.Instr("add.u64", [it.operands[0], ast.Reg(FRAME_REG), it.operands[1]], it.line, it.col,
                             it.text, it.guard, it.guard_neg, it.loc)
        return it

    def _row_space(self, pc):
        return self._ins_ref[pc, oc.F_SPACE]

    def _set_space(self, pc, sp):
        self._ins_ref[pc, oc.F_SPACE] = sp

    def call(self, pc, fn, it, row, entries, retf, calls):
        rec, callee = call_record(self, fn, it, entries)
        row[oc.F_TARGET] = len(calls)
        self.call_sites.append((len(calls), pc, fn.name, callee))
        calls.append(rec)

def decode_kernel(module: ast.Module, kernel: str, stores_sink: bool = True,
                  order: dict | None = None) -> DecodedKernel:
    """stores_sink: stores of loaded values move below later loads, as ptxas schedules them when it has
    the registers (gpusim/isa/schedule.py); False keeps each store where the PTX has it. order: PTX line ->
    position of its SASS (the SASS model, gpusim/sassmap.py): each basic block's instructions issue in
    that order, as far as their dependences allow."""
    return Decoder(module, kernel, stores_sink, order).decode()
