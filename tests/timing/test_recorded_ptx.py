"""The numba kernels gpusim validates against the H100 compile here to the PTX the H100 ran (the record's
`kernel.ptx_file`), apart from the compiler's header comments and `.version`: the local NVVM (CUDA 13.5) and the
device's (13.0) emit the same code for them (DEVIATIONS, forty-ninth pass). smem_ld64 is left out: numba emits one of
two variants of its PTX at random from one process to the next."""

import re

import pytest

from validation.cases import all_cases
from validation.ptx import case_ptx, normalize_ptx
from validation.replay import DATA, recorded_cases

CASES = ["prog_vecadd", "ho_scan_exclusive", "prog_sgemm_tiled", "ho_local_hist_mode", "gatomic_per_cta",
         "ho_bitonic_sort_shared", "smem_ld128", "store_s32"]


def _canon(ptx: str) -> str:
    ptx = re.sub(r"^(//.*|\.version .*)$", "", normalize_ptx(ptx), flags=re.M)
    return "\n".join(line for line in ptx.splitlines() if line.strip())


@pytest.mark.parametrize("name", CASES)
def test_the_kernel_compiles_to_the_ptx_the_h100_ran(name):
    rec = next(r for r in recorded_cases() if r["case"] == name)
    case = all_cases()[name]
    ptx, _ = case_ptx(case, case.inputs(0))
    assert _canon(ptx) == _canon((DATA / rec["kernel"]["ptx_file"]).read_text())


def test_the_comparison_sees_a_changed_instruction():
    rec = next(r for r in recorded_cases() if r["case"] == "prog_vecadd")
    text = (DATA / rec["kernel"]["ptx_file"]).read_text()
    assert _canon(text) == _canon(text.replace("// Compiler Build ID", "// another build"))
    assert _canon(text) != _canon(text.replace("add.s64", "sub.s64", 1))
