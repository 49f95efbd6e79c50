"""Operand forms per opcode, and the load-time checks every instruction passes before it is decoded.

`FORMS` lists each opcode's accepted operand lists. Tokens (comma separated):
  d        a destination register (or the sink `_`); a predicate register exactly when the
           instruction's type is .pred
  p        a destination predicate register
  p[|q]    a predicate destination with an optional second one (setp p|q)
  d[|p]    a destination with an optional predicate (shfl d|p)
  {d}      the destination of a load: a register, or a vector {r0, ..} of exactly .vN registers
  {d*} {a*}  a register / source, or a vector of 2..4 (mov pack / unpack)
  {D} {A}  a register or a vector of 1..4 registers (ldmatrix, stmatrix, mma: tensorops.py checks the count)
  {WD} {WA} a vector of registers of any length (wgmma.mma_async's accumulator and A fragment); a|{WA}: either
  [a]      an address (only memory instructions have one, in this place; cp.async.bulk has several)
  {b}      the value stored: a source, or a vector of exactly .vN sources
  {!}c     a predicate source, optionally negated
  L        a label
  other    a source: register, immediate or symbol
`check_instruction` raises PTXSyntaxError (file:line:col and the line) for a malformed operand list
and UnsupportedInstruction for what the tables in accept.py reject.
"""
from __future__ import annotations

from gpusim.errors import UnsupportedInstruction
from gpusim.isa import ast, hopper, tensorops
from gpusim.isa import opcodes as oc
from gpusim.isa.accept import HALF, rejection
from gpusim.isa.types import TYPE_NAME

_BIN, _TER, _UN = ("d, a, b",), ("d, a, b, c",), ("d, a",)
FORMS = {
    **{op: _BIN for op in "add sub mul div rem min max and or xor shl shr mul24 copysign addc subc".split()},
    **{op: _TER for op in "mad fma mad24 bfe prmt madc shf dp4a dp2a".split()},
    **{op: _UN for op in "abs neg not cnot popc clz brev bfind sqrt rcp rsqrt ex2 lg2 sin cos tanh cvta".split()},
    "bfi": ("d, a, b, c, e",), "testp": ("p, a",), "mov": ("{d*}, {a*}",),
    "cvt": ("d, a", "d, a, b"),
    "setp": ("p[|q], a, b", "p[|q], a, b, {!}c"), "set": ("d, a, b", "d, a, b, {!}c"),
    "selp": ("d, a, b, c",), "slct": ("d, a, b, c",),
    "ld": ("{d}, [a]",), "ldu": ("{d}, [a]",), "st": ("[a], {b}",),
    "atom": ("d, [a], b", "d, [a], b, c"), "red": ("[a], b",), "prefetch": ("[a]",),
    "bar": ("a", "a, b", "d, a, {!}c", "d, a, b, {!}c"), "membar": ("",),
    "bra": ("L",), "call": ("[(r..)], f, [(a..)]",), "ret": ("",), "exit": ("",), "trap": ("",),
    "brkpt": ("",), "nanosleep": ("a",),
    "shfl": ("d[|p], a, b, c, m", "d[|p], a, b, c"), "vote": ("d, {!}a, m", "d, {!}a"),
    "activemask": ("d",), "redux": ("d, a, m",), "match": ("d[|p], a, m",),
    "cp": ("[a], [a], a", "[a], [a], a, b", "", "a"), "ldmatrix": ("{D}, [a]",), "stmatrix": ("[a], {A}",),
    "mma": ("{D}, {A}, {A}, {A}",), "elect": ("d[|p], m",),
    "mapa": ("d, a, b",), "getctarank": ("d, a",),
    **hopper.FORMS,     # mbarrier, wgmma, cpbulk: per sub-operation in hopper.FORMS_BY_SUB
}
# valid PTX operand lists gpusim does not implement: (opcode, operand count) -> why
UNSUPPORTED_FORMS = {("min", 4): "three-input min/max is not implemented",
                     ("max", 4): "three-input min/max is not implemented"}
_ENVREG = ("%envreg", "%pm", "%cluster", "%nclusterid", "%reserved_smem",   # %cluster*: the vector forms
           "%aggr_smem_size", "%current_graph_exec")


def forms_for(base: str, m, mods: list) -> tuple:
    """The operand forms this instruction may take, given its decoded modifiers."""
    forms = FORMS[base]
    if base == "atom":
        forms = forms[1:] if m.sub == oc.A_CAS else forms[:1]
    elif base == "bar":
        forms = {oc.BAR["sync"]: forms[:2], oc.BAR["arrive"]: forms[1:2], oc.BAR["red"]: forms[2:],
                 oc.BAR_CLUSTER_ARRIVE: ("",), oc.BAR_CLUSTER_WAIT: ("",)}.get(m.sub, forms[:1])
    elif base == "match" and m.sub == oc.MATCH["any"]:
        forms = ("d, a, m",)             # only match.all writes a predicate
    elif base in hopper.FORMS:
        forms = hopper.forms_for(base, m)
    elif base == "cvt":
        pair = (len(m.types) > 1 and TYPE_NAME[m.types[0]] in ("f16x2", "bf16x2", "e4m3x2", "e5m2x2")
                and TYPE_NAME[m.types[1]] == "f32")
        forms = forms[1:] if pair else forms[:1]
    elif base == "cp":
        sub = next((oc.CP[t] for t in mods if t in oc.CP), oc.CP_COPY)
        forms = {oc.CP_COPY: forms[:2], oc.CP_WAIT: forms[3:]}.get(sub, forms[2:3])
    if any(t.startswith("L2::cache_hint") for t in mods):
        forms = tuple(f + ", policy" for f in forms)
    return forms


def check_instruction(dec, fn, it: ast.Instr, base: str, m) -> None:
    """Raise for an instruction the decoder must not run: a malformed operand list, or a type or
    modifier combination accept.py rejects."""
    if it.base in tensorops.BASES:
        tensorops.check(dec, fn, it, it.base)
    if base == "nop":
        return
    names = [TYPE_NAME[c] for c in m.types]
    why = None if base in tensorops.BASES else rejection(base, names, it.mods, m.vec)
    if why is None and base == "call" and it.guard is not None:
        why = "predicated call"
    if why is None and names and names[0] in HALF and base not in ("ld", "ldu", "st", "mov", "cvt"):
        if any(isinstance(x, ast.Imm) and (x.fbits or isinstance(x.value, float)) for x in it.operands):
            why = f"floating-point immediate in a .{names[0]} instruction (write the raw bits, e.g. 0x3C00)"
    if why is None:
        why = UNSUPPORTED_FORMS.get((base, len(it.operands)))
    if why is not None:
        raise UnsupportedInstruction(it.opcode, dec.file, it.line, it.text, why)
    if base == "call":
        _check_call(dec, it)
        return
    forms = forms_for(base, m, it.mods)
    ops = list(it.operands)
    matching = [f for f in forms if len(_tokens(f)) == len(ops)]
    if not matching:
        want = " or ".join(f"`{f}`" if f else "no operands" for f in forms)
        dec._fail(it, f"{it.opcode} takes {want}; found {len(ops)} operand{'s' if len(ops) != 1 else ''}")
    pred_type = bool(names) and names[0] == "pred"
    for tok, x in zip(_tokens(matching[0]), ops):
        _check(dec, fn, it, base, m, tok, x, pred_type)


def _tokens(form: str) -> list:
    return [t.strip() for t in form.split(",")] if form else []


def _check(dec, fn, it, base, m, tok, x, pred_type):
    what = f"operand '{tok}' of {it.base}"
    if tok.startswith("["):
        if not isinstance(x, ast.Addr):
            dec._fail(it, f"{what} must be an address [..]")
        return
    if isinstance(x, ast.Addr):
        dec._fail(it, f"an address [..] is only allowed as the memory operand of ld/st/atom/red/prefetch "
                      f"(found one as {what})")
    if tok == "L":
        if not isinstance(x, ast.Sym):
            dec._fail(it, f"{what} must be a label")
        return
    if isinstance(x, ast.Paren):
        dec._fail(it, f"a parenthesised list is only allowed in call ({what})")
    if tok == "a|{WA}":
        if not isinstance(x, ast.Vec):
            tok = "a"                   # a descriptor (a source); a vector: the A fragment's registers
        else:
            tok = "{WA}"
    if tok in ("{WD}", "{WA}"):
        if not isinstance(x, ast.Vec) or not all(isinstance(y, ast.Reg) and not y.neg for y in x.items):
            dec._fail(it, f"{what} must be a vector {{..}} of registers")
        if tok == "{WD}":
            for y in x.items:
                _dest_reg(dec, fn, it, y, False, what)
        return
    if tok in ("d", "p", "p[|q]", "d[|p]", "{d}", "{d*}", "{D}"):
        _check_dest(dec, fn, it, m, tok, x, pred_type, what)
        return
    if isinstance(x, ast.PredPair):
        dec._fail(it, f"a predicate pair p|q is only allowed as a destination ({what})")
    if tok == "{A}" and isinstance(x, ast.Vec):
        if not 1 <= len(x.items) <= 4:
            dec._fail(it, f"{what} is a vector of {len(x.items)}, expected 1 to 4 registers")
        return
    if tok in ("{b}", "{a*}") and isinstance(x, ast.Vec):
        n = len(x.items)
        if tok == "{b}" and n != m.vec or tok == "{a*}" and not 2 <= n <= 4:
            dec._fail(it, f"{what} is a vector of {n}, expected "
                          + (f"{m.vec} (.v{m.vec})" if tok == "{b}" else "2 to 4 values"))
        return
    if isinstance(x, ast.Vec):
        dec._fail(it, f"{what} must not be a vector" + (f" (the instruction has no .v{len(x.items)})"
                                                         if tok == "{b}" else ""))
    if tok == "{b}" and m.vec > 1:
        dec._fail(it, f"{what} must be a vector of {m.vec} values (.v{m.vec})")
    if isinstance(x, ast.Sink) and tok != "{b}":
        dec._fail(it, f"the sink '_' can only be a destination ({what})")
    if isinstance(x, ast.Reg) and x.neg and tok not in ("{!}c", "{!}a"):
        dec._fail(it, f"a negated predicate !{x.name} is not allowed as {what}")


def _check_dest(dec, fn, it, m, tok, x, pred_type, what):
    if isinstance(x, ast.PredPair):
        if tok not in ("p[|q]", "d[|p]"):
            dec._fail(it, f"{what} cannot be a pair p|q")
        _dest_reg(dec, fn, it, x.first, tok.startswith("p"), what)
        _dest_reg(dec, fn, it, x.second, True, what)
        return
    if tok == "p[|q]" and m.types and TYPE_NAME[m.types[0]] in ("f16x2", "bf16x2"):
        dec._fail(it, f"setp.{TYPE_NAME[m.types[0]]} writes two predicates (p|q)")
    if isinstance(x, ast.Vec):
        n = len(x.items)
        if (tok == "{d}" and n != m.vec or tok == "{d*}" and not 2 <= n <= 4 or tok == "{D}" and not 1 <= n <= 4
                or tok not in ("{d}", "{d*}", "{D}")):
            dec._fail(it, f"{what} is a vector of {n}, expected "
                          + (f"{m.vec} (.v{m.vec})" if tok == "{d}" else "a single register"))
        for item in x.items:
            _dest_reg(dec, fn, it, item, False, what)
        return
    if tok == "{d}" and m.vec > 1:
        dec._fail(it, f"{what} must be a vector of {m.vec} registers (.v{m.vec})")
    _dest_reg(dec, fn, it, x, tok == "p" or tok == "p[|q]" or pred_type and tok in ("d", "{d*}"), what)


def _dest_reg(dec, fn, it, x, want_pred, what):
    if isinstance(x, ast.Sink):
        return
    if not isinstance(x, ast.Reg) or x.neg:
        kind = {ast.Imm: "an immediate", ast.Sym: "a symbol", ast.Vec: "a vector"}.get(type(x), "not a register")
        dec._fail(it, f"the destination ({what}) must be a register, found {kind}")
    typ = reg_type(fn, x.name)
    if x.name in oc.SREG or typ is None and special_register_family(x.name):
        dec._fail(it, f"the special register {x.name} cannot be written")
    if typ is None:
        return                      # undeclared: reported by the decoder with its own message
    if want_pred and typ != "pred":
        dec._fail(it, f"{it.base} writes a predicate, but destination {x.name} is a .{typ} register")
    if not want_pred and typ == "pred":
        dec._fail(it, f"destination {x.name} is a .pred register, but {it.opcode} writes a value")


def reg_type(fn, name: str):
    if name in fn.regs:
        return fn.regs[name]
    stem = name.rstrip("0123456789")
    if stem != name and stem in fn.reg_ranges:
        return fn.reg_ranges[stem][0]
    return None


def _check_call(dec, it):
    ops = list(it.operands)
    if ops and isinstance(ops[0], ast.Paren):
        ops.pop(0)
    if not ops or not isinstance(ops[0], (ast.Sym, ast.Reg)):
        dec._fail(it, "call takes `[(results), ] function[, (arguments)]`")
    if any(isinstance(x, (ast.Addr, ast.Imm, ast.Vec, ast.PredPair)) for x in ops[1:]):
        dec._fail(it, "call takes `[(results), ] function[, (arguments)]`")


def special_register_family(name: str) -> bool:
    """Special registers gpusim does not model (reading one is rejected by name)."""
    return name.startswith(_ENVREG)
