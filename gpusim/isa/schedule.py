"""Instruction scheduling as ptxas does it, in its simplest form: consumers of loads sink.

NVIDIA's PTX is not the order the SM issues in: ptxas schedules each basic block so that a warp
issues its independent loads back to back and only then the instructions that use their data
(four unrolled `s += a[i]` become four LDGs, then four adds). An in-order SM executing PTX as
written would instead stall at the first use and serialise the loads' latencies.

`sink_load_consumers` reorders each straight-line run of a function body: every instruction that
depends (directly or through other such instructions) on a long-latency load of the same run is
moved down as far as it can go — past every instruction that shares no register with it — and
stops before the first one that does. Only pure register instructions move; loads, stores,
atomics, barriers, branches and reads of the clock never move and end a run where they must
(control flow, barriers, clock reads), so results, memory order and timed regions are unchanged.
Each instruction keeps its PTX line for errors and per-line counters.
"""
from __future__ import annotations

from gpusim.isa import ast

# instructions that end a run: control flow, barriers and fences, and anything reading a clock
_BOUNDARY = {"bra", "call", "ret", "exit", "trap", "brkpt", "bar", "barrier", "membar", "fence", "retf",
             "nanosleep", "griddepcontrol", "setmaxnreg"}
_CLOCKS = ("%clock", "%globaltimer")
# instructions with effects beyond their destination registers: they never move
_SIDE_EFFECTS = {"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "cp", "mbarrier", "shfl", "vote",
                 "activemask", "redux", "match", "tex", "tld4", "suld", "sust", "wmma", "mma", "wgmma",
                 "stmatrix", "ldmatrix", "cvta", "isspacep", "pmevent", "discard", "applypriority",
                 "createpolicy", "elect", "getctarank", "mapa", "cp.async", "st.async", "red.async"}
_LONG_LOAD_SPACES = {"global", "local", "const", "shared"}
# a consumer sinks past at most this many shared loads: ptxas batches 6-8 LDS ahead of their uses (smem_ld32's
# SASS), not a whole unrolled loop's (the registers to hold them run out)
SHARED_BATCH = 6


def _regs(it: ast.Instr) -> frozenset:
    names = set()

    def walk(x):
        if isinstance(x, ast.Reg):
            names.add(x.name)
        elif isinstance(x, ast.Addr):
            if x.base and x.base.startswith("%"):
                names.add(x.base)
        elif isinstance(x, (ast.Vec, ast.Paren)):
            for y in x.items:
                walk(y)
        elif isinstance(x, ast.PredPair):
            walk(x.first)
            walk(x.second)

    for op in it.operands:
        walk(op)
    if it.base in ("addc", "subc", "madc") or "cc" in it.mods:
        names.add("%%cc")          # the carry flag: carry instructions keep their order
    if it.guard:
        names.add(it.guard)
    return frozenset(names)


def _is_boundary(it: ast.Instr, regs: frozenset) -> bool:
    return it.base in _BOUNDARY or any(r.startswith(_CLOCKS) for r in regs)


def _is_long_load(it: ast.Instr) -> bool:
    if it.base not in ("ld", "ldu"):
        return False
    mods = set(it.mods)
    if mods & {"volatile", "relaxed", "acquire", "mmio"}:
        return False
    spaces = mods & {"global", "local", "const", "shared", "param"}
    return not spaces or bool(spaces & _LONG_LOAD_SPACES)     # generic loads count as global


def _dest(it: ast.Instr) -> frozenset:
    """Registers a load writes (its first operand)."""
    if not it.operands:
        return frozenset()
    probe = ast.Instr(it.opcode, [it.operands[0]], it.line, it.col, it.text)
    return _regs(probe)


def _is_shared_load(it: ast.Instr) -> bool:
    return it.base in ("ld", "ldu") and "shared" in it.mods


def _schedule_run(run: list) -> list:
    regs = [_regs(it) for it in run]
    shared = [_is_shared_load(it) for it in run]
    loaded: set = set()
    movable = [False] * len(run)
    for i, it in enumerate(run):
        if _is_long_load(it):
            loaded |= _dest(it)
        elif it.base not in _SIDE_EFFECTS and regs[i] & loaded:
            movable[i] = True
            loaded |= regs[i]          # what it writes (and, conservatively, reads) now waits too
    if not any(movable):
        return run
    order = list(range(len(run)))
    for i in range(len(run) - 1, -1, -1):
        if not movable[i]:
            continue
        pos = order.index(i)
        j, passed = pos, 0
        while j + 1 < len(order) and not (regs[order[j + 1]] & regs[i]):
            if shared[order[j + 1]]:
                if passed == SHARED_BATCH:
                    break
                passed += 1
            j += 1
        if j != pos:
            order.insert(j, order.pop(pos))
    return [run[k] for k in order]


def sink_load_consumers(body: list) -> list:
    """The function body with each straight-line run scheduled (labels and boundaries stay put)."""
    out: list = []
    run: list = []
    for item in body:
        if isinstance(item, ast.Instr) and not _is_boundary(item, _regs(item)):
            run.append(item)
            continue
        out.extend(_schedule_run(run))
        run = []
        out.append(item)
    out.extend(_schedule_run(run))
    return out
