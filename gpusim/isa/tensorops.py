"""Load-time grammar of cp.async, ldmatrix/stmatrix, mma.sync, elect.sync, setmaxnreg and griddepcontrol.

These instructions carry more qualifiers than accept.py's type/modifier tables describe (shapes,
layouts, four types for mma, operand vectors whose length depends on the shape), so this module
owns their grammar: `check` raises UnsupportedInstruction naming the variant gpusim does not run
(e.g. `mma.m16n8k4`, `cp.async.bulk`, `cp.async.mbarrier.arrive`) and PTXSyntaxError for a wrong
operand list, and `encode` fills the decoded row (field meanings in opcodes.py: CP, MMA_SHAPES).
The semantics are in gpusim/sm/asynccopy.py, matrixops.py and mma.py.
"""
from __future__ import annotations

from gpusim.errors import UnsupportedInstruction
from gpusim.isa import ast
from gpusim.isa import opcodes as oc
from gpusim.isa.types import TYPE_CODE, TYPE_NAME

BASES = ("cp", "ldmatrix", "stmatrix", "mma", "elect", "setmaxnreg", "griddepcontrol")
_COMMON = {"sync", "aligned", "shared", "shared::cta", "global"}
_CP = {"async", "ca", "cg", "commit_group", "wait_group", "wait_all"}
_MATRIX = {"m8n8", "x1", "x2", "x4", "trans", "m16n16", "m8n16", "m16n8"}   # other shapes: refused by name
_MMA = set(oc.MMA_SHAPES) | {"row", "col", "satfinite"}
_ALLOWED = {"cp": _CP, "ldmatrix": _MATRIX, "stmatrix": _MATRIX, "mma": _MMA, "elect": set(),
            "setmaxnreg": {"inc", "dec", "u32"}, "griddepcontrol": {"launch_dependents", "wait"}}
_NOT_HERE = {"sp": "sparse mma (mma.sp) is not implemented"}   # cp.async.mbarrier/bulk: hopper.py renames them
# mma: A type -> (shapes, accepted D/C types, accepted B types)
MMA_TYPES = {
    "f16": (("m16n8k8", "m16n8k16"), ("f16", "f32"), ("f16",)),
    "bf16": (("m16n8k8", "m16n8k16"), ("f32",), ("bf16",)),
    "tf32": (("m16n8k8",), ("f32",), ("tf32",)),
    "s8": (("m16n8k32",), ("s32",), ("s8", "u8")), "u8": (("m16n8k32",), ("s32",), ("s8", "u8")),
    "e4m3": (("m16n8k32",), ("f32",), ("e4m3", "e5m2")), "e5m2": (("m16n8k32",), ("f32",), ("e4m3", "e5m2")),
    "f64": (("m8n8k4",), ("f64",), ("f64",)),
}
MMA_ATYPES = tuple(MMA_TYPES)


def mma_fragment_counts(shape: str, atype: str, ctype: str) -> tuple:
    """Registers per thread of A, B and C (= D) for an mma of this shape and types."""
    if shape == "m8n8k4":
        return 1, 1, 2
    if shape == "m16n8k8" and atype != "tf32":
        na, nb = 2, 1
    else:
        na, nb = 4, 2
    return na, nb, 2 if ctype == "f16" else 4


def family_token(base: str, tok: str) -> bool:
    """Whether classify() should leave `tok` to this module (anything that is not a type/space/rounding)."""
    return base in BASES and tok not in ("shared", "global", "shared::cta") and tok not in oc.RND


def _reject(dec, it, why):
    raise UnsupportedInstruction(it.opcode, dec.file, it.line, it.text, why)


def check(dec, fn, it: ast.Instr, base: str) -> None:
    """Raise for a variant of these instructions gpusim does not run, or a malformed operand list."""
    mods = it.mods
    for tok in mods:
        if tok in _NOT_HERE:
            _reject(dec, it, _NOT_HERE[tok])
    known = _ALLOWED[base] | _COMMON | ({"rn"} if base == "mma" else set())    # mma rounds to nearest only
    for tok in mods:
        shape_like = base == "mma" and tok[:1] == "m" and tok[1:2].isdigit()     # _check_mma names the shape
        typed = base in ("mma", "ldmatrix", "stmatrix") and tok in TYPE_CODE
        if tok not in known and not tok.startswith("L2::") and not typed and not shape_like:
            _reject(dec, it, f"{base} qualifier .{tok} is not implemented")
    if base == "cp":
        _check_cp(dec, fn, it)
    elif base in ("ldmatrix", "stmatrix"):
        _check_matrix(dec, it, base)
    elif base == "mma":
        _check_mma(dec, it)
    elif base == "griddepcontrol":
        # programmatic dependent launch: gpusim runs a stream's grids one after another, so every
        # prerequisite grid has completed (and its memory is visible) before a dependent one starts:
        # .wait has nothing to wait for and .launch_dependents nothing to start early (decoded as nop)
        if ("launch_dependents" in mods) == ("wait" in mods) or it.operands:
            dec._fail(it, "griddepcontrol takes .launch_dependents or .wait and no operands")
    elif base == "setmaxnreg":
        if ("inc" in mods) == ("dec" in mods) or len(it.operands) != 1 or not isinstance(it.operands[0], ast.Imm):
            dec._fail(it, "setmaxnreg takes .inc or .dec and one immediate register count")


def _check_cp(dec, fn, it):
    mods = it.mods
    if "async" not in mods:
        _reject(dec, it, "only cp.async is implemented")
    ops = it.operands
    if "commit_group" in mods or "wait_all" in mods:
        if ops:
            which = "commit_group" if "commit_group" in mods else "wait_all"
            dec._fail(it, f"cp.async.{which} takes no operands")
        return
    if "wait_group" in mods:
        if len(ops) != 1 or not isinstance(ops[0], ast.Imm) or not 0 <= int(ops[0].value) < 64:
            dec._fail(it, "cp.async.wait_group takes one immediate group count")
        return
    if ("ca" in mods) == ("cg" in mods):
        _reject(dec, it, "cp.async takes .ca or .cg")
    if not ("shared" in mods or "shared::cta" in mods) or "global" not in mods:
        _reject(dec, it, "cp.async copies .shared{::cta}.global only")
    n = 3 + ("L2::cache_hint" in mods)
    if len(ops) not in (n, n + 1) or not (isinstance(ops[0], ast.Addr) and isinstance(ops[1], ast.Addr)):
        dec._fail(it, "cp.async takes [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}")
    size = ops[2]
    if not isinstance(size, ast.Imm) or int(size.value) not in (4, 8, 16):
        dec._fail(it, "cp.async's cp-size is an immediate 4, 8 or 16")
    if "cg" in mods and int(size.value) != 16:
        dec._fail(it, "cp.async.cg copies 16 bytes")
    if len(ops) == n + 1 and isinstance(ops[3], ast.Imm) and not 0 <= int(ops[3].value) <= int(size.value):
        dec._fail(it, "cp.async's src-size must be between 0 and cp-size")


def _check_matrix(dec, it, base):
    mods = it.mods
    if "m8n8" not in mods:
        _reject(dec, it, f"{base} shapes other than .m8n8 are not implemented")
    nums = [t for t in mods if t in ("x1", "x2", "x4")]
    types = [t for t in mods if t in TYPE_CODE]
    if len(nums) != 1 or "sync" not in mods or "aligned" not in mods:
        dec._fail(it, f"{base} takes .sync.aligned.m8n8 and one of .x1 .x2 .x4")
    if types not in ([], ["b16"]) or base == "stmatrix" and not types:
        _reject(dec, it, f"{base} element type .{types[0] if types else '(none)'} is not implemented (.b16 is)")
    n = int(nums[0][1])
    vec = it.operands[0] if base == "ldmatrix" else (it.operands[1] if len(it.operands) > 1 else None)
    count = len(vec.items) if isinstance(vec, ast.Vec) else 1
    if len(it.operands) != 2 or count != n:
        dec._fail(it, f"{base}.x{n} takes {n} register{'s' if n > 1 else ''} and one address")


def mma_types(mods) -> tuple:
    types = [t for t in mods if t in TYPE_CODE]
    shapes = [t for t in mods if t.startswith("m") and t[1:2].isdigit()]
    return types, shapes


def _check_mma(dec, it):
    mods = it.mods
    types, shapes = mma_types(mods)
    if "sync" not in mods or "aligned" not in mods:
        dec._fail(it, "mma takes .sync.aligned")
    if len(shapes) != 1:
        dec._fail(it, "mma takes one shape (.m16n8k16, ...)")
    shape = shapes[0]
    if shape not in oc.MMA_SHAPES:
        _reject(dec, it, f"mma shape .{shape} is not implemented (implemented: .m16n8k8 .m16n8k16 .m16n8k32 "
                         ".m8n8k4.f64)")
    if len(types) != 4:
        _reject(dec, it, f"mma takes four types (.dtype.atype.btype.ctype), found {len(types)}")
    d, a, b, c = types
    if a not in MMA_TYPES:
        _reject(dec, it, f"mma with .{a} inputs is not implemented")
    shapes_ok, acc, btypes = MMA_TYPES[a]
    if shape not in shapes_ok:
        _reject(dec, it, f"mma.{shape} with .{a} inputs is not implemented (implemented: "
                         + " ".join("." + s for s in shapes_ok) + ")")
    if b not in btypes or d not in acc or c not in acc:
        _reject(dec, it, f"mma.{shape}.{d}.{a}.{b}.{c} is not implemented")
    if [t for t in mods if t in ("row", "col")] != ["row", "col"]:
        _reject(dec, it, "mma layouts other than .row.col are not implemented")
    if "satfinite" in mods and a not in ("s8", "u8"):
        _reject(dec, it, f"mma .satfinite with .{a} inputs is not implemented")
    na, nb, nc = mma_fragment_counts(shape, a, c)
    nd = mma_fragment_counts(shape, a, d)[2]
    ops = it.operands
    if len(ops) != 4:
        dec._fail(it, "mma takes d, a, b, c")
    for x, want, what in zip(ops, (nd, na, nb, nc), "dabc"):
        n = len(x.items) if isinstance(x, ast.Vec) else 1
        if n != want or not all(isinstance(y, ast.Reg) for y in (x.items if isinstance(x, ast.Vec) else (x,))):
            dec._fail(it, f"mma.{shape}.{d}.{a}.{b}.{c} takes {want} register{'s' if want > 1 else ''} for {what}, "
                          f"found {n}")


def encode(fn, it: ast.Instr, base: str, row) -> None:
    """Fill the decoded row's fields for these instructions (after the generic ones)."""
    mods = it.mods
    if base == "cp":
        sub = next((oc.CP[t] for t in mods if t in oc.CP), oc.CP_COPY)
        row[oc.F_MOD] = sub
        row[oc.F_MOD2] = 1 if "cg" in mods else 0
        row[oc.F_TYPE] = row[oc.F_TYPE2] = TYPE_CODE["u32"]
        row[oc.F_SPACE] = oc.SP_GLOBAL
        row[oc.F_VEC] = 0
        n = 3 + ("L2::cache_hint" in mods)
        if sub == oc.CP_COPY and len(it.operands) == n + 1:
            x = it.operands[3]
            pred = isinstance(x, ast.Reg) and _reg_type(fn, x.name) == "pred"
            row[oc.F_VEC] = 2 if pred else 1        # ignore-src predicate / src-size
    elif base in ("ldmatrix", "stmatrix"):
        row[oc.F_VEC] = int(next(t for t in mods if t in ("x1", "x2", "x4"))[1])
        row[oc.F_TYPE] = row[oc.F_TYPE2] = TYPE_CODE["b32"]
        if "trans" in mods:
            row[oc.F_FLAGS] |= oc.FL_TRANS
    elif base == "mma":
        types, shapes = mma_types(mods)
        row[oc.F_MOD] = oc.MMA_SHAPES[shapes[0]]
        row[oc.F_TYPE], row[oc.F_TYPE2], row[oc.F_VEC], row[oc.F_MOD2] = (TYPE_CODE[t] for t in types)
        if "satfinite" in mods:
            row[oc.F_FLAGS] |= oc.FL_SATFINITE
    elif base == "elect":
        row[oc.F_TYPE] = row[oc.F_TYPE2] = TYPE_CODE["b32"]


def mma_signature(row) -> tuple:
    """(shape name, A type name, D type name) of a decoded mma row (for timing and reports)."""
    shape = {v: k for k, v in oc.MMA_SHAPES.items()}[int(row[oc.F_MOD])]
    return shape, TYPE_NAME[int(row[oc.F_TYPE2])], TYPE_NAME[int(row[oc.F_TYPE])]


def _reg_type(fn, name):
    if name in fn.regs:
        return fn.regs[name]
    stem = name.rstrip("0123456789")
    return fn.reg_ranges[stem][0] if stem != name and stem in fn.reg_ranges else None
