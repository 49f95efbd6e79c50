"""Generated numba.cuda kernels (tests/fuzz/kernelgen.py: divergent branches, loops with
break/continue, early returns, inlined device functions, shuffles and votes under partial masks,
shared memory between barriers, atomics) give the same bits on gpusim, in functional mode and in
timing mode on the tiny preset, as on numba's CUDA simulator.

GPUSIM_FUZZ_COUNT sets how many seeds CI runs (default 40: numba's compiler takes about a second per
kernel on a loaded machine); bench/bench_differential.py runs thousands.
"""
import os

from differential import check, gen_cases
from kernelgen import Options, generate

COUNT = int(os.environ.get("GPUSIM_FUZZ_COUNT", "40"))
START = int(os.environ.get("GPUSIM_FUZZ_START", "100000"))
CI_OPTIONS = Options(ffs=True)     # everything the generator has (block votes since scoped {.reg} blocks shadow)
KNOWN = {
    # seed: the finding it reproduces (see test_regressions.py); the lead removes it after the fix
}


def test_same_seed_generates_same_kernel_and_inputs():
    a, b = generate(7), generate(7)
    assert a.source == b.source and a.grid == b.grid and a.block == b.block
    assert all((a.inputs[k] == b.inputs[k]).all() for k in a.inputs)
    assert generate(8).source != a.source


def test_generator_emits_every_construct_over_a_few_seeds():
    text = "".join(generate(s).source for s in range(40))
    for construct in ("break", "continue", "return", "while ", "for ", "_sync(0x", "syncthreads()",
                      "syncthreads_", "cuda.atomic.", 'inline="always"', "sh[", "np.float32("):
        assert construct in text, construct


def test_generator_switch_for_real_device_calls_is_off_by_default():
    assert Options().device_inline == "always"
    src = "".join(generate(s, Options(device_inline="never")).source for s in range(20))
    assert "@cuda.jit(device=True)\n" in src


def test_generated_kernels_agree_with_numba_simulator_bit_for_bit():
    seeds = [s for s in range(START, START + COUNT) if s not in KNOWN]
    findings, sim_errors = check(gen_cases(seeds, CI_OPTIONS))
    # every generated kernel has defined behaviour: the simulator (whose warp intrinsics raise on a
    # lane outside the mask) runs them all
    assert sim_errors == [], sim_errors[:3]
    assert findings == [], "\n\n".join(f"seed {f.seed} {f.mode}: {f.detail}\n{f.source}" for f in findings[:3])
