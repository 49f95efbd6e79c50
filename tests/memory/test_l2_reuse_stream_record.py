"""validation/probes/l2_reuse_stream.py's H200 record: a stream used once pushes data used every round out of the
L2 (hot 32 MB beside a 64-MB stream: 21.8 MB read again), which the same hot data alone does not (0). Read past
the L1 (`cg`) the L2 keeps it as an LRU cache does up to 24 MB: what the L1 hits, the L2 does not see used
(DEVIATIONS, thirty-sixth pass)."""
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


def test_read_past_the_l1_the_l2_keeps_what_reads_through_the_l1_lose():
    rec = {(r["kernel"], r["hot_mb"], r["stream_mb"]): r for r in json.loads(DATA.read_text())["results"]}
    assert _extra(rec, "cg", 24, 64) < 1 * MB < 5 * MB < _extra(rec, "rd", 24, 64)     # 0.5 against 8.1 MB
    assert _extra(rec, "cg", 32, 64) < _extra(rec, "rd", 32, 64)                     # 7.8 against 21.8
