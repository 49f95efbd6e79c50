"""Minimised reproducers of what the differential tester (tests/fuzz/kernelgen.py) found: each runs
on gpusim, in functional mode and in timing mode on the tiny preset, and must give the bits numba's
CUDA simulator gives (run once for all of them, in tests/fuzz/cudasim_worker.py)."""
import numpy as np
import pytest
from differential import differences, run_cudasim, run_gpusim
from kernelgen import Case, compile_kernel
from numba import cuda

PROLOGUE = '''import numpy as np
from numba import cuda

def kernel(ain, fin, out_i, out_f, acc):
    tid = np.int64(cuda.threadIdx.x)
    gid = np.int64(cuda.blockIdx.x) * np.int64(cuda.blockDim.x) + tid
    n = np.int64(ain.shape[0])
'''
EPILOGUE = '''    out_i[gid * 4 + 0] = i0
    out_i[gid * 4 + 1] = i1
    out_i[gid * 4 + 2] = i2
    out_i[gid * 4 + 3] = i3
    out_f[gid * 2 + 0] = f0
    out_f[gid * 2 + 1] = f1
'''
LOADS = '''    i0 = np.int64(ain[(gid * 1 + 0) % n])
    i1 = np.int64(ain[(gid * 3 + 1) % n])
    i2 = np.int64(ain[(gid * 5 + 2) % n])
    i3 = np.int64(ain[(gid * 7 + 3) % n])
    f0 = fin[(gid * 1 + 0) % n]
    f1 = fin[(gid * 2 + 3) % n]
'''

CASES = {
    # seed 18: NVVM put a block after the kernel's `ret` (the `% n` guard for n == 0); reconvergence
    # points became pc 0, so the lanes split by the 64/32-bit division fast path of `//` never met
    # again and the second barrier deadlocked ("68 of 128 live threads arrived"). Fixed on main by
    # 0cc3408 (CFG: a kernel's ret in mid-function ends its path).
    "ret_mid_function_then_divergent_division_between_barriers": (PROLOGUE + LOADS + '''\
    sh = cuda.shared.array(128, np.int32)
    sh[tid] = np.int32(((i3 & 16)) & 0xFFFF)
    cuda.syncthreads()
    cuda.atomic.max(acc, 8 + ((np.int64(1 if f1 > f1 else 0)) & 7), ((i2 // ((i2 & 7) + 1))) & 0xFF)
    cuda.syncthreads()
''' + EPILOGUE, 1, 128),
    # seed 29: ballot_sync's result is int32 in numba-cuda (vote.sync's first result is i4), so a full
    # ballot is -1 and `>> 16` keeps it -1 (the tester's own simulator shim returned 0xffffffff).
    "ballot_of_full_warp_is_signed_int32": (PROLOGUE + LOADS + '''    for j1 in range((i2) & 3, (2) & 7):
        pass
    i0 = np.int64(cuda.ballot_sync(0xffffffff, i1 != 2)) >> 16
''' + EPILOGUE, 2, 96),
}


def _case(name):
    source, grid, block = CASES[name]
    rng = np.random.default_rng(len(name))
    n = int(np.prod(grid)) * int(np.prod(block))
    inputs = {"ain": rng.integers(-200, 200, n).astype(np.int32),
              "fin": (rng.standard_normal(n) * 4).astype(np.float32),
              "acc": np.zeros(32, np.int32)}
    return Case(seed=-1, source=source, grid=grid, block=block, inputs=inputs)


@pytest.fixture(scope="module")
def simulator_results():
    names = sorted(CASES)
    return dict(zip(names, run_cudasim([_case(n) for n in names])))


@pytest.mark.parametrize("mode", ["functional", "timing"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_minimised_finding_matches_numba_simulator(name, mode, simulator_results):
    ref = simulator_results[name]
    assert not isinstance(ref, str), ref
    case = _case(name)
    ours = run_gpusim(case, mode, compile_kernel(case.source))
    assert differences(ours, ref) is None, differences(ours, ref)


def test_ballot_result_is_signed_in_numpy_terms(simulator_results):
    """The reference itself: per warp, int32(ballot of i1 != 2) >> 16, computed with numpy."""
    case = _case("ballot_of_full_warp_is_signed_int32")
    ain = case.inputs["ain"].astype(np.int64)
    n = ain.size
    i1 = ain[(np.arange(n) * 3 + 1) % n]
    bits = [sum(1 << lane for lane in range(32) if i1[w * 32 + lane] != 2) for w in range(n // 32)]
    expect = np.repeat([np.int64(np.uint32(b).view(np.int32)) >> 16 for b in bits], 32)
    np.testing.assert_array_equal(simulator_results["ballot_of_full_warp_is_signed_int32"][2][0::4], expect)
    assert (expect == -1).any()


def test_kernel_that_nvvm_cannot_compile_with_lineinfo_still_runs():
    """Seed 47 of the generator (also seed 50): numba-cuda 0.30.4 + NVVM compile it with
    compile_ptx(..., lineinfo=False) but not with lineinfo=True, so gpusim refuses a valid kernel."""
    from kernelgen import generate
    case = generate(47)
    ns = compile_kernel(case.source)
    ours = run_gpusim(case, "functional", ns)
    assert not isinstance(ours, str), ours


def _block_vote_kernel(a, out):
    tid = np.int64(cuda.threadIdx.x)
    i0 = 1 if cuda.eq_sync(0xffffffff, a[tid] < (tid & 31)) else 0
    i3 = np.int64(cuda.syncthreads_count(np.int32(1 if i0 < tid else 0)))
    i1 = np.int64(cuda.syncthreads_count(np.int32(1 if (tid & 1) == 0 else 0)))
    out[tid * 3] = i0
    out[tid * 3 + 1] = i3
    out[tid * 3 + 2] = i1


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_syncthreads_count_scoped_predicate_does_not_clobber_outer_p1(mode):
    """Seed 295 (minimised by hand): numba's syncthreads_count is inline asm
    `{ .reg .pred %p1; setp.ne.u32 %p1, %r4, 0; bar.red.popc.u32 %r5, 0, %p1; }`. gpusim gives the
    block's %p1 the kernel's own %p1 (here `tid < 0`, used after the block by a selp computing
    out's index), so the store goes to the wrong element: an out-of-bounds fault, or in the generated
    kernel a silently wrong value (eq_sync's 0 read back as 1 on even lanes)."""
    import gpusim
    a = np.full(64, 7, np.int32)
    out = np.zeros(192, np.int64)
    gpusim.launch(_block_vote_kernel, 1, 64, a, out, mode=mode, **({"gpu": "tiny"} if mode == "timing" else {}))
    tid = np.arange(64)
    np.testing.assert_array_equal(out[0::3], 0)                      # 7 < lane is not uniform
    np.testing.assert_array_equal(out[1::3], (0 < tid).sum())
    np.testing.assert_array_equal(out[2::3], 32)
