"""The L2 writes dirty data back before it must (gpusim/memory/l2.py `dirty_ways`): on the H100 a sweep that
rewrites 24 MB four times writes 0.84 of it to DRAM, 40 MB 3.32 (validation/probes/l2_dirty_capacity.py), where
an L2 that writes back only what it evicts writes nothing below 50 MB."""
import numpy as np
from numba import cuda

import gpusim
from gpusim.memory.cache import clean_oldest, fill, make_cache, probe


def test_a_set_over_its_dirty_limit_cleans_its_least_recently_used_other_dirty_line_and_keeps_it():
    c = make_cache(1, 128 * 4, 4)            # one set of 4 ways
    for t, line in enumerate((1, 2, 3)):
        fill(c, 0, 4 * line, 0, 10 * t, True)
    fill(c, 0, 4 * 2 + 1, 0, 50, True)       # line 2 used again, a second sector dirty
    assert clean_oldest(c, 0, 4 * 3, 3) == 0         # 3 dirty lines: within a limit of 3
    assert clean_oldest(c, 0, 4 * 3, 2) == 1         # over 2: line 1 (the least recently used) is cleaned
    assert probe(c, 0, 4 * 1, 60) >= 0               # and kept
    assert clean_oldest(c, 0, 4 * 3, 2) == 0         # 2 dirty lines left
    assert clean_oldest(c, 0, 4 * 3, 1) == 2         # next: line 2, its two sectors, never line 3 itself
    assert clean_oldest(c, 0, 4 * 3, 0) == 0         # only the written line is left dirty


def sweep(buf, passes):
    for k in range(passes):
        i = cuda.grid(1)
        while i < buf.size:
            buf[i] = i + k
            i += cuda.gridsize(1)


def _written(n_words, **l2):
    gpu = gpusim.presets.apply_overrides(gpusim.presets.get_preset("h100"),
                                         {"n_sm": 2, "gigathread.gpcs": 1, "l2.size": 1 << 20, "l2.usable": 1.0,
                                          **l2})
    buf = np.zeros(n_words, np.int32)
    r = gpusim.launch(cuda.jit(sweep), 4, 256, buf, np.int64(4), mode="timing", model="ptx", gpu=gpu)
    assert (buf == np.arange(n_words) + 3).all()
    return r.metrics["dram__bytes_write.sum"] / (4 * n_words)


def test_a_rewritten_sweep_below_the_l2_s_size_is_written_back_once_it_outgrows_the_sets_dirty_limits():
    small, large = (1 << 20) // 4 // 4, (1 << 20) * 3 // 4 // 4        # a quarter and three quarters of the L2
    assert _written(small) == 0
    assert _written(large) > 1.5                     # most lines written back on every pass
    assert _written(large, **{"l2.dirty_ways": 16, "l2.dirty_spread": 1}) == 0     # only what is evicted
