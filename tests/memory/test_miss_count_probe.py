"""Probe miss_count (validation/probes/miss_count.py): one SM's loads of whole lines, W warps of 16 fresh lines a
round each, from DRAM and from the L2. Its H200 record and gpusim's side of it: past about a thousand sectors a
round the SM takes its misses' data at about one sector (32 B) a cycle, from the L2 as from DRAM; gpusim's rounds
are within 12% of the H200's, and with 512 miss registers (`l1.mshrs`, 1024) its DRAM round would be 1.4x longer."""

import json
from pathlib import Path

import pytest

from gpusim.presets import get_preset
from validation.probes import miss_count

RECORD = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_miss_count_h200.json"


def _record():
    return {(r["source"], r["warps"]): r["cycles_per_round_median"] for r in json.loads(RECORD.read_text())["runs"]}


def test_the_record_shows_a_rate_of_about_one_sector_a_cycle_past_a_thousand_sectors():
    rec = _record()
    assert set(rec) == {(s, w) for s in ("dram", "l2", "l2_in_kernel") for w in miss_count.WARPS}
    for source in ("l2", "l2_in_kernel"):
        # 1024 more sectors a round cost 800-1,100 more cycles: not the 512 of a 64-B/cycle port
        assert 800 < rec[(source, 32)] - rec[(source, 16)] < 1100
        assert rec[(source, 4)] < 1000       # a few hundred sectors ride on one L2 round trip


@pytest.mark.parametrize("source", ["dram", "l2_in_kernel"])
def test_gpusims_2048_sector_round_is_within_12_percent_of_the_h200s(source):
    got = miss_count.gpusim_round(source, 32)
    assert abs(got / _record()[(source, 32)] - 1) < 0.12


def test_half_the_miss_registers_would_make_the_dram_round_half_again_as_long():
    # the H200 keeps 2048 sectors in flight at its rate: 512 registers are too few, gpusim's 1024 enough
    few = get_preset("h100").with_(**{"l1.mshrs": 512})
    assert miss_count.gpusim_round("dram", 32, few) > 1.4 * _record()[("dram", 32)]
