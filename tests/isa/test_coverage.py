"""The coverage table is generated from the implementation's own tables and cannot drift: the document is
current byte for byte, every opcode is in it, every supported (instruction, type) decodes and executes,
and every rejected row is rejected at load time."""
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.errors import UnsupportedInstruction
from gpusim.isa import opcodes as oc
from gpusim.isa.coverage import REJECTED_FORMS, SYNTHETIC, example, example_kernel, markdown, rows

DOC = Path(__file__).resolve().parents[2] / "docs" / "COVERAGE.md"
ROWS = rows()
SUPPORTED = [(op, t, False) for op, ts, _, _, _, st in ROWS if st == "supported" for t in ts]
SUPPORTED += [(op, t, True) for op, _, ts2, _, _, st in ROWS if st == "supported" for t in ts2]
REJECTED = [(op, t, False, st) for op, ts, _, _, _, st in ROWS if st != "supported" for t in ts]
REJECTED += [(op, t, True, st) for op, _, ts2, _, _, st in ROWS if st != "supported" for t in ts2]


def decode(text):
    return gpusim.load_ptx(text)["k"].decoded


def _id(op, t, second):
    return f"{op}.{t or 'untyped'}" + (" (second type)" if second else "")


def test_coverage_document_is_regenerated_byte_for_byte():
    assert DOC.read_text() == markdown(), (
        "docs/COVERAGE.md is out of date; regenerate it with: python -m gpusim.isa.coverage > docs/COVERAGE.md")


def test_every_opcode_appears_in_the_table():
    listed = {op for op, *_ in ROWS}
    missing = [op for op in oc.OPS if op not in SYNTHETIC and op not in listed]
    assert not missing, f"opcodes missing from the coverage table: {missing}"
    for op in listed:
        assert f"| `{op}` |" in markdown()


def test_every_status_is_supported_or_a_rejection_with_its_reason():
    for op, ts, ts2, _, _, status in ROWS:
        assert status == "supported" or (status.startswith("rejected: ") and len(status) > 20), (op, status)
        assert status == "supported" or ts or ts2


@pytest.mark.parametrize("op, t, second", SUPPORTED, ids=[_id(*c) for c in SUPPORTED])
def test_supported_row_decodes_and_executes(op, t, second):
    text = example(op, t, second)
    k = gpusim.load_ptx(text)["k"]
    decoded_as = {"prefetch": "nop"}.get(op, op)
    assert oc.OP[decoded_as] in k.decoded.ins[:, oc.F_OP], f"no {op} decoded from the example:\n{text}"
    out = np.zeros(8, np.uint64)
    res = gpusim.launch(k, 1, 32, out, mode="functional")
    assert res.metrics["smsp__inst_executed.sum"] >= 8


@pytest.mark.parametrize("op, t, second, status", REJECTED, ids=[_id(*c[:3]) for c in REJECTED])
def test_rejected_row_is_rejected_with_its_reason(op, t, second, status):
    with pytest.raises(UnsupportedInstruction) as e:
        decode(example(op, t, second))
    assert status[len("rejected: "):] in str(e.value)


@pytest.mark.parametrize("what, line, why", REJECTED_FORMS, ids=[r[1].split()[0] for r in REJECTED_FORMS])
def test_rejected_construct_is_rejected_with_its_reason(what, line, why):
    text = example_kernel(line, "b32")
    with pytest.raises(UnsupportedInstruction) as e:
        decode(text)
    assert why in str(e.value)
