"""The H100's L2 keeps less SM-private data than its 50 MB (gpusim/memory/l2.py `usable`): in the
l2_dirty_capacity probe (validation/probes/l2_dirty_capacity.py, data/h100/probe_l2_dirty_capacity.json) each SM
reads its own slice of F bytes four times; the H100 re-reads 0.10 F of it at 36 MB and all of it (3.98 F) at 44 MB.
Here the probe's access order is replayed through the preset's L2 itself (132 SMs in step, a line each in turn)."""
import numpy as np
import pytest

from gpusim.errors import ConfigError
from gpusim.jit import njit
from gpusim.memory import dram, interconnect, l2
from gpusim.presets import apply_overrides, get_preset


@njit
def _sweep(l2s, noc, d, lines_per_sm, passes, nsm):
    now = 0
    for _ in range(passes):
        for i in range(lines_per_sm):
            for sm in range(nsm):
                for k in range(4):
                    l2.l2_access(l2s, noc, d, sm, (sm * lines_per_sm + i) * 4 + k, now, False)
                now += 1


def _reads(mb, **over):
    spec = apply_overrides(get_preset("h100"), over)
    d = dram.make_state(spec.dram)
    _sweep(l2.make_state(spec.l2), interconnect.make_state(spec.noc, spec.n_sm, spec.l2.partitions), d,
           (mb << 20) // spec.n_sm // 128, 4, spec.n_sm)
    return dram.counters(d)["dram__bytes_read.sum"] / (mb << 20)


def test_clean_private_data_of_36_mb_stays_in_the_l2_and_44_mb_is_read_from_dram_on_every_pass():
    assert _reads(36) == pytest.approx(1.0, abs=0.02)        # H100 1.10
    assert _reads(44) > 3.5                                  # H100 3.98


def test_the_whole_50_mb_would_keep_44_mb_which_the_h100_does_not():
    assert _reads(44, **{"l2.usable": 1.0}) == pytest.approx(1.0, abs=0.02)


@pytest.mark.parametrize("bad", [0.0, 1.5, -0.2])
def test_a_usable_share_outside_0_to_1_is_refused_by_its_key(bad):
    with pytest.raises(ConfigError, match="l2.usable"):
        apply_overrides(get_preset("h100"), {"l2.usable": bad}).validate()


def test_the_share_only_shrinks_the_sets_the_ways_stay():
    spec = get_preset("h100").l2
    c = l2.make_state(spec).cache
    assert c.tag.shape[2] == spec.assoc
    assert c.tag.shape[1] == int(spec.size * spec.usable) // (128 * spec.assoc)
    assert np.all(c.tag == -1)
