"""A 16x8x16 GEMM tile as CUTLASS-style kernels write it: cp.async global -> shared, wait_group, bar.sync,
ldmatrix.x4 (A, row-major) and ldmatrix.x2 (B stored n-major, i.e. column-major), mma.m16n8k16, in both
modes: D equals numpy's A @ B exactly (small integers: every partial sum is exact)."""
import numpy as np
import pytest
from conftest import run_lanes

BODY = """
    ld.param.u64 %ga, [arr_a];
    mul.wide.u32 %off, %z_tid, 16;
    add.s64 %ga, %ga, %off;
    mov.u32 %sa, sA;
    mul.lo.u32 %t, %z_tid, 16;
    add.u32 %addr, %sa, %t;
    cp.async.cg.shared.global [%addr], [%ga], 16;
    setp.lt.u32 %z_p, %z_tid, 16;
    ld.param.u64 %gb, [arr_b];
    add.s64 %gb, %gb, %off;
    mov.u32 %sb, sB;
    add.u32 %addr, %sb, %t;
    @%z_p cp.async.ca.shared.global [%addr], [%gb], 16;
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    and.b32 %row, %z_tid, 15;
    shr.u32 %col, %z_tid, 4;
    mul.lo.u32 %row, %row, 32;
    mul.lo.u32 %col, %col, 16;
    add.u32 %addr, %sa, %row;
    add.u32 %addr, %addr, %col;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%a0, %a1, %a2, %a3}, [%addr];
    and.b32 %row, %z_tid, 7;
    shr.u32 %col, %z_tid, 3;
    and.b32 %col, %col, 1;
    mul.lo.u32 %row, %row, 32;
    mul.lo.u32 %col, %col, 16;
    add.u32 %addr, %sb, %row;
    add.u32 %addr, %addr, %col;
    ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%b0, %b1}, [%addr];
    mov.f32 %c, 0f00000000;
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1},
        {%c, %c, %c, %c};
"""
DECLS = "\t.shared .align 16 .b8 sA[512];\n\t.shared .align 16 .b8 sB[256];"
REGS = {**{n: "u32" for n in ("sa", "sb", "t", "row", "col", "addr", "a0", "a1", "a2", "a3", "b0", "b1")},
        "ga": "u64", "gb": "u64", "off": "u64", "c": "f32"}


@pytest.mark.parametrize("seed", [1, 2])
def test_cp_async_ldmatrix_mma_tile_computes_a_times_b(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 8)).astype(np.float16)
    out = run_lanes(BODY, outs={f"d{i}": "f32" for i in range(4)}, regs=REGS, decls=DECLS,
                    arrays={"a": a.view(np.uint16).copy(), "b": np.ascontiguousarray(b.T).view(np.uint16).copy()})
    d = np.zeros((16, 8), np.float32)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for e in range(4):
            d[g + 8 * (e >> 1), 2 * t + (e & 1)] = out[f"d{e}"][lane]
    assert np.array_equal(d, a.astype(np.float32) @ b.astype(np.float32))
    m = out["_result"].metrics
    assert m["smsp__inst_executed_op_ldgsts.sum"] == 2 and m["smsp__inst_executed_op_ldsm.sum"] == 2
