"""Registers per thread estimated from PTX by liveness analysis.

PTX uses unlimited virtual registers; ptxas allocates roughly the peak number of simultaneously
live values. The estimate is the maximum, over instructions, of live 32-bit register words
(64-bit registers count two, predicates none) plus one, at least 16. Against Nsight Compute's
launch__registers_per_thread on the 37 recorded H100 kernels it is within a few registers for all
but two (validation/DEVIATIONS.md). Occupancy rounds it up to the per-warp allocation unit.
`launch(..., regs_per_thread=N)` overrides it.
"""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc

OVERHEAD = 1


def _uses_defs(d):
    n = d.n
    uses, defs = [], []
    for pc in range(n):
        u, df = set(), set()
        for s in range(oc.S0, oc.NSLOT):
            k = d.opk[pc, s]
            if k in (oc.OK_REG, oc.OK_REGNEG) or (k == oc.OK_ADDR and d.opv[pc, s] >= 0):
                u.add(int(d.opv[pc, s]))
        g = d.ins[pc, oc.F_GUARD]
        if g >= 0:
            u.add(int(g))
        for s in range(oc.D0, oc.S0):
            if d.opk[pc, s] == oc.OK_REG:
                df.add(int(d.opv[pc, s]))
        if d.ins[pc, oc.F_CLASS] in (oc.C_GMMA, oc.C_TMA) and d.ins[pc, oc.F_TARGET] >= 0:
            _vector_registers(d, pc, u, df)
        uses.append(u)
        defs.append(df)
    return uses, defs


def _vector_registers(d, pc, u, df):
    """wgmma.mma_async's accumulator (read and written) and A registers, a tensor copy's coordinate
    registers: kept in the kernel's vlist table (isa/hopper.py), not in the operand slots."""
    row = [int(x) for x in d.vlist[d.ins[pc, oc.F_TARGET]]]
    if d.ins[pc, oc.F_CLASS] == oc.C_GMMA:
        nd = row[0]
        u.update(row[1:1 + nd] + row[2 + nd:2 + nd + row[1 + nd]])
        df.update(row[1:1 + nd])
    else:
        u.update(row[3 + 2 * k] for k in range(row[0]) if row[2 + 2 * k] == oc.OK_REG)


def _successors(d):
    op = d.ins[:, oc.F_OP]
    succ = []
    for pc in range(d.n):
        o = op[pc]
        out = []
        if o == oc.OP["bra"]:
            out.append(int(d.ins[pc, oc.F_TARGET]))
            if d.ins[pc, oc.F_GUARD] >= 0 and pc + 1 < d.n:
                out.append(pc + 1)
        elif o in (oc.OP["exit"], oc.OP["ret"], oc.OP["retf"], oc.OP["trap"]):
            if d.ins[pc, oc.F_GUARD] >= 0 and pc + 1 < d.n:
                out.append(pc + 1)
        elif pc + 1 < d.n:
            out.append(pc + 1)
        succ.append(out)
    return succ


def live_in_sets(d) -> list[set]:
    """Registers live on entry to each instruction (a call falls through to the next one)."""
    uses, defs = _uses_defs(d)
    succ = _successors(d)
    live_in = [set() for _ in range(d.n)]
    changed = True
    while changed:
        changed = False
        for pc in range(d.n - 1, -1, -1):
            out = set()
            for s in succ[pc]:
                out |= live_in[s]
            new = uses[pc] | (out - defs[pc])
            if new != live_in[pc]:
                live_in[pc] = new
                changed = True
    return live_in


def register_estimate(d, reg_words: np.ndarray) -> int:
    """reg_words[r]: 32-bit words of register r (0 for predicates)."""
    live_in = live_in_sets(d)
    peak = max((sum(int(reg_words[r]) for r in live) for live in live_in), default=0)
    return int(min(255, max(16, peak + OVERHEAD)))
