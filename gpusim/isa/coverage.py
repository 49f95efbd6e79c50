"""The instruction coverage table: which PTX instructions and types gpusim executes.

`COVERAGE` is the single source: docs/COVERAGE.md is generated from it (`python -m
gpusim.isa.coverage > docs/COVERAGE.md`), and tests/test_coverage.py both checks the document is
current and runs one instance of every entry through the executor, so the table cannot drift.
Each entry: (instruction as written, types, a PTX body using %a/%b/%c as inputs and %d as output).
"""
from __future__ import annotations

I = ["u16", "s16", "u32", "s32", "u64", "s64"]
B = ["b16", "b32", "b64"]
F = ["f32", "f64"]
COVERAGE = [
    ("add / sub", I + F, "add.{t} %d, %a, %b; sub.{t} %d, %d, %c;"),
    ("mul.lo / mul.hi", I, "mul.lo.{t} %d, %a, %b; mul.hi.{t} %d, %d, %c;"),
    ("mul.wide", ["u16", "s16", "u32", "s32"], "mul.wide.{t} %D, %a, %b;"),
    ("mul (float)", F, "mul.rn.{t} %d, %a, %b;"),
    ("mad.lo / mad.hi", I, "mad.lo.{t} %d, %a, %b, %c; mad.hi.{t} %d, %d, %b, %c;"),
    ("fma.rn / rz / rm / rp", F, "fma.rn.{t} %d, %a, %b, %c; fma.rz.{t} %d, %d, %b, %c;"),
    ("div / rem", I, "div.{t} %d, %a, %b; rem.{t} %d, %a, %b;"),
    ("div.rn / div.approx / div.full", ["f32"], "div.rn.f32 %d, %a, %b; div.approx.f32 %d, %d, %b; "
                                                "div.full.f32 %d, %d, %b;"),
    ("div.rn (f64)", ["f64"], "div.rn.f64 %d, %a, %b;"),
    ("abs / neg / min / max", ["s16", "s32", "s64"] + F, "abs.{t} %d, %a; neg.{t} %d, %d; min.{t} %d, %d, %b; "
                                                         "max.{t} %d, %d, %c;"),
    ("and / or / xor / not / cnot", B, "and.{t} %d, %a, %b; or.{t} %d, %d, %c; xor.{t} %d, %d, %a; "
                                       "not.{t} %d, %d; cnot.{t} %d, %d;"),
    ("shl / shr", B + ["u32", "s32", "u64", "s64"], "shl.{t} %d, %a, 3; shr.{t} %d, %d, 1;"),
    ("popc / clz / brev", ["b32", "b64"], "popc.{t} %u, %a; clz.{t} %u, %a; brev.{t} %d, %a;"),
    ("bfe / bfi", ["u32", "s32", "u64", "s64"], "bfe.{t} %d, %a, 4, 8; bfi.{t2} %d, %a, %b, 4, 8;"),
    ("prmt (default mode)", ["b32"], "prmt.b32 %d, %a, %b, 0x3210;"),
    ("setp (all comparisons, .and/.or/.xor)", I + F, "setp.lt.{t} %p, %a, %b; setp.ge.and.{t} %q, %a, %c, %p;"),
    ("selp / slct", ["u32", "s32", "u64", "f32", "f64"], "setp.ne.{t} %p, %a, %b; selp.{t} %d, %a, %b, %p;"),
    ("mov / mov pack-unpack", ["b32", "b64", "u32", "f32"], "mov.{t} %d, %a;"),
    ("cvt int<->float (.rn .rz .rm .rp .rni .rzi .rmi .rpi .sat)", ["f32", "f64"],
     "cvt.rn.{t}.s32 %d, %i; cvt.rzi.s32.{t} %i, %d;"),
    ("cvt f16 / bf16", ["f32"], "cvt.rn.f16.f32 %h, %a; cvt.f32.f16 %d, %h; cvt.rn.bf16.f32 %h, %a;"),
    ("sqrt / rcp (.rn, .approx)", F, "sqrt.rn.{t} %d, %a; rcp.rn.{t} %d, %d;"),
    ("rsqrt / ex2 / lg2 / sin / cos / tanh (.approx)", ["f32"],
     "rsqrt.approx.f32 %d, %a; ex2.approx.f32 %d, %d; lg2.approx.f32 %d, %d; sin.approx.f32 %d, %d; "
     "cos.approx.f32 %d, %d; tanh.approx.f32 %d, %d;"),
    ("copysign / testp", F, "copysign.{t} %d, %a, %b; testp.finite.{t} %p, %d;"),
    ("ld / st (global, shared, local, param, const, generic; .v2 .v4)", ["u8", "s8", "u16", "u32", "u64", "f32",
                                                                        "f64"],
     "st.global.{t} [%A], %d; ld.global.{t} %d, [%A];"),
    ("atom / red (add min max inc dec exch cas and or xor)", ["u32", "s32", "u64", "f32"],
     "atom.global.add.{t} %d, [%A], %a;"),
    ("shfl.sync (up down bfly idx)", ["b32"], "shfl.sync.bfly.b32 %d, %a, 1, 31, -1;"),
    ("vote.sync (all any uni ballot) / activemask", ["pred", "b32"], "vote.sync.any.pred %p, %p, -1;"),
    ("bar.sync / barrier.sync / bar.arrive / bar.red", ["-"], "bar.sync 0;"),
    ("membar / fence", ["-"], "membar.gl; fence.acq_rel.gpu;"),
    ("bra / call / ret / exit", ["-"], "bra.uni L_end; L_end:"),
]


def markdown() -> str:
    lines = ["# PTX instruction coverage", "",
             "Generated from `gpusim/isa/coverage.py` (the tests execute one instance of every row). "
             "Status: every listed type is executed by the functional and timing models.", "",
             "| instruction | types | status |", "|---|---|---|"]
    for name, types, _body in COVERAGE:
        lines.append(f"| `{name}` | {', '.join(types)} | supported |")
    lines += ["", "Not supported (an error names the instruction and its line): tensor-core `mma`/`wmma`, "
              "`ldmatrix`, `cp.async`, `tex`/`suld`/`sust`, `wgmma`, TMA, clusters, `brx.idx`, indirect calls, "
              "`add.cc`/`addc` carry chains, `prmt` modes other than the default, `match.sync`.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(), end="")
