"""The Chrome / Perfetto trace of recorded events (gpusim/viz/trace.py)."""

import json

import numpy as np
import pytest
from chrome_trace_format import problems
from recorded_run import run  # noqa: F401  (the fixture)

import gpusim
from gpusim.presets import TINY
from gpusim.viz import trace


def test_trace_conforms_to_the_trace_event_format(run, tmp_path):
    path = trace.write(run, tmp_path / "t.json")
    doc = json.loads(path.read_text())
    assert problems(doc) == []


def test_the_checker_catches_what_perfetto_rejects():
    bad = {"traceEvents": [{"name": "a", "ph": "B", "pid": 1, "tid": 1, "ts": 0},
                           {"name": "b", "ph": "X", "pid": 1, "tid": 2, "ts": 0, "dur": -1},
                           {"name": "c", "ph": "C", "pid": 1, "tid": 0, "ts": 1, "args": {"v": "x"}},
                           {"name": "d", "ph": "X", "pid": 1, "tid": 3, "ts": 0, "dur": 5},
                           {"name": "e", "ph": "X", "pid": 1, "tid": 3, "ts": 3, "dur": 5}]}
    found = " ".join(problems(bad))
    for what in ("without an E", "non-negative dur", "counter args", "overlaps"):
        assert what in found


def test_each_cta_is_a_slice_on_its_sm_at_the_clock(run):
    doc = trace.chrome_trace(run.events, run.kernel)
    ctas = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["name"].startswith("CTA ")]
    assert len(ctas) == len(run.events.cta)
    clk = TINY.clock_mhz
    first = min(ctas, key=lambda e: e["ts"])
    row = run.events.cta[np.argmin(run.events.cta["start"])]
    assert first["ts"] == pytest.approx(row["start"] / clk, abs=1e-3)
    assert first["pid"] == row["sm"] + 1
    assert doc["otherData"]["clock_mhz"] == clk and "MHz" in doc["otherData"]["time_unit"]


def test_counter_tracks_carry_the_recorded_bytes(run):
    doc = trace.chrome_trace(run.events, run.kernel)
    dram = [e["args"]["GB/s"] for e in doc["traceEvents"] if e["ph"] == "C" and e["name"] == "DRAM bandwidth"]
    ev = run.events
    gbytes = sum(dram) * ev.interval / (TINY.clock_mhz * 1e6)
    assert gbytes * 1e9 == pytest.approx(ev.dram_bytes.sum(), rel=1e-3)
    names = {e["name"] for e in doc["traceEvents"] if e["ph"] == "C"}
    assert names == {"L2 bandwidth", "DRAM bandwidth", "L1 misses in flight", "resident warps"}


def test_subpartition_tracks_show_issue_and_stalls(run):
    doc = trace.chrome_trace(run.events, run.kernel)
    sp = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["tid"] >= trace.SP_TID0]
    assert sum(e["args"]["instructions"] for e in sp) == run.warp_instructions
    assert {"issue", "barrier"} <= {e["name"] for e in sp}


def test_a_run_without_events_is_refused(tmp_path):
    k = gpusim.load_ptx(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n")["k"]
    r = gpusim.launch(k, 1, 32, gpu=TINY)
    with pytest.raises(ValueError, match="events=True"):
        trace.write(r, tmp_path / "x.json")
