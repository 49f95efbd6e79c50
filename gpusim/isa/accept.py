"""What the decoder accepts: types and semantic modifiers per opcode, and what it rejects and why.

These tables are the implementation's own contract: the decoder enforces them at load time through
`rejection` (forms.check_instruction raises UnsupportedInstruction naming the instruction, the reason
and the line), and `gpusim.isa.coverage` renders them as docs/COVERAGE.md, so the document cannot
drift from what the decoder does. Cache, scope and memory-order qualifiers (modifiers.py
`_IGNORED`) are accepted everywhere without effect and are not listed here.
"""
from __future__ import annotations

INT = ("u16", "s16", "u32", "s32", "u64", "s64")
SINT = ("s16", "s32", "s64")
F = ("f32", "f64")
B = ("b16", "b32", "b64")
HALF = ("f16", "f16x2", "bf16", "bf16x2")
HALF_BITS = HALF                      # half types only moved as bits (ld/st/mov/cvt)
MEM = ("b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
       "f16", "f16x2", "bf16", "bf16x2", "f32", "f64")
CVT = ("u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16", "bf16", "f32", "f64")
ATOMIC = ("b16", "b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64")
NONE = ("",)                          # an instruction written without a type
CARRY = ("u32", "s32", "u64", "s64")  # carry chains: add.cc/addc, sub.cc/subc, mad.cc/madc

# opcode -> accepted types (the first type for cvt / set / slct; SECOND lists the second)
TYPES = {
    "add": INT + F + HALF, "sub": INT + F + HALF, "mul": INT + F + HALF, "mad": INT + F, "fma": F + HALF,
    "mul24": ("u32", "s32"), "mad24": ("u32", "s32"), "div": INT + F, "rem": INT,
    "abs": SINT + F + HALF, "neg": SINT + F + HALF, "min": INT + F + HALF, "max": INT + F + HALF,
    "and": ("pred",) + B, "or": ("pred",) + B, "xor": ("pred",) + B, "not": ("pred",) + B, "cnot": B,
    "shl": B, "shr": B + INT, "popc": ("b32", "b64"), "clz": ("b32", "b64"), "brev": ("b32", "b64"),
    "bfe": ("u32", "s32", "u64", "s64"), "bfi": ("b32", "b64"), "prmt": ("b32",),
    "bfind": ("u32", "s32", "u64", "s64"),
    "sqrt": F, "rcp": F, "rsqrt": F, "ex2": ("f32",) + HALF, "lg2": ("f32",), "sin": ("f32",),
    "cos": ("f32",), "tanh": ("f32",) + HALF, "copysign": F, "testp": F,
    "mov": ("pred",) + B + INT + F + HALF_BITS + ("b128",),
    "setp": B + INT + F + HALF, "set": ("u32", "s32", "f32") + HALF, "selp": B + INT + F,
    "slct": B + INT + F, "cvt": CVT + ("f16x2", "bf16x2"), "cvta": ("u32", "u64"),
    "ld": MEM + ("b128",), "ldu": MEM + ("b128",), "st": MEM + ("b128",),
    "atom": ATOMIC + HALF + ("b128",), "red": ATOMIC[1:] + HALF, "prefetch": NONE,
    "bar": NONE + ("u32", "pred"), "membar": NONE, "bra": NONE, "call": NONE, "ret": NONE,
    "exit": NONE, "trap": NONE, "brkpt": NONE, "nanosleep": ("u32",),
    "shfl": ("b32",), "vote": ("pred", "b32"), "activemask": ("b32",), "redux": ("u32", "s32", "b32"),
    "addc": CARRY, "subc": CARRY, "madc": CARRY, "match": ("b32", "b64"), "shf": ("b32",),
    # checked by tensorops.py (shapes, layouts, four mma types); listed here for the coverage table
    "cp": NONE, "ldmatrix": ("b16",), "stmatrix": ("b16",), "elect": NONE,
    "mma": ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "f64"),
    "mbarrier": ("b64",), "wgmma": NONE, "cpbulk": NONE, "dp4a": ("u32", "s32"), "dp2a": ("u32", "s32"),
    "mapa": ("u32", "u64"), "getctarank": ("u32", "u64"),
}
TYPES["cvt"] += ("tf32", "e4m3x2", "e5m2x2")
SECOND = {"cvt": CVT + ("e4m3x2", "e5m2x2"), "set": B + INT + F + HALF, "slct": ("s32", "f32"),
          "dp4a": ("u32", "s32"), "dp2a": ("u32", "s32")}
F8X2 = ("e4m3x2", "e5m2x2")

_HALF_APPROX = "half-precision {op}.approx is not implemented"
# (opcode, type) -> why it is rejected; a type in TYPES but listed here raises UnsupportedInstruction
REJECTED = {}
for _t in HALF:
    REJECTED[("ex2", _t)] = _HALF_APPROX.format(op="ex2")
    REJECTED[("tanh", _t)] = _HALF_APPROX.format(op="tanh")
    REJECTED[("atom", _t)] = "half-precision atomics (atom.add.noftz.f16 ...) are not implemented"
    REJECTED[("red", _t)] = "half-precision atomics (red.add.noftz.f16 ...) are not implemented"
REJECTED[("atom", "b128")] = "128-bit atomics (atom.cas/exch.b128) are not implemented"

R4 = "rn rz rm rp"
# opcode -> {type class: semantic modifiers accepted}; classes: int, pred, f32, f64, f16, bf16, "" (untyped)
ARITH = {"int": "", "f32": R4 + " ftz sat", "f64": R4, "f16": "rn ftz sat", "bf16": "rn"}
MODIFIERS = {
    "add": {**ARITH, "int": "sat cc"}, "sub": {**ARITH, "int": "sat cc"}, "mul": {**ARITH, "int": "hi lo wide"},
    "mad": {"int": "hi lo wide sat cc", "f32": R4 + " ftz sat", "f64": R4},
    "addc": {"int": "cc"}, "subc": {"int": "cc"}, "madc": {"int": "hi lo cc"},
    "bfind": {"int": "shiftamt"}, "shf": {"int": "clamp"},
    "fma": {"f32": R4 + " ftz sat", "f64": R4, "f16": "rn ftz sat relu", "bf16": "rn relu"},
    "mul24": {"int": "hi lo"}, "mad24": {"int": "hi lo"}, "dp2a": {"int": "hi lo"},
    "div": {"int": "", "f32": R4 + " approx full ftz", "f64": R4},
    "abs": {"int": "", "f32": "ftz", "f64": "", "f16": "ftz", "bf16": ""},
    "neg": {"int": "", "f32": "ftz", "f64": "", "f16": "ftz", "bf16": ""},
    "min": {"int": "", "f32": "ftz NaN", "f64": "", "f16": "ftz NaN", "bf16": "NaN"},
    "max": {"int": "", "f32": "ftz NaN", "f64": "", "f16": "ftz NaN", "bf16": "NaN"},
    "sqrt": {"f32": R4 + " approx ftz", "f64": R4}, "rcp": {"f32": R4 + " approx ftz", "f64": R4 + " approx ftz"},
    "rsqrt": {"f32": "approx ftz", "f64": "approx ftz"},
    "ex2": {"f32": "approx ftz"}, "lg2": {"f32": "approx ftz"}, "sin": {"f32": "approx ftz"},
    "cos": {"f32": "approx ftz"}, "tanh": {"f32": "approx"},
    "setp": {"f32": "ftz", "f16": "ftz"}, "set": {"f32": "ftz", "f16": "ftz"}, "slct": {"f32": "ftz"},
    "cvt": {**{c: R4 + " rni rzi rmi rpi ftz sat" for c in ("int", "f32", "f64", "f16", "bf16")},
            "tf32": "rna rn rz satfinite", "f8": "rn satfinite"},
    "wgmma": {"": "satfinite"},         # which wgmma types take it: hopper.py
}
SEMANTIC = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "ftz", "sat", "approx", "full", "hi",
            "lo", "wide", "NaN", "relu", "xorsign", "abs", "cc", "shiftamt", "clamp", "satfinite"}
# modifiers rejected wherever they appear, and why
MOD_REJECTED = {"xorsign": ".xorsign.abs is not implemented",
                "abs": ".xorsign.abs is not implemented"}
INT_SAT = "integer .sat is only defined (and implemented) for add.sat.s32, sub.sat.s32 and mad.hi.sat.s32"


def type_class(t: str) -> str:
    if t in ("f32", "f64", "", "tf32"):
        return t
    if t in ("e4m3", "e5m2", "e4m3x2", "e5m2x2"):
        return "f8"
    if t in ("f16", "f16x2"):
        return "f16"
    if t in ("bf16", "bf16x2"):
        return "bf16"
    return "pred" if t == "pred" else "int"


def accepted_modifiers(op: str, t: str) -> set:
    return set(MODIFIERS.get(op, {}).get(type_class(t), "").split())


def rejection(op: str, types: list, mods: list, vec: int = 1) -> str | None:
    """Why `op` with these type names and modifier tokens is not run (None when it is accepted)."""
    if op not in TYPES:
        return None
    want = 2 if op in SECOND else 1
    if len(types) > want or op in SECOND and len(types) != want or not types and "" not in TYPES[op]:
        found = ", ".join("." + x for x in types) if types else "none"
        return f"{op} takes {want} type{'s' if want > 1 else ''}, found {found}"
    t = types[0] if types else ""
    if t not in TYPES[op]:
        return f"type .{t} is not accepted by {op} (accepted: {_names(TYPES[op])})"
    if (op, t) in REJECTED:
        return REJECTED[(op, t)]
    if op in SECOND:
        t2 = types[1]
        if t2 not in SECOND[op]:
            return f"second type .{t2} is not accepted by {op} (accepted: {_names(SECOND[op])})"
        if (op, t2) in REJECTED:
            return REJECTED[(op, t2)]
        why = _cvt_pair_rule(t, t2, mods) if op == "cvt" else None
        if why:
            return why
    ok = accepted_modifiers(op, t)
    for tok in mods:
        if tok not in SEMANTIC or op in ("setp", "set", "slct") and tok in ("hi", "lo"):   # setp.hi/lo compare
            continue
        if tok in MOD_REJECTED:
            return MOD_REJECTED[tok]
        if tok == "sat" and type_class(t) == "int" and op != "cvt":
            if op in ("add", "sub", "mad") and t == "s32" and (op != "mad" or "hi" in mods):
                continue
            return INT_SAT
        if tok in ok:
            continue
        if tok in ("rz", "rm", "rp") and type_class(t) in ("f16", "bf16") and op in ("add", "sub", "mul", "fma"):
            return f"only .rn rounding is implemented for {op}.{t}"
        return f"modifier .{tok} is not supported on {op}" + (f".{t}" if t else "")
    if op in ("mul", "mad") and "wide" in mods and t not in ("u16", "s16", "u32", "s32"):
        return f"{op}.wide takes a 16- or 32-bit integer type"
    why = _family_rule(op, t, mods)
    if why:
        return why
    if t == "b128" and vec > 1:
        return f".v{vec} vectors of .b128 are not implemented"
    if vec > 1 and op in ("atom", "red"):
        return "vector atomics are not implemented"
    if vec > 4:
        return f".v{vec} vectors are not implemented"
    return None


def _cvt_pair_rule(t: str, t2: str, mods: list) -> str | None:
    """cvt to or from the packed and tensor-core formats: which pairs exist, and their rounding."""
    if t2 in F8X2 and t != "f16x2":
        return f"cvt from .{t2} converts to .f16x2 only"
    if t == "f16x2" and t2 in F8X2:
        return None if "rn" in mods else f"cvt.f16x2.{t2} takes .rn"
    if t in ("f16x2", "bf16x2") + F8X2 and t2 != "f32":
        return f"cvt to .{t} converts a pair of f32 values"
    if t == "tf32" and t2 != "f32":
        return "cvt to .tf32 converts an f32 value"
    if t == "tf32" and not any(r in mods for r in ("rna", "rn", "rz")):
        return "cvt.tf32.f32 takes .rna, .rn or .rz"
    if t == "tf32" and "rna" not in mods and "satfinite" not in mods:
        return "cvt.rn/.rz.tf32.f32 takes .satfinite"
    if t in F8X2 and not ("rn" in mods and "satfinite" in mods):
        return f"cvt to .{t} takes .rn.satfinite"
    return None


def _family_rule(op: str, t: str, mods: list) -> str | None:
    """Modifiers some opcodes require, and combinations PTX does not define."""
    carry = "cc" in mods or op in ("addc", "subc", "madc")
    if carry and t not in CARRY:
        return f"carry chains (.cc, addc, subc, madc) take .u32, .s32, .u64 or .s64, not .{t}"
    if carry and "sat" in mods:
        return ".sat cannot be combined with a carry (.cc, addc, subc)"
    if carry and op in ("mad", "madc") and not ("hi" in mods or "lo" in mods):
        return f"{op} with a carry takes .hi or .lo"
    if op == "dp2a" and ("hi" in mods) == ("lo" in mods):
        return "dp2a takes .lo or .hi (which two bytes of b)"
    if op == "shf" and not (("l" in mods) ^ ("r" in mods) and ("wrap" in mods) ^ ("clamp" in mods)):
        return "shf takes a direction (.l or .r) and a mode (.wrap or .clamp)"
    if op == "match" and not (("any" in mods) ^ ("all" in mods) and "sync" in mods):
        return "match takes .sync and one of .any / .all"
    if op in ("mbarrier", "wgmma", "cpbulk"):
        from gpusim.isa.hopper import hopper_rule
        return hopper_rule(op, mods)
    return None


def _names(types) -> str:
    return ", ".join("." + t if t else "(none)" for t in types)
