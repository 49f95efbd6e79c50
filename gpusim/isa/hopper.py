"""Hopper's asynchronous instructions in the front end: mbarrier, wgmma, cp.async.bulk (decoded as `cpbulk`).

- `rename_cp`: `cp.async.mbarrier.arrive{.noinc}` decodes as `mbarrier.cparrive`, `cp.async.bulk.*` (non-tensor)
  as `cpbulk.g2s` (global -> shared::cluster with mbarrier::complete_tx::bytes), `cpbulk.s2g` (shared::cta ->
  global, bulk_group), `cpbulk.commit_group`, `cpbulk.wait_group{.read}`. TMA tensor copies, bulk prefetch,
  shared-to-shared (cluster) bulk copies and `cp.reduce.async.bulk` are refused by name.
- Thread-block clusters: `.shared::cluster` addresses may name another CTA of the cluster (gpusim/sm/cluster.py);
  `barrier.cluster`, `mapa`, `getctarank` and the `%cluster*` registers decode as ordinary instructions.
- `FORMS`: operand forms per sub-operation (forms.py checks them).
- `hopper_rule`: types and shapes accepted (accept.py asks it).
- `decode_hopper`: operands into slots. wgmma.mma_async keeps its register vectors (D: N/2 f32 registers; A:
  four b32 registers when A comes from registers) in a row of the kernel's `vlist` table (row index in
  F_TARGET): `[nD, D..., nA, A...]`; sources: S0 A's descriptor, S0+1 B's descriptor, S0+2 scale-d; N and the
  immediate scales go to F_MOD2 (opcodes.WG_*), the input type to F_TYPE2.
"""
from __future__ import annotations

import re

from gpusim.errors import UnsupportedInstruction
from gpusim.isa import ast
from gpusim.isa import opcodes as oc
from gpusim.isa.types import TYPE_CODE

MB, WG, CB = oc.MBAR, oc.WGMMA, oc.CPBULK
FORMS_BY_SUB = {
    "mbarrier": {MB["init"]: ("[a], b",), MB["inval"]: ("[a]",), MB["arrive"]: ("d, [a]", "d, [a], b"),
                 MB["arrive_drop"]: ("d, [a]", "d, [a], b"), MB["expect_tx"]: ("[a], b",),
                 MB["complete_tx"]: ("[a], b",), MB["try_wait"]: ("p, [a], b", "p, [a], b, c"),
                 MB["test_wait"]: ("p, [a], b",), MB["pending_count"]: ("d, a",), MB["cparrive"]: ("[a]",)},
    "wgmma": {WG["fence"]: ("",), WG["commit_group"]: ("",), WG["wait_group"]: ("a",),
              WG["mma_async"]: ("{WD}, a|{WA}, b, c, e, f, g, h", "{WD}, a|{WA}, b, c, e, f, g",
                                "{WD}, a|{WA}, b, c, e, f", "{WD}, a|{WA}, b, c")},
    "cpbulk": {CB["g2s"]: ("[a], [b], c, [e]", "[a], [b], c, [e], f"), CB["s2g"]: ("[a], [b], c",),
               CB["commit_group"]: ("",), CB["wait_group"]: ("a",),
               CB["tensor_g2s"]: ("[a], [b], [c]", "[a], [b], [c], e"), CB["tensor_s2g"]: ("[a], [b]",),
               CB["s2s"]: ("[a], [b], c, [e]",)},
}
FORMS = {op: tuple(dict.fromkeys(f for fs in subs.values() for f in fs)) for op, subs in FORMS_BY_SUB.items()}
WG_HALF, WG_FP8, WG_INT = ("f16", "bf16"), ("e4m3", "e5m2"), ("s8", "u8")
WG_TYPES = WG_HALF + ("tf32",) + WG_FP8 + WG_INT   # wgmma.mma_async input types implemented
WG_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}


def forms_for(base: str, m) -> tuple:
    forms = FORMS_BY_SUB[base].get(m.sub, FORMS[base])
    if base == "wgmma" and m.sub == WG["mma_async"]:
        types = [t for t in m.hopper if t in WG_TYPES]
        nops = 8 if types[:1] and types[0] in WG_HALF else (4 if types[:1] and types[0] in WG_INT else 6)
        return tuple(f for f in forms if len(f.split(",")) in (nops, nops - 1 if nops == 8 else nops))
    return forms


def _unsupported(dec, it, why):
    raise UnsupportedInstruction(it.opcode, dec.file, it.line, it.text, why)


def rename_cp(dec, it: ast.Instr) -> ast.Instr:
    """cp.async.mbarrier.arrive and the non-tensor cp.async.bulk forms, renamed for the decoder."""
    mods = it.mods
    if mods[:3] == ["async", "mbarrier", "arrive"]:
        opcode = ".".join(["mbarrier", "cparrive"] + mods[3:])
    elif mods[:2] == ["async", "bulk"]:
        rest = mods[2:]
        if rest and rest[0] == "tensor":
            return _rename_tensor(dec, it, rest[1:])
        if rest and rest[0] == "prefetch":
            _unsupported(dec, it, "cp.async.bulk.prefetch is not implemented")
        if rest and rest[0] in ("commit_group", "wait_group"):
            opcode = ".".join(["cpbulk"] + rest)
        else:
            spaces = [t for t in rest if t.startswith(("shared", "global"))]
            if spaces[:1] and spaces[0].startswith("shared") and spaces[1:2] == ["global"]:
                if "mbarrier::complete_tx::bytes" not in rest:
                    _unsupported(dec, it, "cp.async.bulk to shared memory completes on an mbarrier "
                                          "(.mbarrier::complete_tx::bytes)")
                sub = "g2s"
            elif spaces[:1] == ["global"] and spaces[1:2] and spaces[1].startswith("shared"):
                if "bulk_group" not in rest:
                    _unsupported(dec, it, "cp.async.bulk to global memory completes in a bulk group (.bulk_group)")
                sub = "s2g"
            elif spaces[:2] == ["shared::cluster", "shared::cta"] and "mbarrier::complete_tx::bytes" in rest:
                sub = "s2s"         # into the shared memory of a CTA of the cluster, completing its mbarrier
            else:
                _unsupported(dec, it, "cp.async.bulk copies global <-> shared, or shared::cta -> shared::cluster")
            opcode = ".".join(["cpbulk", sub] + rest)
    elif mods[:1] == ["reduce"]:
        _unsupported(dec, it, "cp.reduce.async.bulk is not implemented")
    else:
        return it                       # cp.async (non-bulk) and others: not decoded here
    return ast.Instr(opcode, it.operands, it.line, it.col, it.text, it.guard, it.guard_neg, it.loc)


def _rename_tensor(dec, it, rest):
    modes = [t for t in rest if t.startswith("im2col")]
    if modes:
        _unsupported(dec, it, f"cp.async.bulk.tensor .{modes[0]} mode is not implemented (.tile is)")
    if not any(t in ("1d", "2d", "3d", "4d", "5d") for t in rest):
        _unsupported(dec, it, "cp.async.bulk.tensor takes a dimension .1d .. .5d")
    spaces = [t for t in rest if t.startswith(("shared", "global"))]
    if spaces[:1] and spaces[0].startswith("shared") and spaces[1:2] == ["global"]:
        if "mbarrier::complete_tx::bytes" not in rest:
            _unsupported(dec, it, "cp.async.bulk.tensor to shared memory completes on an mbarrier")
        sub = "tensor_g2s"
    elif spaces[:1] == ["global"] and spaces[1:2] and spaces[1].startswith("shared"):
        if "bulk_group" not in rest:
            _unsupported(dec, it, "cp.async.bulk.tensor to global memory completes in a bulk group (.bulk_group)")
        sub = "tensor_s2g"
    else:
        _unsupported(dec, it, "cp.async.bulk.tensor copies between global and shared memory only")
    return ast.Instr(".".join(["cpbulk", sub] + rest), it.operands, it.line, it.col, it.text, it.guard,
                     it.guard_neg, it.loc)


def wgmma_shape(tok: str):
    """(N, K) of an m64nNkK shape token, or None."""
    hit = re.fullmatch(r"m64n(\d+)k(\d+)", tok)
    return (int(hit.group(1)), int(hit.group(2))) if hit else None


def hopper_rule(op: str, mods: list) -> str | None:
    """Why this mbarrier / wgmma / cpbulk is not run (None when accepted)."""
    if op == "mbarrier":
        if not any(t in MB for t in mods):
            return "mbarrier takes an operation: " + ", ".join("." + t for t in MB if t != "cparrive")
        return None
    if op == "cpbulk":
        return None
    subs = [t for t in mods if t in WG]
    if len(subs) != 1:
        return "wgmma takes one of .fence, .commit_group, .wait_group, .mma_async"
    if "sync" not in mods or "aligned" not in mods:
        return f"wgmma.{subs[0]} takes .sync.aligned"
    if subs[0] != "mma_async":
        return None
    shapes = [t for t in mods if t.startswith("m64n")]
    types = [t for t in mods if t in WG_TYPES + ("f32", "s32", "f16")]
    if len(shapes) != 1 or wgmma_shape(shapes[0]) is None:
        return "wgmma.mma_async takes one shape .m64nNkK"
    if len(types) != 3:
        return "wgmma.mma_async takes three types (.dtype.atype.btype)"
    d, a, b = types
    fam = [f for f in (WG_HALF, ("tf32",), WG_FP8, WG_INT) if a in f]
    if not fam or b not in fam[0] or (fam[0] in (WG_HALF, ("tf32",)) and a != b):
        return f"wgmma.mma_async does not take .{a} with .{b}"
    if d != ("s32" if a in WG_INT else "f32"):
        return (f"wgmma.mma_async with a .{d} accumulator is not implemented (.f32, or .s32 for integers)"
                if d in ("f16", "f32", "s32") else f"bad accumulator .{d}")
    if "satfinite" in mods and a not in WG_INT:
        return ".satfinite is only defined for integer wgmma"
    n, k = wgmma_shape(shapes[0])
    if k != WG_K[a] or n % 8 or not 8 <= n <= 256:
        return (f"shape .{shapes[0]} is not defined for .{a} (m64nNk{WG_K[a]}, N a multiple of 8 up to 256"
                + (", or of 16 from 32 for integers" if a in WG_INT else "") + ")")
    if a in WG_INT and n > 24 and n % 16:
        return f"shape .{shapes[0]} is not defined for .{a} (N 8, 16, 24, then multiples of 16)"
    return None


def decode_hopper(dec, pc, fn, it, base, m, row, opk, opv, opo):
    """Operands of an mbarrier / wgmma / cpbulk instruction into their slots (and vlist for wgmma.mma_async)."""
    ops = list(it.operands)
    b64 = TYPE_CODE["b64"]
    row[oc.F_MOD2] = m.sub2         # mbarrier: MB_* bits
    if base == "cpbulk" and m.sub in (CB["g2s"], CB["s2g"], CB["tensor_g2s"], CB["tensor_s2g"], CB["s2s"]):
        row[oc.F_CLASS] = oc.C_TMA
    if base == "cpbulk" and m.sub in (CB["tensor_g2s"], CB["tensor_s2g"]):
        _tensor(dec, pc, fn, it, m, row, ops, opk, opv, opo)
        return
    if base == "wgmma" and m.sub == WG["mma_async"]:
        row[oc.F_CLASS] = oc.C_GMMA
        _mma(dec, pc, fn, it, m, row, ops, opk, opv, opo)
        return
    dsts = ops[:1] if base == "mbarrier" and ops and isinstance(ops[0], (ast.Reg, ast.Sink)) else []
    for j, d in enumerate(dsts):
        dec.operand(pc, oc.D0 + j, fn, it, d, b64, opk, opv, opo, base)
    keep = 5 if base == "cpbulk" and m.sub2 & oc.CB_MULTICAST else 4     # ctaMask, then a cache-hint policy
    for j, s in enumerate(ops[len(dsts):]):
        if j >= keep and base == "cpbulk":
            break                       # an L2::cache_hint policy operand: a hint without effect
        dec.operand(pc, oc.S0 + j, fn, it, s, b64, opk, opv, opo, base)
    row[oc.F_NDST] = len(dsts)
    row[oc.F_NSRC] = min(len(ops) - len(dsts), keep)


def _mma(dec, pc, fn, it, m, row, ops, opk, opv, opo):
    shape = next(t for t in m.hopper if t.startswith("m64n"))
    n, _ = wgmma_shape(shape)
    atype, btype = [t for t in m.hopper if t in WG_TYPES][:2]
    dvec = ops[0]
    if len(dvec.items) != n // 2:
        dec._fail(it, f"wgmma.mma_async .{shape} takes {n // 2} D registers, found {len(dvec.items)}")
    dregs = [dec.reg(fn, x.name, it) for x in dvec.items]
    flags = n | (oc.WG_KINDS[atype] << oc.WG_A_SHIFT) | (oc.WG_KINDS[btype] << oc.WG_B_SHIFT)
    if "satfinite" in m.hopper:
        flags |= oc.WG_SATFINITE
    a_in_regs = isinstance(ops[1], ast.Vec)
    want = (4 if atype in WG_INT else (6 if atype not in WG_HALF else (7 if a_in_regs else 8)))
    if len(ops) != want:
        dec._fail(it, f"wgmma.mma_async .{atype} with A {'in registers' if a_in_regs else 'by descriptor'} takes "
                      f"{want} operands, found {len(ops)}")
    scales, trans = ops[4:6], ops[6:]
    if a_in_regs:
        if len(ops[1].items) != 4 or not all(isinstance(x, ast.Reg) for x in ops[1].items):
            dec._fail(it, "wgmma.mma_async with A in registers takes four .b32 registers for A")
        aregs = [dec.reg(fn, x.name, it) for x in ops[1].items]
        flags |= oc.WG_A_REGS
    else:
        aregs = []
        dec.operand(pc, oc.S0, fn, it, ops[1], TYPE_CODE["b64"], opk, opv, opo, "wgmma")
    dec.operand(pc, oc.S0 + 1, fn, it, ops[2], TYPE_CODE["b64"], opk, opv, opo, "wgmma")
    dec.operand(pc, oc.S0 + 2, fn, it, ops[3], TYPE_CODE["pred"], opk, opv, opo, "wgmma")
    for x, bit, name in zip(scales, (oc.WG_NEG_A, oc.WG_NEG_B), ("imm-scale-a", "imm-scale-b")):
        if not isinstance(x, ast.Imm) or x.value not in (1, -1):
            dec._fail(it, f"wgmma.mma_async {name} must be the immediate 1 or -1")
        if x.value == -1:
            flags |= bit
    for x, bit in zip(trans, (oc.WG_TRANS_B,) if a_in_regs else (oc.WG_TRANS_A, oc.WG_TRANS_B)):
        if not isinstance(x, ast.Imm) or x.value not in (0, 1):
            dec._fail(it, "wgmma.mma_async imm-trans must be the immediate 0 or 1")
        if x.value == 1:
            flags |= bit
    row[oc.F_MOD2] = flags
    row[oc.F_TARGET] = len(dec.vlists)
    dec.vlists.append([len(dregs)] + dregs + [len(aregs)] + aregs)
    row[oc.F_NDST] = 0
    row[oc.F_NSRC] = 3


def _tensor(dec, pc, fn, it, m, row, ops, opk, opv, opo):
    """cp.async.bulk.tensor: S0 the shared address, S1 the tensor map's address, S2 the mbarrier (loads);
    vlist row [rank, the tensor map's state space, (operand kind, register or value) per coordinate]."""
    rank = int(next(t for t in m.hopper if t in ("1d", "2d", "3d", "4d", "5d"))[0])
    load = m.sub == CB["tensor_g2s"]
    smem, tm = (ops[0], ops[1]) if load else (ops[1], ops[0])
    if not isinstance(tm, ast.TensorAddr) or isinstance(smem, ast.TensorAddr):
        dec._fail(it, "cp.async.bulk.tensor takes the tensor operand as [tensorMap, {coordinates}]")
    if len(tm.coords) != rank:
        dec._fail(it, f"cp.async.bulk.tensor.{rank}d takes {rank} coordinates, found {len(tm.coords)}")
    b64 = TYPE_CODE["b64"]
    dec.operand(pc, oc.S0, fn, it, smem, b64, opk, opv, opo, "cpbulk")
    dec.operand(pc, oc.S0 + 1, fn, it, ast.Addr(tm.base, tm.offset), b64, opk, opv, opo, "cpbulk")
    if load:
        dec.operand(pc, oc.S0 + 2, fn, it, ops[2], b64, opk, opv, opo, "cpbulk")
    if load and m.sub2 & oc.CB_MULTICAST:
        dec.operand(pc, oc.S0 + 3, fn, it, ops[3], TYPE_CODE["b16"], opk, opv, opo, "cpbulk")     # ctaMask
    space = oc.SP_GENERIC
    if tm.base is not None and not tm.base.startswith("%"):
        space = dec.lookup(fn, tm.base)[0]
    vl = [rank, space]
    for x in tm.coords:
        if isinstance(x, ast.Reg) and not x.neg:
            vl += [oc.OK_REG, dec.reg(fn, x.name, it)]
        elif isinstance(x, ast.Imm) and isinstance(x.value, int):
            vl += [oc.OK_IMM, x.value]
        else:
            dec._fail(it, "a tensor coordinate is a .s32 register or an integer")
    row[oc.F_TARGET] = len(dec.vlists)
    dec.vlists.append(vl)
    row[oc.F_NDST] = 0
    row[oc.F_NSRC] = (4 if m.sub2 & oc.CB_MULTICAST else 3) if load else 2
