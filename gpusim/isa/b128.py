"""128-bit values (`.b128`): a .b128 register is two adjacent 64-bit registers, `name` (low half) and
`name{hi}` (high half; the decoder allocates both). ld/ldu/st.b128 decode as the .v2.b64 access of
the same 16 bytes (same alignment rule); mov.b128 as a pairwise copy of two 64-bit halves, whose
either side may be a .b128 register or a {lo, hi} pair of 64-bit values (pack / unpack)."""
from __future__ import annotations

from gpusim.isa import ast
from gpusim.isa.forms import reg_type
from gpusim.isa.types import TYPE_CODE

_MASK64 = (1 << 64) - 1


def lower_b128(dec, fn, it: ast.Instr, base: str, m) -> ast.Instr:
    """The instruction with its .b128 operands split in halves; m now says .b64 (.v2 for memory)."""
    ops = list(it.operands)
    if base in ("ld", "ldu"):
        ops[0] = _halves(dec, fn, it, ops[0], False)
    elif base == "st":
        ops[1] = _halves(dec, fn, it, ops[1], True)
    elif base == "mov":
        ops = [_halves(dec, fn, it, ops[0], False), _halves(dec, fn, it, ops[1], True)]
    m.types[0] = TYPE_CODE["b64"]
    m.vec = 1 if base == "mov" else 2
    return ast.Instr(it.opcode, ops, it.line, it.col, it.text, it.guard, it.guard_neg, it.loc)


def _halves(dec, fn, it, x, source: bool) -> ast.Vec:
    if isinstance(x, ast.Vec):
        if len(x.items) != 2:
            dec._fail(it, f"a 128-bit value as a vector is a pair {{lo, hi}} of 64-bit values, "
                          f"found {len(x.items)}")
        return x
    if isinstance(x, ast.Imm) and source and isinstance(x.value, int) and x.fbits is None:
        v = x.value & ((1 << 128) - 1)
        return ast.Vec((ast.Imm(v & _MASK64, x.text), ast.Imm(v >> 64, x.text)))
    if isinstance(x, ast.Sink) and not source:
        return ast.Vec((x, x))
    if not isinstance(x, ast.Reg) or x.neg or reg_type(fn, x.name) != "b128":
        dec._fail(it, f"operand of {it.opcode} must be a .b128 register or a {{lo, hi}} pair of 64-bit values")
    dec.reg(fn, x.name, it)          # allocates both halves
    return ast.Vec((x, ast.Reg(x.name + "{hi}")))
