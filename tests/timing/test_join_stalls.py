"""A join's hold is sampled as the H200 samples it: wait, then branch_resolving, then wait; not all of it as
branch_resolving.

The join_stalls probe (validation/probes/join_stalls.py, probe_join_stalls_h200.json) ran bsync_cost's loop under
ncu. Per trip beyond the plain loop, a skipped `if` costs the H200 11.6 cycles of branch_resolving and 9.7 of
wait, one every lane runs 8.2 and 36.2; its per-SASS samples put 5.3 cycles of wait on the BSYNC and then 7.6 of
branch_resolving and 4.4 of wait on the instruction after it. gpusim sampled its whole 17-cycle hold
(`pipes.lat_bsync`) as branch_resolving: 17.4 and 19.3 cycles a trip, wait 6.3 and 30.2. The split
(`pipes.join_wait_head` / `join_wait_tail`) moves only the reasons: the cycles stay the same."""

import json
from pathlib import Path

from validation.probes.join_stalls import in_gpusim

DATA = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_join_stalls_h200.json"


def _forms(*sets: str) -> dict:
    """The probe's forms in gpusim (one SM), by name; `sets`: pipes overrides, KEY=VALUE."""
    return {r["form"]: r for r in in_gpusim([a for kv in sets for a in ("--set", f"pipes.{kv}")])}


def _beyond_plain(rows, form, reason):
    return rows[form][reason] - rows["plain"][reason]


def test_a_joins_hold_is_sampled_as_the_h200_samples_it_within_four_cycles_a_trip():
    hw = {r["form"]: r for r in json.loads(DATA.read_text())["results"]}
    sim = _forms()
    for form in ("skipped", "taken"):
        for reason in ("branch_resolving", "wait"):
            got, want = _beyond_plain(sim, form, reason), _beyond_plain(hw, form, reason)
            assert abs(got - want) < 4.0, (form, reason, got, want)


def test_sampled_all_as_branch_resolving_the_skipped_form_is_off_by_more_and_the_cycles_do_not_change():
    hw = {r["form"]: r for r in json.loads(DATA.read_text())["results"]}
    split, whole = _forms(), _forms("join_wait_head=0", "join_wait_tail=0")
    for form in ("skipped", "taken"):
        assert split[form]["cycles"] == whole[form]["cycles"], form
        err_split = abs(_beyond_plain(split, form, "branch_resolving") - _beyond_plain(hw, form, "branch_resolving"))
        err_whole = abs(_beyond_plain(whole, form, "branch_resolving") - _beyond_plain(hw, form, "branch_resolving"))
        assert err_whole > err_split + 4, (form, err_whole, err_split)
