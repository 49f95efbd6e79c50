"""The Triton programs as held-out validation cases (validation/cases/triton_programs.py): each replays the very
PTX the H100 ran, is recorded with the suite's stall metrics, and is never fitted on. Their cycles, counters and
outputs under both models are checked with the rest of the CI subset (tri_vecadd, tri_sum in
tests/timing/test_validation_h100.py)."""
import hashlib
import json
from pathlib import Path

import pytest

from validation.calibrate import PLAN
from validation.cases.triton_programs import TRITON_DIR, manifest
from validation.replay import DATA, HELD_OUT_GROUPS, top3_stalls

NAMES = list(manifest())


@pytest.mark.parametrize("name", NAMES)
def test_each_triton_case_replays_the_ptx_file_the_h100_ran(name):
    e = manifest()[name]
    rec = json.loads((DATA / f"tri_{name}.json").read_text())
    digest = hashlib.sha256((TRITON_DIR / e["ptx_file"]).read_bytes()).hexdigest()
    assert digest == e["ptx_sha256"] == rec["kernel"]["ptx_sha256"]
    assert rec["grid"] == e["grid"] and rec["block"][0] == e["block"]


@pytest.mark.parametrize("name", NAMES)
def test_each_triton_record_is_held_out_and_carries_the_stall_reasons(name):
    rec = json.loads((DATA / f"tri_{name}.json").read_text())
    assert rec["group"] in HELD_OUT_GROUPS
    assert all(case != rec["case"] for _, case in PLAN)
    pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    stalls = {k[len(pre):-len(post)]: (v["value"], None) for k, v in rec["ncu"]["metrics"].items()
              if k.startswith(pre) and k.endswith(post)}
    assert {"long_scoreboard", "not_selected", "barrier", "wait"} <= set(stalls)
    assert len(top3_stalls(stalls, 0)) == 3
    assert rec["ncu"]["metrics"]["gpc__cycles_elapsed.max"]["value"] > 0
    assert rec["kernel"]["regs_per_thread"] == rec["ncu"]["metrics"]["launch__registers_per_thread"]["value"]


def test_the_triton_cases_are_validation_cases_recorded_by_their_own_script():
    from validation.cases import all_cases
    cases = all_cases()
    for name in NAMES:
        c = cases[f"tri_{name}"]
        assert c.RECORDER == "validation/triton/record_cases.py" and c.GROUP in HELD_OUT_GROUPS
        assert Path(c.RECORDER).name in {p.name for p in TRITON_DIR.glob("*.py")}
