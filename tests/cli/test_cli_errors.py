"""Bad input on the command line: one clear line on stderr, exit status 2, no traceback, in both
modes. Each case is a user mistake the brief names: malformed PTX, an unsupported instruction, an
out-of-bounds access, a barrier that can never complete, a runaway kernel, CUDA C without nvcc."""
import numpy as np
import pytest
from conftest import HEADER, kernel
from numba import cuda

from gpusim.cli import main

DEADLOCK = """    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra L1;
    bar.sync 1;
    bra L2;
L1:
    bar.sync 0;
L2:
"""
RUNAWAY = "    mov.u32 %r0, 0;\nSPIN:\n    add.u32 %r0, %r0, 1;\n    bra SPIN;\n"
OOB = """    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4096;
    add.u64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r1;
"""

CASES = {
    # name: (kernel body, extra CLI options, words the one line must hold)
    "syntax": ("    add.u32 %r1, %r2 %r3;\n", [], ["k.ptx:", "add.u32"]),
    "unsupported": ("    tex.2d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [t, {%r5, %r6}];\n", [], ["tex", "k.ptx:"]),
    "out_of_bounds": (OOB, [], ["block (0, 0, 0)", "thread", "address", "k.ptx:"]),
    "deadlock": (DEADLOCK, [], ["deadlock", "bar.sync 0", "32 of 64"]),
    "watchdog": (RUNAWAY, ["--max-instructions", "5000"], ["watchdog", "5000"]),
}


def _one_line_error(capsys, argv) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured.out[-500:] + captured.err[-500:]
    # the one-time compile notice of a cold cache (gpusim warmup) is not part of the error
    lines = [ln for ln in captured.err.splitlines() if ln.strip() and not ln.startswith("gpusim: compil")]
    assert "Traceback" not in captured.err + captured.out
    assert len(lines) <= 2 and lines[0].startswith("gpusim: error:"), captured.err
    return captured.err


@pytest.mark.parametrize("mode", ["functional", "timing"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_user_mistake_is_one_line_and_exit_2(tmp_path, capsys, name, mode):
    body, extra, words = CASES[name]
    f = tmp_path / "k.ptx"
    f.write_text(kernel(body))
    err = _one_line_error(capsys, ["run", str(f), "--kernel", "k", "--grid", "1", "--block", "64",
                                   "--arg", "u32[64]=zeros", "--mode", mode, *extra])
    for w in words:
        assert w in err, (w, err)


def test_deadlock_in_a_grid_of_many_waves_is_reported_not_hung_on(tmp_path, capsys):
    """On `tiny` (two SMs) 5000 blocks need thousands of waves; the first stuck block ends the run."""
    f = tmp_path / "k.ptx"
    f.write_text(kernel(DEADLOCK))
    err = _one_line_error(capsys, ["run", str(f), "--kernel", "k", "--grid", "5000", "--block", "64",
                                   "--arg", "u32[64]=zeros", "--gpu", "tiny", "--mode", "timing"])
    assert "deadlock" in err


def test_timing_mode_deadlock_matches_functional_mode():
    import gpusim
    from gpusim.errors import KernelFault
    k = gpusim.load_ptx(kernel(DEADLOCK))["k"]
    msgs = []
    for mode in ("functional", "timing"):
        with pytest.raises(KernelFault) as e:
            gpusim.launch(k, 2, 64, np.zeros(64, np.uint32), mode=mode)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_cuda_c_without_nvcc_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))          # no nvcc anywhere on PATH
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n")
    err = _one_line_error(capsys, ["run", str(f), "--kernel", "k", "--grid", "1", "--block", "32",
                                   "--arg", "f32[32]=zeros"])
    assert "nvcc" in err


SCALE = HEADER + """
.visible .entry scale(.param .u64 x)
{
    ret;
}
"""


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_shared_memory_beyond_the_preset_is_a_launch_error_in_both_modes(mode):
    import gpusim
    from gpusim.errors import LaunchError
    k = gpusim.load_ptx(SCALE)["scale"]
    with pytest.raises(LaunchError, match="shared"):
        gpusim.launch(k, 1, 32, np.zeros(4, np.float32), shared_mem=1 << 30, mode=mode)


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_unknown_launch_option_is_named_in_both_modes(mode):
    import gpusim
    from gpusim.errors import LaunchError
    k = gpusim.load_ptx(SCALE)["scale"]
    with pytest.raises(LaunchError, match="fast_math"):
        gpusim.launch(k, 1, 32, np.zeros(4, np.float32), mode=mode, fast_math=True)


def add_one(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


def test_signature_may_be_numba_text():
    import gpusim
    x = np.arange(40, dtype=np.int32)
    gpusim.launch(add_one, 1, 64, x, signature="void(int32[::1])", mode="functional")
    np.testing.assert_array_equal(x, np.arange(40, dtype=np.int32) + 1)


def test_unreadable_signature_text_is_a_launch_error():
    import gpusim
    from gpusim.errors import LaunchError
    with pytest.raises(LaunchError, match="signature"):
        gpusim.launch(lambda x: None, 1, 32, np.zeros(4, np.int32), signature="void(int33[::1])")
