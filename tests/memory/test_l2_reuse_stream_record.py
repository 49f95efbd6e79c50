"""validation/probes/l2_reuse_stream.py's H200 record: a stream used once pushes data used every round out of the
L2 (hot 32 MB beside a 64-MB stream: 21.9 MB read again), which the same hot data alone does not (0), and which an
LRU cache of the H200's size would not either (DEVIATIONS, thirty-fifth pass)."""
import json
from pathlib import Path

from validation.probes import l2_reuse_stream as rs

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_l2_reuse_stream_h200.json"
MB = 1 << 20


def _extra(rec, kind, hot, stream):
    r = rec[(kind, hot, stream)]
    return r["dram__bytes_read.sum"] - (hot + stream) * MB


def test_the_record_holds_every_case_of_the_probe():
    rows = json.loads(DATA.read_text())["results"]
    assert [(r["kernel"], r["hot_mb"], r["stream_mb"]) for r in rows] == rs.CASES
    assert all(r["rounds"] == rs.ROUNDS for r in rows)


def test_a_stream_pushes_reused_data_out_and_more_the_more_there_is():
    rec = {(r["kernel"], r["hot_mb"], r["stream_mb"]): r for r in json.loads(DATA.read_text())["results"]}
    assert abs(_extra(rec, "rd", 32, 0)) < 0.1 * MB            # alone, 32 MB stays
    assert abs(_extra(rec, "rd", 16, 64)) < 1 * MB             # beside the stream, 16 MB stays
    seq = [_extra(rec, "rd", h, 64) for h in (24, 32, 40)]
    assert 5 * MB < seq[0] < seq[1] < seq[2]                   # 8.4, 21.9, 60.1 MB read again
    assert _extra(rec, "rmw", 40, 64) > seq[2]                 # rewritten hot data goes sooner
