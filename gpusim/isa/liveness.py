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
        uses.append(u)
        defs.append(df)
    return uses, defs


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
