"""Instruction scheduling as ptxas does it, in its simplest form: consumers of loads sink.

NVIDIA's PTX is not the order the SM issues in: ptxas schedules each basic block so that a warp
issues its independent loads back to back and only then the instructions that use their data
(four unrolled `s += a[i]` become four LDGs, then four adds). An in-order SM executing PTX as
written would instead stall at the first use and serialise the loads' latencies.

`sink_load_consumers` reorders each straight-line run of a function body: every instruction that
depends (directly or through other such instructions) on a long-latency load of the same run is
moved down as far as it can go — past every instruction that shares no register with it — and
stops before the first one that does. Pure register instructions move, and so does a store of a
loaded value to a named state space (ptxas issues a tile's global loads back to back, then its
shared stores: `s[i] = g[i]` x 8 is eight LDGs, then eight STSs); a store passes only register
instructions and loads from another named space, which it cannot alias, never another store, an
atomic or a generic access. Loads, atomics, barriers, branches and reads of the clock never move and
end a run where they must (control flow, barriers, clock reads), so results, memory order and timed
regions are unchanged. Each instruction keeps its PTX line for errors and per-line counters.
"""
from __future__ import annotations

import heapq
from collections import Counter

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


_NAMED_SPACES = {"global", "local", "const", "shared", "param"}
_ORDERED = {"volatile", "relaxed", "acquire", "release", "mmio", "sc", "acq_rel"}


def _space(it: ast.Instr) -> str | None:
    """The one named state space of a load or store; None for a generic access (it may alias any)."""
    spaces = {"shared" if m == "shared::cta" else m for m in it.mods} & _NAMED_SPACES
    return spaces.pop() if len(spaces) == 1 else None


def _is_movable_store(it: ast.Instr) -> bool:
    return it.base == "st" and _space(it) in ("global", "shared", "local") and not set(it.mods) & _ORDERED


def _store_passes(space: str, it: ast.Instr) -> bool:
    """Whether a store to `space` may move below `it` (sharing no register with it): a register
    instruction, or a plain load from another named space."""
    if it.base in ("ld", "ldu"):
        other = _space(it)
        return other is not None and other != space and not set(it.mods) & _ORDERED
    return it.base not in _SIDE_EFFECTS


def _is_shared_load(it: ast.Instr) -> bool:
    return it.base in ("ld", "ldu") and "shared" in it.mods


def _schedule_run(run: list, stores: bool = True) -> list:
    regs = [_regs(it) for it in run]
    shared = [_is_shared_load(it) for it in run]
    loaded: set = set()
    movable = [False] * len(run)
    store = [None] * len(run)      # per store that may move: its space
    for i, it in enumerate(run):
        if _is_long_load(it):
            loaded |= _dest(it)
        elif it.base not in _SIDE_EFFECTS and regs[i] & loaded:
            movable[i] = True
            loaded |= regs[i]          # what it writes (and, conservatively, reads) now waits too
        elif stores and _is_movable_store(it) and regs[i] & loaded:
            movable[i] = True
            store[i] = _space(it)
    if not any(movable):
        return run
    order = list(range(len(run)))
    for i in range(len(run) - 1, -1, -1):
        if not movable[i]:
            continue
        pos = order.index(i)
        j, passed = pos, 0
        while j + 1 < len(order) and not (regs[order[j + 1]] & regs[i]):
            if store[i] is not None and not _store_passes(store[i], run[order[j + 1]]):
                break
            if shared[order[j + 1]]:
                if passed == SHARED_BATCH:
                    break
                passed += 1
            j += 1
        if j != pos:
            order.insert(j, order.pop(pos))
    return [run[k] for k in order]


# the most instructions of a skipped block that ptxas predicates (if-conversion) rather than branching over
HAMMOCK_BODY = 16


def _hammock_end(body: list, i: int, space: str, regs: frozenset, targeted: Counter) -> int:
    """Where the store body[i] may go past the if-then block that follows it: the index of the label
    that closes the block, or -1. The store passes the instructions before the block's conditional
    forward branch and those the branch skips (a block ptxas predicates), sharing no register with any
    and passing each (`_store_passes`); the label is the branch's target and nothing else branches to it."""
    def blocks(it: ast.Instr) -> bool:
        r = _regs(it)
        return _is_boundary(it, r) or bool(r & regs) or not _store_passes(space, it)

    j = i + 1
    while j < len(body) and isinstance(body[j], ast.Instr) and body[j].base != "bra":
        if blocks(body[j]):
            return -1
        j += 1
    if j >= len(body) or not isinstance(body[j], ast.Instr):
        return -1
    br = body[j]
    tgt = br.operands[0] if br.operands else None
    if not br.guard or not isinstance(tgt, ast.Sym) or targeted[tgt.name] != 1 or _regs(br) & regs:
        return -1
    for k in range(j + 1, min(len(body), j + 2 + HAMMOCK_BODY)):
        it = body[k]
        if isinstance(it, ast.Label):
            return k if it.name == tgt.name else -1
        if blocks(it):
            return -1
    return -1


def sink_stores_past_branches(body: list) -> list:
    """A store of a loaded value moves past the small if-then blocks after it, as ptxas predicates such
    blocks and then schedules the whole: `if (in bounds) a = A[..]; sA[..] = a; if (in bounds) b = B[..];
    sB[..] = b` issues both loads before the first store. The store runs where all lanes have rejoined,
    before and after, so it runs with the same lanes; it moves only past what it cannot alias."""
    targeted = Counter(it.operands[0].name for it in body if isinstance(it, ast.Instr) and it.base == "bra"
                       and it.operands and isinstance(it.operands[0], ast.Sym))
    out = list(body)
    loaded: set = set()
    i = 0
    while i < len(out):
        it = out[i]
        if isinstance(it, ast.Instr):
            if _is_long_load(it):
                loaded |= _dest(it)
            elif _is_movable_store(it) and _regs(it) & loaded:
                end = _hammock_end(out, i, _space(it), _regs(it), targeted)
                if end > 0:
                    out.insert(end, out.pop(i))     # just after the closing label (it moved up by one)
                    continue
        i += 1
    return out


def sink_load_consumers(body: list, stores: bool = True) -> list:
    """The function body with each straight-line run scheduled (labels and boundaries stay put).
    stores: stores of loaded values sink too (below later loads, and past small if-then blocks); ptxas
    does so when it has the registers to hold the loaded values meanwhile."""
    return _each_run(sink_stores_past_branches(body) if stores else body, lambda run: _schedule_run(run, stores))


def _cta_barrier(it: ast.Instr) -> bool:
    """bar.sync / barrier.sync of the CTA (not .arrive, .red or a cluster's), and bar.warp.sync: ptxas moves register
    work across them (only the CTA's bar.sync defers a warp, sm/simt.py)."""
    return it.base in ("bar", "barrier") and not set(it.mods) & {"arrive", "red", "cluster"}


def _each_run(body: list, schedule, through: frozenset = frozenset(), keep=None) -> list:
    """The body with each straight-line run (between labels, control flow, barriers and clock reads)
    replaced by schedule(run). A label named in `through` does not end a run: it follows the run; nor does an
    instruction for which keep(it) holds: it stays in the run."""
    out: list = []
    run: list = []
    held: list = []
    for item in body:
        if isinstance(item, ast.Instr) and (not _is_boundary(item, _regs(item)) or keep is not None and keep(item)):
            run.append(item)
            continue
        if isinstance(item, ast.Label) and item.name in through:
            held.append(item)
            continue
        out.extend(schedule(run))
        out.extend(held)
        run, held = [], []
        out.append(item)
    out.extend(schedule(run))
    out.extend(held)
    return out


def _unreferenced_labels(body: list) -> frozenset:
    """Labels no instruction names (no branch or address goes there): the `$L__tmpN` marks Triton's line
    information puts around every inlined call (tl.max, tl.sum), which ptxas schedules across."""
    named: set = set()

    def walk(x):
        if isinstance(x, ast.Sym):
            named.add(x.name)
        elif isinstance(x, ast.Addr) and x.base:
            named.add(x.base)
        elif isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
    for it in body:
        if isinstance(it, ast.Instr):
            walk(it.operands)
    return frozenset(it.name for it in body if isinstance(it, ast.Label) and it.name not in named)


# ---------------------------------------------------------------- the SASS model: ptxas's own order
# instructions that write no register (their operands are all read)
_NO_DEST = {"st", "red", "bar", "barrier", "bra", "prefetch", "prefetchu", "cp", "membar", "fence", "trap", "ret",
            "exit", "sust", "pmevent", "discard", "applypriority", "stmatrix", "st.async", "red.async", "call",
            "brkpt", "nanosleep", "griddepcontrol", "setmaxnreg", "wgmma", "cp.async"}
# the longest run ordered pairwise (beyond it the run keeps the order `sink_load_consumers` gives it)
SASS_ORDER_RUN = 4096


def _reads_writes(it: ast.Instr) -> tuple[frozenset, frozenset]:
    """The registers (predicates and the carry flag included) an instruction reads and writes."""
    if it.base in _NO_DEST or it.base == "wmma" and "store" in it.mods or not it.operands:
        writes = frozenset()
        reads = _regs(it)
    else:
        writes = _dest(it)
        reads = _regs(ast.Instr(it.opcode, it.operands[1:], it.line, it.col, it.text))
        if isinstance(it.operands[0], ast.Addr):         # an address in first place is read, not written
            writes, reads = frozenset(), _regs(it)
        if it.guard:
            reads = reads | {it.guard} | writes          # a predicated write keeps the old value where off
    if "%%cc" in _regs(it):
        reads, writes = reads | {"%%cc"}, writes | {"%%cc"}
    return reads, writes


def _address_base(it: ast.Instr) -> str | None:
    return next((op.base for op in it.operands if isinstance(op, ast.Addr)), None)


def _plain_load(it: ast.Instr) -> bool:
    return it.base in ("ld", "ldu") and not set(it.mods) & _ORDERED


_BYTES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "b32": 4, "u32": 4,
          "s32": 4, "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}


def _store_bytes(it: ast.Instr) -> tuple | None:
    """(base register, first byte offset, bytes) a plain store writes from its address register, if known."""
    addr = next((op for op in it.operands if isinstance(op, ast.Addr)), None)
    size = next((_BYTES[m] for m in it.mods if m in _BYTES), None)
    vec = next((int(m[1:]) for m in it.mods if m in ("v2", "v4", "v8")), 1)
    if addr is None or addr.base is None or size is None or type(addr) is not ast.Addr:
        return None
    return addr.base, addr.offset, size * vec


def _disjoint_stores(a: ast.Instr, b: ast.Instr) -> bool:
    """Two plain stores to one named space from the same address register at offsets that do not overlap:
    they cannot alias, and ptxas orders them as it likes (ho_scan_exclusive's four stores of a 16-B row issue
    +4, +0, +8, +12)."""
    if not (_is_movable_store(a) and _is_movable_store(b)) or _space(a) != _space(b):
        return False
    x, y = _store_bytes(a), _store_bytes(b)
    return (x is not None and y is not None and x[0] == y[0]
            and (x[1] + x[2] <= y[1] or y[1] + y[2] <= x[1]))


def _may_pass(a: ast.Instr, b: ast.Instr) -> bool:
    """Whether two effectful instructions (a before b) may swap: two plain loads, a plain load and a
    plain store to two different named state spaces (they cannot alias), or two stores of disjoint bytes
    from one address register."""
    if _plain_load(a) and _plain_load(b) or _disjoint_stores(a, b):
        return True
    for ld, st in ((a, b), (b, a)):
        if _plain_load(ld) and _is_movable_store(st):
            s = _space(ld)
            return s is not None and s != _space(st)
    return False


def _order_run(run: list, rank: dict, stores: bool) -> list:
    """One straight-line run in the order its SASS issues: a list schedule of the run's dependences
    (registers read and written, memory order) that picks, among the instructions whose inputs are
    ready, the one ptxas placed first. An instruction with no SASS of its own (folded, or unmapped)
    goes just before its first consumer; with none, just after the instruction before it; a load with
    none goes with the nearest earlier load from its base register (ptxas merged them: LDS.128)."""
    n = len(run)
    if n > SASS_ORDER_RUN:      # in pieces between its barriers, as `sink_load_consumers` has them
        out, piece = [], []
        for it in run:
            if _cta_barrier(it):
                out += _schedule_run(piece, stores) + [it]
                piece = []
            else:
                piece.append(it)
        return out + _schedule_run(piece, stores)
    if n < 2:
        return run
    rw = [_reads_writes(it) for it in run]
    succ: list = [[] for _ in range(n)]
    npred = [0] * n
    consumers: list = [[] for _ in range(n)]

    def edge(i, j):
        succ[i].append(j)
        npred[j] += 1

    last_write: dict = {}
    readers: dict = {}
    effects: list = []
    for j, it in enumerate(run):
        reads, writes = rw[j]
        deps = set()
        for r in reads:
            if r in last_write:
                deps.add(last_write[r])
                consumers[last_write[r]].append(j)
        for r in writes:
            if r in last_write:
                deps.add(last_write[r])
            deps.update(readers.get(r, ()))
        for r in reads:
            readers.setdefault(r, []).append(j)
        for r in writes:
            last_write[r] = j
            readers[r] = []
        if it.base in _SIDE_EFFECTS or _cta_barrier(it):     # memory accesses do not pass a barrier
            deps.update(i for i in effects if not _may_pass(run[i], it))
            effects.append(j)
        deps.discard(j)
        for i in deps:
            edge(i, j)
    key: list = [rank.get(it.line) for it in run]
    for j, it in enumerate(run):
        # a load with no SASS of its own was merged into an earlier one's vector load (LDS.128): it
        # issues with that load, the nearest earlier one from the same base register
        if key[j] is None and it.base in ("ld", "ldu"):
            b = _address_base(it)
            for i in range(j - 1, -1, -1):
                if key[i] is not None and run[i].base in ("ld", "ldu") and _address_base(run[i]) == b:
                    key[j] = key[i]
                    break
    for j in range(n - 1, -1, -1):
        r = key[j]
        if r is None and consumers[j]:
            r = min((key[c] for c in consumers[j] if key[c] is not None), default=None)
        key[j] = r
    prev = -1
    for j in range(n):
        if key[j] is None:
            key[j] = prev
        prev = key[j]
    ready = [(key[j], j) for j in range(n) if npred[j] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(run[i])
        for j in succ[i]:
            npred[j] -= 1
            if npred[j] == 0:
                heapq.heappush(ready, (key[j], j))
    return out


def sass_order(body: list, rank: dict, stores: bool = True) -> list:
    """The function body with each straight-line run in ptxas's order (`rank`: PTX line -> position of
    its SASS, gpusim/sassmap.py), as far as the run's dependences allow; labels and boundaries stay put, but for
    labels nothing names (`_unreferenced_labels`), which follow their run, and a CTA's bar.sync: register work
    moves across it as ptxas moves it (memory accesses and other effects keep their side).
    stores: stores of loaded values first move past small if-then blocks, as in `sink_load_consumers`
    (ptxas predicates such blocks; the run then holds what its SASS block holds)."""
    body = sink_stores_past_branches(body) if stores else body
    return _each_run(body, lambda run: _order_run(run, rank, stores), _unreferenced_labels(body), _cta_barrier)
