"""The Triton programs as held-out validation cases (`tri_<case>`): the PTX that Triton 3.9 compiled here for
sm_90a (`validation/triton/*.ptx`, built by validation/triton/build.py, launch shape and arguments in its
manifest.json), the very files the H100 ran. Recorded with the suite's Nsight Compute metrics by
validation/triton/record_cases.py (not validation/record.py: these are PTX files, not numba kernels), into
validation/data/h100/tri_<case>.json. Group "programs": never used for fitting.

Each case launches its PTX kernel once with the manifest's grid, block and dynamic shared memory, and checks
its outputs against the program's numpy reference with the program's tolerance. matmul_fp8's output differs
on the H100 (its fp8 wgmma accumulates with reduced precision; validation/triton/README.md): gpusim computes
the reference's result, so its check passes here while the H100's did not.
"""
from __future__ import annotations

import importlib
import json
import sys
from functools import cache
from pathlib import Path

from validation.cases._case import Case

TRITON_DIR = Path(__file__).resolve().parents[1] / "triton"
GROUP = "programs"
PREFIX = "tri_"


@cache
def manifest() -> dict:
    return json.loads((TRITON_DIR / "manifest.json").read_text())


@cache
def kernel_of(name: str):
    """The PTX kernel of manifest entry `name` (parsed once)."""
    from gpusim.kernels import PTXModule
    e = manifest()[name]
    return PTXModule((TRITON_DIR / e["ptx_file"]).read_text(), e["ptx_file"])[e["kernel"]]


def _make_args(e, inp):
    if str(TRITON_DIR) not in sys.path:
        sys.path.insert(0, str(TRITON_DIR))
    from manifest_args import make_args
    return make_args(e, inp)


def _case(name: str, e: dict) -> Case:
    prog = importlib.import_module(e["module"])

    def inputs(seed=0):
        return prog.inputs(e["size"], seed=seed)

    def run(launch, inp):
        args, outs = _make_args(e, inp)
        launch(kernel_of(name), tuple(e["grid"]), (e["block"], 1, 1), *args, shared_mem=e["shared"])
        return outs

    def reference(inp):
        ref = prog.reference(inp)
        return {k: ref[k] for k in (a["key"] for a in e["args"] if a["kind"] == "output")}

    outputs = tuple(a["key"] for a in e["args"] if a["kind"] == "output")
    return Case(NAME=PREFIX + name, GROUP=GROUP, kernel=None, GRID=tuple(e["grid"]), BLOCK=(e["block"], 1, 1),
                DESCRIPTION=f"Triton program {e['program']}: {prog.DESCRIPTION} (size {e['size']}, "
                            f"{e['num_warps']} warps, num_stages {e['num_stages']}; PTX {e['ptx_file']})",
                inputs=inputs, run=run, reference=reference, RTOL=e["rtol"], ATOL=e["atol"], ARGS=(),
                OUTPUTS=outputs, RECORDER="validation/triton/record_cases.py")


CASES = [_case(name, e) for name, e in manifest().items()]
