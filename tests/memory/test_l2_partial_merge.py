"""A sector the L2 holds only some words of is merged with DRAM's copy before it is written back or read
(gpusim/memory/l2.py): on an H200 a kernel that writes one word of each 32-B sector of 96 MB reads 94 MB from
DRAM and writes 87 MB; whole sectors, and sectors whose 8 words 8 warps write, read (almost) none
(validation/probes/dram_partial.py)."""
import numpy as np
from numba import cuda

import gpusim
from gpusim.memory.cache import fill, make_cache, take_part, write_words
from validation.probes.dram_partial import pattern_store as pattern


def test_a_sector_written_from_nothing_holds_only_its_words_until_all_eight_are_written():
    c = make_cache(1, 128 * 4, 4)
    fill(c, 0, 8, 0, 0, True)
    write_words(c, 0, 8, 0b1, False)                  # the first word, into a sector that held no data
    for j in range(1, 7):
        write_words(c, 0, 8, 1 << j, True)
    assert c.part[0].max() == 0x7F                     # seven of eight words
    write_words(c, 0, 8, 0x80, True)
    assert c.part[0].max() == 0                        # whole
    fill(c, 0, 9, 0, 0, False)                         # a sector DRAM filled ...
    write_words(c, 0, 9, 0b1, True)                    # ... stays whole under a partial write
    assert not take_part(c, 0, 9)
    write_words(c, 0, 10, 0b10, False)
    assert take_part(c, 0, 10) and not take_part(c, 0, 10)      # merged once


def by_warps(buf, group, stride, n):
    k = cuda.grid(1)
    while k < n:          # n a multiple of the grid's threads: every thread reaches each barrier
        w = k >> 5
        buf[(((w >> 3) << 5) + (k & 31)) * 8 + (w & 7)] = k
        k += cuda.gridsize(1)
        cuda.syncthreads()        # the CTA's 8 warps in step: each sector's words written together


def _dram(kernel, group, stride, **l2):
    words = (1 << 20) // 4                             # 1 MiB, four times the L2 below
    gpu = gpusim.presets.apply_overrides(gpusim.presets.get_preset("h100"),
                                         {"n_sm": 2, "gigathread.gpcs": 1, "l2.size": 256 << 10, **l2})
    buf = np.full(words, -1, np.int32)
    n = words // stride * group
    m = gpusim.launch(cuda.jit(kernel), 8, 256, buf, np.int64(group), np.int64(stride), np.int64(n),
                      mode="timing", model="ptx", gpu=gpu).metrics
    return m["dram__bytes_read.sum"], m["dram__bytes_write.sum"]


def test_sectors_written_back_with_words_missing_are_read_from_dram_first_and_whole_ones_are_not():
    rd, wr = _dram(pattern, 1, 8)                      # one word of each sector
    assert wr > 0.6 * (1 << 20) and rd == wr
    rd, wr = _dram(pattern, 8, 16)                     # whole sectors, half of each 64 B
    assert wr > 0.3 * (1 << 20) and rd == 0
    # every word, a sector's 8 from the 8 warps of a CTA kept in step: the sectors are whole before they leave
    rd, wr = _dram(by_warps, 1, 1)
    assert wr > 0.6 * (1 << 20) and rd == 0
