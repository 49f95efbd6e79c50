"""The CUDA C example programs (nvcc's PTX, programs/cuda/) against the H200 of the lent device
(validation/data/h100/probe_cuda_programs_h200.json, validation/probes/cuda_programs.py): gpusim's third front end
checked on a GPU, held out (nothing is fitted on it). On all ten gpusim's SASS model counts the H200's global load
and store sectors and carve-out exactly, its registers (ncu reads 16 for kernels of 8 to 15: reduce_cg 15,
histogram 14) and its instructions within 2.6% (gemm_mma -2.5%, the rest within 0.6%); shared-load bank conflicts
within 0.4% on scan and bitonic_sort, but not gemm_mma's ldmatrix (2.1M against 3.1M) nor the few thousand of
matmul_tiled and transpose_tiled (gpusim 0). Cycles are not yet close on all of them (MAPE 17.2%, transpose_tiled
+49.6%, histogram_dsm -41.8%: validation/DEVIATIONS.md, fiftieth and fifty-first passes); two cheap ones are held
here to the error they have now, plus or minus five points, so that a change that moves them shows (scan_cu was
-27.7% until a warp that jumps over the tree's predicated steps took their shared accesses, fifty-first pass)."""
import json
from pathlib import Path

import pytest

from gpusim import sassmap
from gpusim.presets import apply_overrides, get_preset

RECORD = Path(__file__).resolve().parents[2] / "validation" / "data" / "h100" / "probe_cuda_programs_h200.json"
HAVE_TOOLS = sassmap.ptxas.find() is not None and sassmap.find_nvdisasm() is not None
pytestmark = pytest.mark.skipif(not HAVE_TOOLS, reason="no ptxas/nvdisasm (the sass or triton extra)")
# the error each has now (gpusim, SASS model, against the H200)
NOW = {"transpose_naive_cu": +0.079, "scan_cu": -0.049}


def _h200(name):
    return next(r for r in json.loads(RECORD.read_text())["results"] if r["variant"] == name)


def _gpusim(name):
    import gpusim
    from programs.argspec import parse_args
    from validation.probes.cuda_programs import CUDA_DIR, H200_MEMORY, VARIANTS
    _, ptx, kernel, grid, block, specs = next(v for v in VARIANTS if v[0] == name)
    gpu = apply_overrides(get_preset("h100"), H200_MEMORY)
    k = gpusim.load_ptx(str(CUDA_DIR / ptx))[kernel]
    return gpusim.launch(k, grid, block, *parse_args(specs, seed=0), gpu=gpu, mode="timing", model="sass")


@pytest.mark.parametrize("name", list(NOW))
def test_nvcc_programs_count_what_the_h200_counts_and_keep_their_cycle_error(name):
    hw, r = _h200(name), _gpusim(name)
    m = r.metrics
    for key in ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                "launch__shared_mem_config_size"):
        assert m[key] == hw[key], key
    assert m["launch__registers_per_thread"] == hw["launch__registers_per_thread"]
    conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
    assert m[conflicts] == pytest.approx(hw[conflicts], rel=0.01, abs=1)
    assert m["smsp__inst_executed.sum"] == pytest.approx(hw["smsp__inst_executed.sum"], rel=0.025)
    err = r.cycles / hw["gpc__cycles_elapsed.max"] - 1
    assert abs(err - NOW[name]) <= 0.05, f"{name}: {100 * err:+.1f}% (was {100 * NOW[name]:+.1f}%)"
