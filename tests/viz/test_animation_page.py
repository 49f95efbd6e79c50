"""The animated page (gpusim/viz/animate.py) and the CLI that writes it and the trace."""

import base64
import json
import re
import zlib

import numpy as np
from chrome_trace_format import problems
from recorded_run import run  # noqa: F401  (the fixture)

from gpusim.cli import main
from gpusim.timing.events import ISSUED
from gpusim.viz import animate


def _array(blob):
    raw = zlib.decompress(base64.b64decode(blob["b64"]))
    return np.frombuffer(raw, np.dtype(blob["dtype"])).reshape(blob["shape"])


def test_page_is_self_contained(run):
    html = animate.page(run.events, "reduce_shared", "tiny")
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html)
    assert "DecompressionStream" in html and "window.gpusimAnim" in html
    assert html.count("<script") == 2          # the data and the player, both inline


def test_embedded_arrays_are_the_recorded_events(run, monkeypatch):
    monkeypatch.setattr(animate, "MAX_FRAMES", 1 << 20)      # every sample its own frame, however long the run
    data = animate.payload(run.events, "k")
    ev = run.events
    assert data["meta"]["frames"] == ev.n_samples <= animate.MAX_FRAMES
    assert np.array_equal(_array(data["blobs"]["warp_state"]), ev.warp_state)
    cta = _array(data["blobs"]["cta"])
    assert np.array_equal(cta[:, 0], ev.cta["cta"]) and np.array_equal(cta[:, 4], ev.cta["end"])
    assert len(_array(data["blobs"]["req"])) == len(ev.requests)


def test_long_runs_are_shown_at_fewer_frames_and_the_page_says_so(run, monkeypatch):
    monkeypatch.setattr(animate, "MAX_FRAMES", 100)
    data = animate.payload(run.events, "k")
    ws = _array(data["blobs"]["warp_state"])
    f = -(-run.events.n_samples // 100)
    assert ws.shape[0] <= 100 and data["meta"]["frame_cycles"] == run.events.interval * f
    # a warp issuing in any merged sample shows as issuing
    assert (ws[0] == ISSUED).sum() == (run.events.warp_state[:f] == ISSUED).any(axis=0).sum()
    assert any("frames" in n for n in data["meta"]["notes"])
    assert np.isclose(_array(data["blobs"]["dram_bytes"]).sum(), run.events.dram_bytes.sum())


def test_cli_writes_trace_and_animation(tmp_path):
    trace, page = tmp_path / "t.json", tmp_path / "a.html"
    assert main(["run", "reduce_shared", "--small", "--gpu", "tiny", "--trace", str(trace)]) == 0
    assert problems(json.loads(trace.read_text())) == []
    assert main(["animate", "reduce_shared", "--small", "--gpu", "tiny", "--html", str(page)]) == 0
    assert "reduce_shared" in page.read_text()


def test_cli_refuses_events_in_functional_mode(tmp_path, capsys):
    code = main(["run", "vecadd", "--small", "--mode", "functional", "--trace", str(tmp_path / "t.json")])
    assert code != 0 and "timing mode" in capsys.readouterr().err
