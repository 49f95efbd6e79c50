"""The carry flag CC.CF of carry chains (add.cc, addc, sub.cc, subc, mad.cc, madc), at decode time.

CC.CF is per thread. The decoder gives it a hidden predicate-like register (opcodes.CC_REG, one for
the whole program: PTX keeps no carry across calls) and attaches it to each carry instruction: read
through source slot S_CC by addc/subc/madc (the carry in), written through destination slot D_CC
by `.cc` (the carry out). Those slots are outside the instruction's own operands, so F_NSRC/F_NDST
are unchanged; the timing scoreboard, which reads every register slot, orders a chain like any
register dependency, and warp init clears the flag with the registers. Semantics: sm/carry.py.
"""
from __future__ import annotations

from gpusim.isa import opcodes as oc

CARRY_IN = ("addc", "subc", "madc")


def cc_register(dec) -> int:
    """The index of the hidden carry-flag register (allocated on first use; 0 words: a flag)."""
    key = ("", oc.CC_REG)
    if key not in dec.regs:
        dec.regs[key] = len(dec.reg_words)
        dec.reg_words.append(0)
    return dec.regs[key]


def attach_carry(dec, pc: int, base: str, m, opk, opv) -> None:
    """Give instruction pc its carry-in and carry-out slots, if it has them."""
    if base in CARRY_IN:
        opk[pc, oc.S_CC], opv[pc, oc.S_CC] = oc.OK_REG, cc_register(dec)
    if m.flags & oc.FL_CC:
        opk[pc, oc.D_CC], opv[pc, oc.D_CC] = oc.OK_REG, cc_register(dec)
