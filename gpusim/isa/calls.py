"""Calls between .func functions: the call records the executor follows, and the call stack that
recursion needs.

A call record (one row of `calls`) holds the callee's entry pc, how many arguments and return
values move, the save set the call pushes (-1: none), then one (kind, source, destination, bytes)
move per argument and per return value. Kinds say where a value lives: a per-thread .param/.local
slot (K_LOCAL), the kernel's parameter buffer (K_PARAM), shared memory (K_SHARED), a register
(K_REG: the register index) or an immediate (K_IMM: its bits).

Registers and .param/.local slots are allocated statically per function, which is right until a
function can be re-entered while an earlier activation is still live: recursion. For every function
on a call-graph cycle the decoder builds a save set: the function's frame (its .local/.param bytes)
and its registers that are live across any call back into its cycle. On entry the executor pushes
the save set onto the thread's call stack, which lives in local memory after the static frames (as
the hardware's stack does); on return it pops it. Overflowing the stack faults with the launch's
stack size named (`launch(..., stack_size=...)`, 1024 bytes per thread by default, as CUDA's
cudaLimitStackSize).
"""
from __future__ import annotations

import struct

import numpy as np

from gpusim.errors import UnsupportedInstruction
from gpusim.isa import ast
from gpusim.isa import opcodes as oc

MAX_CALL_ARGS = 8
MAX_CALL_RETS = 2
K_LOCAL, K_PARAM, K_REG, K_IMM, K_SHARED = range(5)
CALL_HEAD = 4                       # entry pc, nargs, nrets, save-set id
CALL_W = CALL_HEAD + 4 * (MAX_CALL_ARGS + MAX_CALL_RETS)
RET_BASE = CALL_HEAD + 4 * MAX_CALL_ARGS
SAVE_HEAD = 3                       # frame offset, frame bytes, registers; then (reg, bytes) pairs

_SPACE_KIND = {oc.SP_LOCAL: K_LOCAL, oc.SP_PARAM: K_PARAM, oc.SP_SHARED: K_SHARED}
_SPACE_NAME = {oc.SP_GLOBAL: ".global", oc.SP_CONST: ".const", oc.SP_PARAM: "kernel .param"}


def _refuse(dec, it, why):
    raise UnsupportedInstruction(it.opcode, dec.file, it.line, it.text, why)


def _move(dec, fn, it, x, p, is_ret: bool) -> list[int]:
    """(kind, where, where-to-or-from, bytes) for one argument or return value x of parameter p."""
    if is_ret and p.size > 64:
        _refuse(dec, it, f"a {p.size}-byte return value (at most 64 bytes are modelled)")
    if isinstance(x, ast.Reg):
        if p.size > 8:
            _refuse(dec, it, f"a register passed for the {p.size}-byte parameter '{p.name}'")
        return [K_REG, dec.reg(fn, x.name, it), p.size]
    if isinstance(x, ast.Imm) and not is_ret:
        if isinstance(x.value, float) and x.fbits is None:
            bits = int.from_bytes(struct.pack("<f" if p.size == 4 else "<d", x.value), "little")
        else:
            bits = int(x.value)
        return [K_IMM, bits & ((1 << min(63, 8 * p.size)) - 1) if p.size < 8 else bits, p.size]
    if isinstance(x, ast.Sym):
        hit = dec.lookup(fn, x.name)
        if hit is None:
            dec._fail(it, f"'{x.name}' is not declared")
        space, addr = hit
        kind = _SPACE_KIND.get(space)
        if kind is None or (is_ret and kind == K_PARAM):
            what = "return value into" if is_ret else "argument from"
            _refuse(dec, it, f"call {what} '{x.name}' in the {_SPACE_NAME.get(space, '?')} space")
        return [kind, addr + x.offset, p.size]
    _refuse(dec, it, f"call operand {x!r}")
    return []


def call_record(dec, fn, it, entries) -> tuple[list[int], str]:
    """The call record of `call` instruction `it` in function `fn`, and the callee's name."""
    ops = list(it.operands)
    rets, args = [], []
    if ops and isinstance(ops[0], ast.Paren):
        rets = list(ops.pop(0).items)
    if not ops or not isinstance(ops[0], ast.Sym):
        _refuse(dec, it, "indirect call")
    callee_name = ops.pop(0).name
    callee = dec.m.functions.get(callee_name)
    if callee is None or callee.kind != "func" or callee_name not in entries:
        _refuse(dec, it, f"call to '{callee_name}', which has no body in this module")
    if ops and isinstance(ops[0], ast.Paren):
        args = list(ops.pop(0).items)
    if len(args) > MAX_CALL_ARGS or len(rets) > MAX_CALL_RETS:
        _refuse(dec, it, f"more than {MAX_CALL_ARGS} arguments or {MAX_CALL_RETS} return values")
    if len(args) != len(callee.params) or len(rets) != len(callee.rets):
        dec._fail(it, f"'{callee_name}' takes {len(callee.params)} arguments and {len(callee.rets)} return "
                      f"values; the call passes {len(args)} and {len(rets)}")
    rec = [entries[callee_name], len(args), len(rets), -1]
    for a, p in zip(args, callee.params):
        kind, src, size = _move(dec, fn, it, a, p, False)
        rec += [kind, src, dec.func_sym[(callee.name, p.name)][1], size]
    rec += [0, 0, 0, 0] * (MAX_CALL_ARGS - len(args))
    for r, p in zip(rets, callee.rets):
        kind, dst, size = _move(dec, fn, it, r, p, True)
        rec += [kind, dec.func_sym[(callee.name, p.name)][1], dst, size]
    rec += [0, 0, 0, 0] * (MAX_CALL_RETS - len(rets))
    return rec, callee_name


def _reach(graph: dict[str, set]) -> dict[str, set]:
    reach = {}
    for f in graph:
        seen, todo = set(), list(graph[f])
        while todo:
            g = todo.pop()
            if g not in seen:
                seen.add(g)
                todo += graph.get(g, ())
        reach[f] = seen
    return reach


def save_sets(sites, regs_of: dict[str, list], frames: dict[str, tuple], live_after, reg_bytes):
    """Save sets for recursion. sites: (call index, pc, caller, callee) per call; regs_of: each
    function's register indices; frames: each function's (offset, bytes) of .param/.local;
    live_after(pc): registers live after pc; reg_bytes[r]: bytes register r needs on the stack.
    Returns ({call index: save id}, saves array)."""
    graph: dict[str, set] = {}
    for _, _, caller, callee in sites:
        graph.setdefault(caller, set()).add(callee)
    reach = _reach(graph)
    cyclic = {f for f in reach if f in reach[f]}
    rows, sid_of, ids = [], {}, {}
    for f in sorted(cyclic):
        same = {g for g in cyclic if g in reach[f] and f in reach[g]}
        live: set = set()
        for _, pc, caller, callee in sites:
            if caller == f and callee in same:
                live |= live_after(pc)
        keep = sorted(r for r in live if r in set(regs_of.get(f, ())))
        off, size = frames.get(f, (0, 0))
        row = [off, size, len(keep)]
        for r in keep:
            row += [r, reg_bytes[r]]
        sid_of[f] = len(rows)
        rows.append(row)
    for ci, _, _, callee in sites:
        if callee in sid_of:
            ids[ci] = sid_of[callee]
    width = max([len(r) for r in rows] + [SAVE_HEAD])
    arr = np.zeros((max(len(rows), 1), width), np.int64)
    for k, r in enumerate(rows):
        arr[k, :len(r)] = r
    return ids, arr


def save_bytes(row) -> int:
    """Stack bytes one activation's save set takes (8-byte aligned)."""
    n = int(row[1]) + sum(int(row[SAVE_HEAD + 2 * k + 1]) for k in range(int(row[2])))
    return (n + 7) // 8 * 8
