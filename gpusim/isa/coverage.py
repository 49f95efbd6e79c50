"""The instruction coverage table (instruction x types x status), derived from the implementation.

Rows come from the tables the decoder enforces: `opcodes.OPS` (every opcode), `accept.TYPES` /
`SECOND` / `REJECTED` / `MODIFIERS` (types, semantic modifiers and rejected combinations),
`forms.FORMS` (operand lists) and the family tables in `opcodes` (comparisons, atomic operations,
shuffle modes, ...). docs/COVERAGE.md is this module's output:

    python -m gpusim.isa.coverage > docs/COVERAGE.md

tests/isa/test_coverage.py regenerates it and compares byte for byte, and decodes and executes `example`
for every supported (instruction, type), and checks every rejected row is rejected.
"""
from __future__ import annotations

from gpusim.isa import opcodes as oc
from gpusim.isa.accept import INT_SAT, MOD_REJECTED, MODIFIERS, REJECTED, SECOND, TYPES, type_class
from gpusim.isa.forms import FORMS

SYNTHETIC = {"retf", "nop"}
_CLASSES = ("int", "pred", "f32", "f64", "f16", "bf16", "tf32", "f8")
_SPACES = ".global .shared .local .const .param (none: generic)"
FAMILY = {
    "setp": " ".join("." + k for k in list(oc.CMP) + list(oc.BOOL)),
    "set": " ".join("." + k for k in list(oc.CMP) + list(oc.BOOL)),
    "atom": " ".join("." + k for k in oc.ATOM) + "; " + _SPACES,
    "red": " ".join("." + k for k in oc.ATOM if k not in ("cas", "exch")) + "; " + _SPACES,
    "shfl": ".sync " + " ".join("." + k for k in oc.SHFL), "vote": ".sync " + " ".join("." + k for k in oc.VOTE),
    "redux": ".sync " + " ".join("." + k for k in oc.REDUX),
    "bar": " ".join("." + k for k in list(oc.BAR) + list(oc.BARRED)) + " .warp (barrier = bar); "
           "barrier.cluster.arrive (.release .relaxed) / .wait (.acquire), .aligned",
    "mapa": ".shared::cluster (or generic): the address of a shared variable in the CTA of a rank",
    "getctarank": ".shared::cluster (or generic): the rank of the CTA an address belongs to",
    "testp": " ".join("." + k for k in oc.TESTP), "cvta": ".to " + _SPACES,
    "ld": _SPACES + "; .v2 .v4; .volatile", "ldu": ".global; .v2 .v4", "st": _SPACES + "; .v2 .v4; .volatile",
    "prefetch": _SPACES, "membar": ".gl .cta .sys (fence = membar; also fence.proxy.async, fence.mbarrier_init)",
    "bra": ".uni", "call": ".uni",
    "ret": ".uni", "match": ".sync .any .all (d\\|p: match.all only)", "shf": ".l .r; .wrap (.wrap or .clamp required)",
    "add": "int .cc: carry out (u32 s32 u64 s64)", "sub": "int .cc: borrow out (u32 s32 u64 s64)",
    "mad": "int .cc: carry out, with .hi or .lo", "madc": ".hi or .lo required",
    "mov": ".b128: d and a each a .b128 register or a {lo, hi} pair of 64-bit values",
    "prmt": "modes .f4e .b4e .rc8 .ecl .ecr .rc16 (or none: the selector's nibbles)",
    "cvt": ".tf32.f32 (.rna, or .rn/.rz with .satfinite); .e4m3x2/.e5m2x2.f32 d, a, b (.rn.satfinite); "
           ".f16x2.e4m3x2/.e5m2x2 (.rn)",
    "cp": ".async .ca (4, 8, 16 bytes) .cg (16); .shared{::cta}.global; src-size or ignore-src; .L2::64B/128B/256B, "
          ".L2::cache_hint (policy); .commit_group, .wait_group N, .wait_all",
    "ldmatrix": ".sync .aligned .m8n8 .x1 .x2 .x4 .trans .shared{::cta}",
    "stmatrix": ".sync .aligned .m8n8 .x1 .x2 .x4 .trans .shared{::cta}",
    "mma": ".sync .aligned .row.col; .m16n8k8/.m16n8k16 f16 (f16/f32 C and D), bf16 (f32); .m16n8k8 tf32 (f32); "
           ".m16n8k32 s8/u8 (s32, .satfinite), e4m3/e5m2 (f32); .m8n8k4 f64",
    "elect": ".sync (d\\|p; d may be _)",
    "mbarrier": " ".join("." + k for k in oc.MBAR if k != "cparrive") + " .expect_tx (arrive, arrive_drop) "
                ".parity (try_wait, test_wait); .shared(::cta) or generic; cp.async.mbarrier.arrive(.noinc) "
                "decodes as mbarrier.cparrive",
    "wgmma": ".sync.aligned .fence .commit_group .wait_group .mma_async: .m64nNk16 .f32.f16.f16 .f32.bf16.bf16, "
             ".m64nNk8 .f32.tf32.tf32, .m64nNk32 .f32.{e4m3,e5m2}.{e4m3,e5m2}, .m64nNk32 .s32.{s8,u8}.{s8,u8}"
             "(.satfinite) (N = 8..256, step 8; integers: 8, 16, 24, then step 16); A by descriptor or registers; "
             "K-major, or M/N-major (imm-trans = 1, f16/bf16); no swizzle or 128B/64B/32B",
    "cpbulk": "cp.async.bulk: .shared::cluster.global.mbarrier::complete_tx::bytes (g2s; .multicast::cluster "
              "with a ctaMask), .shared::cluster.shared::cta.mbarrier::complete_tx::bytes (to another CTA of the "
              "cluster), .global.shared::cta.bulk_group (s2g), .commit_group, .wait_group(.read); "
              "cp.async.bulk.tensor.1d..5d .tile the same two ways (loads may multicast), `[tensorMap, {c0, ..}]` "
              "(tensor maps: gpusim/tma.py)",
}


def _modifiers(op: str) -> str:
    parts = []
    for cls in _CLASSES:
        mods = MODIFIERS.get(op, {}).get(cls)
        if not mods:
            continue
        shown = " ".join("." + m for m in mods.split())
        if cls == "int" and "sat" in mods.split() and op != "cvt":
            shown = shown.replace(".sat", ".sat (s32" + (" with .hi" if op == "mad" else "") + ")")
        parts.append(f"{cls}: {shown}")
    if op in FAMILY:
        parts.append(FAMILY[op])
    return "; ".join(parts)


def rows() -> list:
    """(instruction, types, second types, operand forms, modifiers, status) for every opcode."""
    out = []
    for op in oc.OPS:
        if op in SYNTHETIC:
            continue
        forms = " or ".join(f"`{f}`".replace("|", "\\|") if f else "(none)" for f in FORMS[op])
        first = [t for t in TYPES[op] if (op, t) not in REJECTED]
        second = [t for t in SECOND.get(op, ()) if (op, t) not in REJECTED]
        out.append((op, first, second, forms, _modifiers(op), "supported"))
        why: dict = {}
        for t in TYPES[op]:
            if (op, t) in REJECTED:
                why.setdefault(REJECTED[(op, t)], ([], []))[0].append(t)
        for t in SECOND.get(op, ()):
            if (op, t) in REJECTED:
                why.setdefault(REJECTED[(op, t)], ([], []))[1].append(t)
        for reason, (ts, ts2) in why.items():
            out.append((op, ts, ts2, forms, "", "rejected: " + reason))
    return out


# constructs rejected whatever the type: (what, example instruction, words of the reason)
REJECTED_FORMS = [
    ("carry chains on 16-bit types", "add.cc.u16 %h, %h, %h;",
     "carry chains (.cc, addc, subc, madc) take .u32, .s32, .u64 or .s64"),
    ("`mad.cc` / `madc` without `.hi` or `.lo`", "mad.cc.u32 %u, %u, %u, %u;", "mad with a carry takes .hi or .lo"),
    ("`shf` without its direction and mode", "shf.l.b32 %u, %u, %u, %u;",
     "shf takes a direction (.l or .r) and a mode (.wrap or .clamp)"),
    ("`.xorsign.abs` (min / max)", "min.xorsign.abs.f32 %f, %f, %f;", MOD_REJECTED["xorsign"]),
    ("integer `.sat` other than add/sub.sat.s32 and mad.hi.sat.s32", "add.sat.u32 %u, %u, %u;", INT_SAT),
    ("`.relu` except on fma.f16 / fma.bf16 (e.g. cvt.relu)", "cvt.rn.relu.f16.f32 %h, %f;",
     "modifier .relu is not supported on cvt.f16"),
    ("three-input `min` / `max` (d, a, b, c)", "max.f32 %f, %f, %f, %f;", "three-input min/max"),
    ("`.rz` `.rm` `.rp` on f16 / bf16 arithmetic", "add.rz.f16 %h, %h, %h;", "only .rn rounding"),
    ("float immediates in f16 / bf16 arithmetic (raw bits such as 0x3C00 are accepted)",
     "add.f16 %h, %h, 0f3F800000;", "floating-point immediate"),
    ("`.v8` vectors", "ld.global.v8.b32 {%u, %u, %u, %u, %u, %u, %u, %u}, [%A];", ".v8 vectors"),
    ("vector atomics (atom.v2 / .v4)", "atom.global.v2.f32.add {%f, %f}, [%A], {%f, %f};", "vector atomics"),
    ("predicated `call` (@p call)", "@%p call.uni f;", "predicated call"),
    ("special registers %envreg<N>, %pm<N>, %reserved_smem*, ... (the %cluster* registers are modelled)",
     "mov.u32 %u, %envreg0;",
     "special register %envreg0"),
    ("`mma` shapes other than m16n8k8/k16/k32 and m8n8k4.f64",
     "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f,%f,%f,%f}, {%u,%u}, {%u}, {%f,%f,%f,%f};",
     "mma shape .m16n8k4 is not implemented"),
    ("`mma` type combinations outside the table (e.g. bf16 with an f16 accumulator)",
     "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%u,%u}, {%u,%u,%u,%u}, {%u,%u}, {%u,%u};",
     "mma.m16n8k16.f16.bf16.bf16.f16 is not implemented"),
    ("sparse `mma.sp`", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f,%f,%f,%f}, {%u,%u}, {%u,%u}, "
     "{%f,%f,%f,%f}, %u, 0;", "sparse mma (mma.sp) is not implemented"),
    ("`ldmatrix` / `stmatrix` shapes other than .m8n8",
     "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%u, %u}, [%u];",
     "ldmatrix shapes other than .m8n8 are not implemented"),
    ("TMA tensor copies in im2col mode",
     "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%A], [%A, {%i, %i, %i}], "
     "[%A], {%h};", ".im2col mode"),
    ("cp.reduce.async.bulk", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%A], [%A], 16;",
     "cp.reduce.async.bulk"),
    ("wgmma.mma_async mixing input families (e.g. .f16 with .bf16, .e4m3 with .s8)",
     "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.bf16 {%f, %f, %f, %f}, %A, %A, 1, 1, 1, 0, 0;",
     "does not take .f16 with .bf16"),
    ("wgmma.mma_async with an .f16 accumulator",
     "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%u, %u}, %A, %A, 1, 1, 1, 0, 0;", ".f16 accumulator"),
]


def markdown() -> str:
    lines = ["# PTX instruction coverage", "",
             "Generated by `python -m gpusim.isa.coverage > docs/COVERAGE.md` from the tables the decoder "
             "enforces (`gpusim/isa/accept.py`: types and modifiers per opcode; `gpusim/isa/forms.py`: operand "
             "forms); tests/isa/test_coverage.py checks this file is current, decodes and executes one instruction "
             "of every supported type, and checks every rejected row is rejected.", "",
             "`supported`: decoded and executed by the functional and timing models. `rejected`: refused at load "
             "time with UnsupportedInstruction naming the instruction, the reason and the line. A type or "
             "modifier not listed for an instruction is refused the same way; a malformed operand list is a "
             "PTXSyntaxError with file:line:col. Cache, eviction, scope and memory-order qualifiers are accepted "
             "without effect.", "",
             "| instruction | types | operands | modifiers | status |", "|---|---|---|---|---|"]
    for op, ts, ts2, forms, mods, status in rows():
        types = ", ".join(t or "(none)" for t in ts) or "-"
        if ts2:
            types += " (second type: " + ", ".join(ts2) + ")"
        lines.append(f"| `{op}` | {types} | {forms} | {mods} | {status} |")
    lines += ["", "## Rejected whatever the type", "", "| construct | example | status |", "|---|---|---|"]
    for what, example, why in REJECTED_FORMS:
        lines.append(f"| {what} | `{example}` | rejected: {why} |")
    aliases = ", ".join(f"`{a}`" for a, b in oc.OP_ALIASES.items() if b == "nop")
    lines += ["", f"Accepted without effect: {aliases} (`setmaxnreg.inc/.dec`: gpusim does not model register "
              "reallocation), `prefetch`, `bar.warp.sync`. Not decoded at all (an error names the instruction and "
              "its line): opcodes not in this table, e.g. `wmma`, `tex`/`suld`/`sust`, `st.async`, `red.async`, "
              "`brx.idx`, indirect calls, `createpolicy`. `cp.async.bulk` decodes as `cpbulk`, "
              "`cp.async.mbarrier.arrive` as `mbarrier.cparrive` (gpusim/isa/hopper.py).", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------ representative instructions
_REG = {"u8": "u16", "s8": "s16", "b8": "b16", "f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32",
        "tf32": "b32", "e4m3": "b16", "e5m2": "b16", "e4m3x2": "b16", "e5m2x2": "b16"}
_INIT = {"f32": ("0f40400000", "0f40000000", "0f3F800000"), "f64": ("0d4008000000000000", "0d4000000000000000",
                                                                   "0d3FF0000000000000"),
         "f16": ("0x4200", "0x4000", "0x3C00"), "bf16": ("0x4040", "0x4000", "0x3F80"),
         "f16x2": ("0x42004200", "0x40004000", "0x3C003C00"), "bf16x2": ("0x40404040", "0x40004000", "0x3F803F80")}
EXAMPLES = {
    "add": "add.{t} %d, %a, %b;", "sub": "sub.{t} %d, %a, %b;", "mul": "mul{L}.{t} %d, %a, %b;",
    "mad": "mad{L}{R}.{t} %d, %a, %b, %c;", "fma": "fma.rn.{t} %d, %a, %b, %c;",
    "mul24": "mul24.lo.{t} %d, %a, %b;", "mad24": "mad24.lo.{t} %d, %a, %b, %c;", "div": "div{R}.{t} %d, %a, %b;",
    "rem": "rem.{t} %d, %a, %b;", "abs": "abs.{t} %d, %a;", "neg": "neg.{t} %d, %a;",
    "min": "min.{t} %d, %a, %b;", "max": "max.{t} %d, %a, %b;", "and": "and.{t} %d, %a, %b;",
    "or": "or.{t} %d, %a, %b;", "xor": "xor.{t} %d, %a, %b;", "not": "not.{t} %d, %a;", "cnot": "cnot.{t} %d, %a;",
    "shl": "shl.{t} %d, %a, 3;", "shr": "shr.{t} %d, %a, 1;", "popc": "popc.{t} %u, %a;", "clz": "clz.{t} %u, %a;",
    "brev": "brev.{t} %d, %a;", "bfe": "bfe.{t} %d, %a, 4, 8;", "bfi": "bfi.{t} %d, %a, %b, 4, 8;",
    "prmt": "prmt.{t} %d, %a, %b, 0x3210;", "bfind": "bfind.{t} %u, %a;", "sqrt": "sqrt{R}.{t} %d, %a;",
    "rcp": "rcp{R}.{t} %d, %a;", "rsqrt": "rsqrt.approx.{t} %d, %a;", "ex2": "ex2.approx.{t} %d, %a;",
    "lg2": "lg2.approx.{t} %d, %a;", "sin": "sin.approx.{t} %d, %a;", "cos": "cos.approx.{t} %d, %a;",
    "tanh": "tanh.approx.{t} %d, %a;", "copysign": "copysign.{t} %d, %a, %b;", "testp": "testp.finite.{t} %p, %a;",
    "mov": "mov.{t} %d, %a;", "setp": "setp.lt.{t} {P}, %a, %b;", "selp": "selp.{t} %d, %a, %b, %p;",
    "cvta": "cvta.to.global.{t} %d, %a;", "ld": "ld.global.{t} %d, [%A];", "ldu": "ldu.global.{t} %d, [%A];",
    "st": "st.global.{t} [%A], %d;", "atom": "atom.global.{O}.{t} %d, [%A], %a{C};",
    "red": "red.global.{O}.{t} [%A], %a;", "prefetch": "prefetch.global.L2 [%A];", "membar": "membar.gl;",
    "bra": "bra.uni L_end; L_end:", "call": "call.uni f;", "ret": "ret;", "exit": "exit;", "trap": "@%q trap;",
    "brkpt": "brkpt;", "nanosleep": "nanosleep.{t} 10;", "shfl": "shfl.sync.bfly.{t} %d, %a, 1, 31, -1;",
    "vote": "vote.sync.{O}.{t} %d, %p, -1;", "activemask": "activemask.{t} %d;",
    "redux": "redux.sync.{O}.{t} %d, %a, -1;",
    "addc": "add.cc.{t} %d, %a, %b; addc.{t} %d, %a, %b;", "subc": "sub.cc.{t} %d, %a, %b; subc.{t} %d, %a, %b;",
    "madc": "mad.lo.cc.{t} %d, %a, %b, %c; madc.hi.{t} %d, %a, %b, %c;",
    "match": "match.all.sync.{t} %u|%p, %a, -1;", "shf": "shf.l.wrap.{t} %d, %a, %b, %u;",
    "mbarrier": ".shared .align 8 .b64 mb; mbarrier.init.shared.{t} [mb], 32; mbarrier.arrive.shared.{t} %d, [mb]; "
                "mbarrier.test_wait.shared.{t} %p, [mb], %d;",
    "wgmma": "wgmma.fence.sync.aligned; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0;",
    "cpbulk": "cp.async.bulk.commit_group; cp.async.bulk.wait_group 0;",
    "bar": {"": "bar.sync 0;", "u32": "bar.red.popc.u32 %d, 0, %p;", "pred": "bar.red.and.pred %d, 0, %p;"},
    "cp": ".shared .align 16 .b8 cpbuf[64]; cp.async.ca.shared.global [cpbuf], [%A], 16; cp.async.commit_group; "
          "cp.async.wait_group 0; cp.async.wait_all;",
    "ldmatrix": ".shared .align 16 .b8 lmbuf[128]; mov.u32 %u, lmbuf; "
                "ldmatrix.sync.aligned.m8n8.x1.shared.{t} {%u}, [%u];",
    "stmatrix": ".shared .align 16 .b8 smbuf[128]; mov.u32 %u, smbuf; "
                "stmatrix.sync.aligned.m8n8.x1.shared.{t} [%u], {%u};",
    "elect": "elect.sync %u|%p, -1;",
    "mapa": "mapa.shared::cluster.{t} %d, %a, 0;", "getctarank": "getctarank.shared::cluster.{t} %u, %a;",
    "mma": {**{t: f"mma.sync.aligned.{sh}.row.col.f32.{t}.{t}.f32 {{%f,%f,%f,%f}}, {{%u,%u,%u,%u}}, {{%u,%u}}, "
                  "{%f,%f,%f,%f};" for t, sh in (("f16", "m16n8k16"), ("bf16", "m16n8k16"), ("tf32", "m16n8k8"),
                                                   ("e4m3", "m16n8k32"), ("e5m2", "m16n8k32"))},
            **{t: f"mma.sync.aligned.m16n8k32.row.col.s32.{t}.{t}.s32 {{%i,%i,%i,%i}}, {{%u,%u,%u,%u}}, {{%u,%u}}, "
                  "{%i,%i,%i,%i};" for t in ("s8", "u8")},
            "f64": "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%a,%b}, {%c}, {%d}, {%a,%b};"},
    # two-type instructions: (example varying the first type, example varying the second)
    "set": ("set.lt.{t}.s32 %d, %i, %i;", "set.lt.u32.{t} %u, %a, %b;"),
    "slct": ("slct.{t}.s32 %d, %a, %b, %i;", "slct.u32.{t} %u, %u, %u, %a;"),
    "cvt": ("cvt{R}.{t}.f32 %d, %f{F};", "cvt{R}.f32.{t} %f, %a;"),
    "dp4a": ("dp4a.{t}.u32 %d, %a, %u, %a;", "dp4a.u32.{t} %u, %u, %a, %u;"),
    "dp2a": ("dp2a.lo.{t}.u32 %d, %a, %u, %a;", "dp2a.hi.u32.{t} %u, %u, %a, %u;"),
}


def example(op: str, t: str, second: bool = False) -> str:
    """A PTX kernel executing one `op` of type t (the second type when `second`), for the tests."""
    tmpl = EXAMPLES[op]
    if isinstance(tmpl, dict):
        tmpl = tmpl[t]
    elif isinstance(tmpl, tuple):
        tmpl = tmpl[1 if second else 0]
    cls = type_class(t)
    flt = cls in ("f32", "f64")
    if op == "cvt" and second and cls == "f8":
        tmpl = "cvt.rn.f16x2.{t} %u, %a;"
        rnd = ""
    elif op == "cvt" and second:
        rnd = ".rn" if cls == "int" or t == "f64" else ""          # to f32: rounding only when narrowing
    elif op == "cvt":
        rnd = ".rzi" if cls == "int" else {"f16": ".rn", "bf16": ".rn", "tf32": ".rna",
                                           "f8": ".rn.satfinite"}.get(cls, "")
    else:
        rnd = ".rn" if flt and op in ("mad", "div", "sqrt", "rcp") else ""
    aop = "add"
    if op in ("atom", "red"):
        bitwise = "exch" if op == "atom" else "or"
        aop = {"b16": "cas", "b32": bitwise, "b64": bitwise}.get(t, "add")
    elif op == "vote":
        aop = "any" if t == "pred" else "ballot"
    elif op == "redux":
        aop = "and" if t == "b32" else "add"
    body = (tmpl.replace("{t}", t).replace("{R}", rnd).replace("{L}", ".lo" if cls == "int" else "")
            .replace("{O}", aop).replace("{C}", ", %b" if aop == "cas" else "")
            .replace("{P}", "%p|%q" if t.endswith("x2") else "%p")
            .replace("{F}", ", %f" if t in ("f16x2", "bf16x2", "e4m3x2", "e5m2x2") else ""))
    return example_kernel(body, t)


def example_kernel(body: str, t: str) -> str:
    """A kernel running `body` with %a %b %c %d of type t (initialised) and spare registers."""
    rt = _REG.get(t, t) or "b32"
    init = []
    if rt == "pred":
        init = ["setp.eq.s32 %a, %i, 5;", "setp.ne.s32 %b, %i, 5;", "setp.eq.s32 %c, %i, 5;", "setp.eq.s32 %d, %i, 5;"]
    elif rt != "b128":
        vals = _INIT.get(t, ("3", "2", "1"))
        mov = "b16" if rt in ("u16", "s16", "b16") else ("b32" if t in ("f16x2", "bf16x2") else rt)
        init = [f"mov.{mov} %{r}, {v};" for r, v in zip("abcd", vals + vals[-1:])]
    func = ".func f()\n{\nret;\n}\n" if "call" in body else ""
    return (".version 8.0\n.target sm_90\n.address_size 64\n" + func +
            ".visible .entry k(.param .u64 out)\n{\n"
            f".reg .{rt} %a, %b, %c, %d;\n"
            ".reg .u32 %u; .reg .s32 %i; .reg .f32 %f; .reg .b16 %h; .reg .pred %p, %q; .reg .u64 %A;\n"
            "ld.param.u64 %A, [out];\nmov.s32 %i, 5; mov.u32 %u, 7; mov.f32 %f, 0f3FC00000;\n"
            "setp.eq.s32 %p, %i, 5; setp.ne.s32 %q, %i, 5;\n" + " ".join(init) + "\n" + body + "\nret;\n}\n")


if __name__ == "__main__":
    print(markdown(), end="")
