"""Probe l1_sweep (validation/probes/l1_sweep.py): SM-private working sets read over and over by one CTA of 1024
threads an SM. Its H200 record and gpusim's side of it."""

import json
from pathlib import Path

from gpusim.presets import get_preset
from validation.probes import l1_sweep

RECORD = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_l1_sweep_h200.json"


def _record():
    return {(r["kernel"], r["kb"], r["stream_kb"]): r for r in json.loads(RECORD.read_text())["results"]}


def test_the_record_holds_every_case_and_the_driver_gave_1024_thread_ctas_the_8_kib_carveout():
    rec = _record()
    assert set(rec) == set(l1_sweep.CASES)
    for (kind, _, _), r in rec.items():
        assert r["launch__shared_mem_config_size"] == (233472 if kind == "cycs" else 8192)
    # what fits the 248-KiB L1 is read from it on every pass after the first (7 of 8: 87.5%)
    assert all(rec[("cyc", kb, 0)]["l1tex__t_sector_hit_rate.pct"] > 87 for kb in (96, 128, 192, 224))
    assert rec[("cyc", 512, 0)]["l1tex__t_sector_hit_rate.pct"] < 1


def test_a_sweep_of_240_kib_fits_gpusims_l1_as_it_fits_the_h200s_and_would_not_fit_a_224_kib_one():
    rec = _record()[("cyc", 240, 0)]
    got = l1_sweep.gpusim_case("cyc", 240, grid=2)
    assert got["correct"]
    assert got["launch__shared_mem_config_size"] == rec["launch__shared_mem_config_size"] == 8192
    assert got["l1tex__t_sector_hit_rate.pct"] > 87 and rec["l1tex__t_sector_hit_rate.pct"] > 80
    small = l1_sweep.gpusim_case("cyc", 240, grid=2, gpu=get_preset("h100").with_(**{"l1.carveouts": "32"}))
    assert small["launch__shared_mem_config_size"] == 32768
    assert small["l1tex__t_sector_hit_rate.pct"] < 70
