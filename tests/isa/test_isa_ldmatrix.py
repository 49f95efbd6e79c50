"""ldmatrix / stmatrix .m8n8 .b16 against the PTX ISA's fragment layout, in functional and timing mode.

Matrix j's row r lives at a shuffled 16-byte slot of shared memory whose address lane 8j + r gives;
lane l's register j holds (row l/4, columns 2(l%4), 2(l%4)+1) of matrix j, low half first, or the
transposed matrix's with .trans."""
import numpy as np
import pytest
from conftest import run_lanes

rng = np.random.default_rng(7)
DECLS = "\t.shared .align 16 .b8 sm[512];\n\t.reg .u32 %sb, %off, %addr;\n\t.reg .u64 %x, %y, %g, %h;"
# lane l stores global row l at shared slot p[l], and gives that slot's address
STAGE = """
    mov.u32 %sb, sm;
    shl.b32 %off, %p, 4;
    add.u32 %addr, %sb, %off;
"""


def expected_registers(rows, nmat, trans):
    """rows: uint16[32, 8] (matrix j row r = rows[8j + r]) -> uint32[nmat, 32] per register and lane."""
    out = np.zeros((nmat, 32), np.uint32)
    for j in range(nmat):
        mat = rows[8 * j:8 * j + 8]
        for lane in range(32):
            r, c = lane // 4, 2 * (lane % 4)
            lo, hi = (mat[c, r], mat[c + 1, r]) if trans else (mat[r, c], mat[r, c + 1])
            out[j, lane] = int(lo) | (int(hi) << 16)
    return out


@pytest.mark.parametrize("nmat", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_gives_each_lane_its_fragment(nmat, trans):
    rows = rng.integers(0, 1 << 16, (32, 8)).astype(np.uint16)
    slots = rng.permutation(32).astype(np.uint32)
    regs = ", ".join(f"%d{j}" for j in range(nmat))
    body = STAGE + f"""
    ld.param.u64 %g, [arr_m];
    mul.wide.u32 %x, %z_tid, 16;
    add.s64 %g, %g, %x;
    ld.global.v2.u64 {{%x, %y}}, [%g];
    st.shared.v2.u64 [%addr], {{%x, %y}};
    bar.sync 0;
    ldmatrix.sync.aligned.m8n8.x{nmat}{'.trans' if trans else ''}.shared.b16 {{{regs}}}, [%addr];
"""
    out = run_lanes(body, ins={"p": ("u32", slots)}, outs={f"d{j}": "u32" for j in range(nmat)}, decls=DECLS,
                    arrays={"m": rows.copy()})
    want = expected_registers(rows, nmat, trans)
    for j in range(nmat):
        assert np.array_equal(out[f"d{j}"], want[j]), f"register {j}"
    assert out["_result"].metrics["smsp__inst_executed_op_ldsm.sum"] == 1


@pytest.mark.parametrize("nmat", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix_writes_the_rows_ldmatrix_would_read(nmat, trans):
    slots = rng.permutation(32).astype(np.uint32)
    vals = {f"v{j}": ("u32", rng.integers(0, 1 << 32, 32).astype(np.uint32)) for j in range(nmat)}
    regs = ", ".join(f"%v{j}" for j in range(nmat))
    body = STAGE + f"""
    mov.u64 %x, 0;
    st.shared.v2.u64 [%addr], {{%x, %x}};
    bar.sync 0;
    stmatrix.sync.aligned.m8n8.x{nmat}{'.trans' if trans else ''}.shared.b16 [%addr], {{{regs}}};
    bar.sync 0;
    ld.shared.v2.u64 {{%x, %y}}, [%addr];
    ld.param.u64 %g, [arr_m];
    mul.wide.u32 %h, %z_tid, 16;
    add.s64 %g, %g, %h;
    st.global.v2.u64 [%g], {{%x, %y}};
"""
    rows = np.zeros((32, 8), np.uint16)
    out = run_lanes(body, ins={"p": ("u32", slots), **vals}, decls=DECLS,
                    arrays={"m": rows})
    got = out["m"]
    # the inverse of ldmatrix: loading these rows back gives each lane the registers it stored
    want = np.stack([vals[f"v{j}"][1] for j in range(nmat)])
    assert np.array_equal(expected_registers(got, nmat, trans), want)
    assert not got[8 * nmat:].any()
    assert out["_result"].metrics["smsp__inst_executed_op_stsm.sum"] == 1


def test_ldmatrix_misaligned_row_address_faults():
    body = STAGE + "    add.u32 %addr, %addr, 4;\n    ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%d0}, [%addr];\n"
    with pytest.raises(Exception, match="misaligned"):
        run_lanes(body, ins={"p": ("u32", np.arange(32, dtype=np.uint32))}, outs={"d0": "u32"}, decls=DECLS,
                  mode="functional")


def test_ldmatrix_from_a_generic_address_outside_shared_memory_faults():
    body = "    ld.param.u64 %g, [arr_m];\n    ldmatrix.sync.aligned.m8n8.x1.b16 {%d0}, [%g];\n"
    with pytest.raises(Exception, match="out-of-bounds shared ldmatrix"):
        run_lanes(body, outs={"d0": "u32"}, decls=DECLS, arrays={"m": np.zeros(64, np.uint16)}, mode="functional")


def test_cp_async_out_of_bounds_source_names_the_instruction():
    body = ("    mov.u32 %sb, sm;\n    ld.param.u64 %g, [arr_m];\n    add.s64 %g, %g, 4096;\n"
            "    cp.async.cg.shared.global [%sb], [%g], 16;\n")
    with pytest.raises(Exception, match="out-of-bounds global cp.async"):
        run_lanes(body, decls=DECLS, arrays={"m": np.zeros(64, np.uint16)}, mode="functional")


def test_racecheck_says_which_ldmatrix_lines_it_does_not_check():
    from conftest import build_kernel

    import gpusim
    body = STAGE + "    bar.sync 0;\n    ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%d0}, [%addr];\n"
    text = build_kernel(body, {"p": ("u32", 0)}, {"d0": "u32"}, decls=DECLS)
    k = gpusim.load_ptx(text)["k"]
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if "ldmatrix" in t)
    res = gpusim.launch(k, 1, 32, np.zeros(32, np.uint32), np.arange(32, dtype=np.uint32), mode="functional",
                        check="racecheck")
    assert res.sanitizer.untracked == [line]
    assert any("not checked" in x and str(line) in x for x in res.sanitizer.lines())
