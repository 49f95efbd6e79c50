"""L2 write sectors as ncu counts them (`lts__t_sectors_op_write.sum`, gpusim/memory/l2.py): a sector written
to the near partition once, one written to the far partition at a slice of each (twice), so a kernel whose
writes spread over both partitions counts about 1.5 per written sector, as ncu does on the H100 (1.50 on 36
of 40 recorded kernels; 1.50 for prog_transpose_naive and 1.53 for prog_vecadd). Checked on the L2 unit and
on a store kernel."""

import numpy as np

import gpusim
from gpusim.memory.l2 import l2_access, slice_of
from gpusim.presets import H100
from gpusim.timing.state import make_units

TINY_PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"


def _units():
    return make_units(H100, gpusim.load_ptx(TINY_PTX)["k"].decoded, 4, 1)


def _partition_of_slice(sector):
    n = H100.l2.slices
    return slice_of(sector, n) * H100.l2.partitions // n


def test_a_write_to_the_far_partition_counts_at_a_slice_of_each():
    U = _units()
    near = next(s for s in range(0, 4096, 4) if _partition_of_slice(s) == 0)     # SM 0 is in partition 0
    far = next(s for s in range(0, 4096, 4) if _partition_of_slice(s) == 1)
    l2_access(U.l2, U.noc, U.dram, 0, near, 100, True, False)
    assert gpusim_count(U) == 1
    l2_access(U.l2, U.noc, U.dram, 0, far, 200, True, False)
    assert gpusim_count(U) == 3
    l2_access(U.l2, U.noc, U.dram, 0, near + 1, 300, False, False)               # a read counts nothing
    assert gpusim_count(U) == 3


def gpusim_count(U):
    from gpusim.memory.l2 import counters
    return counters(U.l2)["lts__t_sectors_op_write.sum"]


def test_a_store_kernel_counts_about_one_and_a_half_write_sectors_per_sector_written():
    from validation.cases.stores import strided_store
    out = np.zeros(264 * 256 * 4 * 32, np.int32)
    r = gpusim.launch(strided_store, 264, 256, np.int64(32), np.int64(4), out, gpu=H100, mode="timing")
    written = r.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]     # 32 lines per store: none merge
    assert 1.4 <= r.metrics["lts__t_sectors_op_write.sum"] / written <= 1.6
