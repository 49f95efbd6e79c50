"""The coverage table is current and every row of it executes for every listed type."""
import numpy as np
import pytest

import gpusim
from gpusim.isa.coverage import COVERAGE, markdown

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
REGTYPE = {"u8": "u16", "s8": "s16", "-": "b32", "pred": "b32"}
WIDE = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}
IMM = {"f32": ("0f40400000", "0f40000000", "0f3F800000"), "f64": ("0d4008000000000000", "0d4000000000000000",
                                                                 "0d3FF0000000000000")}


def _kernel(body: str, t: str) -> str:
    rt = REGTYPE.get(t, t)
    wide = WIDE.get(rt, rt)
    t2 = "b64" if rt.endswith("64") else "b32"
    a, b, c = IMM.get(rt, ("3", "2", "1"))
    mov = "b16" if rt in ("u16", "s16") else rt
    text = body.replace("{t2}", t2).replace("{t}", t)
    return (HEAD + ".visible .entry k(.param .u64 out)\n{\n"
            f".reg .{rt} %a, %b, %c, %d; .reg .{wide} %D; .reg .u32 %u; .reg .s32 %i; .reg .b16 %h;\n"
            ".reg .pred %p, %q; .reg .u64 %A;\n"
            f"ld.param.u64 %A, [out];\nmov.{mov} %a, {a}; mov.{mov} %b, {b}; mov.{mov} %c, {c}; mov.{mov} %d, {c};\n"
            "mov.s32 %i, 5; setp.eq.s32 %p, %i, 5;\n"
            f"{text}\nret;\n}}\n")


CASES = [(name, t, body) for name, types, body in COVERAGE for t in types]


@pytest.mark.parametrize("name,t,body", CASES, ids=[f"{n}[{t}]" for n, t, _ in CASES])
def test_coverage_row_executes(name, t, body):
    k = gpusim.load_ptx(_kernel(body, t))["k"]
    out = np.zeros(8, np.uint64)
    res = gpusim.launch(k, 1, 32, out, mode="functional")
    assert res.metrics["smsp__inst_executed.sum"] >= body.count(";")


def test_coverage_document_is_generated_from_the_table():
    from pathlib import Path
    doc = Path(__file__).resolve().parents[1] / "docs" / "COVERAGE.md"
    assert doc.read_text() == markdown(), "regenerate: python -m gpusim.isa.coverage > docs/COVERAGE.md"
