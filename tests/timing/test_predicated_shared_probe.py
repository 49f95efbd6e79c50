"""The measurement a model of predicated-off shared accesses will stand on (validation/probes/predicated_shared.py,
validation/data/h100/probe_predicated_shared_h200.json; DEVIATIONS, fiftieth pass): on the H200 an LDS or STS a
warp issues with every lane predicated off still takes one wavefront of the shared pipe, which ncu files as
op_misc. gpusim books none for it yet (its side: `python3 validation/probes/predicated_shared.py --gpusim`)."""
import json
from pathlib import Path

import pytest

RECORD = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_predicated_shared_h200.json"
W = "l1tex__data_pipe_lsu_wavefronts_mem_shared{}.sum"


def _runs():
    rec = json.loads(RECORD.read_text())
    assert "H200" in rec["provenance"]["gpu"] and rec["ncu_cache_control"] == "all"
    return {r["variant"]: r for r in rec["results"]}


def test_the_shared_pipe_takes_a_wavefront_per_access_however_many_lanes_are_on():
    runs = _runs()
    total = {v: r[W.format("")] for v, r in runs.items()}
    assert total["lim 0"] == total["lim 32"] == total["lim 256"]
    for v, r in runs.items():      # the same instructions issue in every form
        assert r["smsp__inst_executed_op_shared_ld.sum"] == runs["lim 256"]["smsp__inst_executed_op_shared_ld.sum"]


def test_the_accesses_with_no_lane_on_are_filed_as_op_misc():
    runs = _runs()
    ld_st = "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum"
    issued = sum(runs["lim 0"][k] for k in ld_st)
    # lim 0: every loop access has no lane on (the stores before the loop have every lane on)
    assert runs["lim 0"][W.format("_op_misc")] == pytest.approx(issued, rel=0.002)
    # lim 32: one warp of eight has its lanes on
    assert runs["lim 32"][W.format("_op_misc")] == pytest.approx(issued * 7 / 8, rel=0.002)
    assert runs["lim 256"][W.format("_op_misc")] < 0.001 * issued


def test_with_no_lane_on_the_kernel_is_barely_faster():
    runs = _runs()
    cycles = {v: r["gpc__cycles_elapsed.max"] for v, r in runs.items()}
    assert 0.85 < cycles["lim 0"] / cycles["lim 256"] < 0.95
