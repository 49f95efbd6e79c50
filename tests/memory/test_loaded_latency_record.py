"""validation/probes/loaded_latency.py's H200 record: one dependent load's latency on a busy GPU. Its DRAM latency
spreads over hundreds of cycles (p10-p90 618-1,102), where gpusim's under a like load spreads over tens
(DEVIATIONS, thirty-sixth pass)."""
import json
from pathlib import Path

from validation.probes import loaded_latency as ll

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_loaded_latency_h200.json"


def _rows():
    return {r["mode"]: r for r in json.loads(DATA.read_text())["results"]}


def test_the_record_holds_every_mode_of_the_probe():
    assert set(_rows()) == set(ll.MODES)


def test_a_busy_dram_spreads_a_loads_latency_far_more_than_busy_l2_slices():
    rows = _rows()
    p = {m: r["p01_p10_p50_p90_p99"] for m, r in rows.items()}
    assert p["idle"][2] < p["l2"][2] < p["dram"][2]                  # medians: 358 < 384 < 808
    assert p["dram"][3] - p["dram"][1] > 4 * (p["l2"][3] - p["l2"][1])  # p10-p90: 484 against 82 cycles
    assert rows["dram"]["std"] > 150 > 60 > rows["l2"]["std"]
