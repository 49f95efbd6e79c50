"""Command-line and launch mistakes a new user makes: each is exit status 2 and one line on stderr
(`gpusim: error: ...`), never a traceback; output paths are checked before the run; launch
arguments that do not match the kernel are refused rather than converted."""
import numpy as np
import pytest
from conftest import kernel
from numba import float32, int32

import gpusim
from gpusim.cli import main
from gpusim.errors import LaunchError

PTR_KERNEL = kernel("    ld.param.u64 %rd1, [out];\n")


def run_cli(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as e:       # argparse's own exit
        code = e.code
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def one_line_error(capsys, argv) -> str:
    code, out, err = run_cli(capsys, argv)
    assert "Traceback" not in out + err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("gpusim: compil")]
    assert code == 2, (code, out[-300:], err[-300:])
    # one line; a PTX syntax error quotes its source line below it, indented
    assert lines[0].startswith("gpusim: error:") and all(ln.startswith("    ") for ln in lines[1:2]), err
    assert len(lines) <= 2 - (not lines[-1].startswith("    ")), err
    return lines[0]


@pytest.fixture
def ptx(tmp_path):
    f = tmp_path / "k.ptx"
    f.write_text(PTR_KERNEL)
    return str(f)


def test_directory_as_the_ptx_file(capsys, tmp_path):
    d = tmp_path / "dir.ptx"
    d.mkdir()
    assert "is a directory" in one_line_error(capsys, ["run", str(d), "--grid", "1", "--block", "32"])


def test_non_utf8_toml(capsys, tmp_path):
    f = tmp_path / "gpu.toml"
    f.write_bytes(b"[l1]\nlatency = 30 # \xff\n")
    assert "not UTF-8" in one_line_error(capsys, ["run", "vecadd", "--gpu", str(f)])


def test_non_utf8_ptx(capsys, tmp_path):
    f = tmp_path / "k.ptx"
    f.write_bytes(PTR_KERNEL.encode() + b"// \xff\n")
    assert "not UTF-8" in one_line_error(capsys, ["run", str(f), "--grid", "1", "--block", "32", "--arg",
                                                  "u32[4]=zeros"])


@pytest.mark.parametrize("size", ["-5", "0", "x", "1.5"])
def test_size_must_be_positive(capsys, size):
    """--size 0 ran the default 1M elements."""
    assert "positive whole number" in one_line_error(capsys, ["run", "vecadd", "--size", size])


@pytest.mark.parametrize("opt, value", [("--seed", "-1"), ("--shared", "-4"), ("--regs", "0"),
                                        ("--max-instructions", "0")])
def test_negative_numbers_are_refused_by_the_parser(capsys, opt, value):
    assert opt in one_line_error(capsys, ["run", "vecadd", opt, value])


def test_float_scalar_for_a_pointer_parameter(capsys, ptx):
    err = one_line_error(capsys, ["run", ptx, "--grid", "1", "--block", "32", "--arg", "f32=1"])
    assert "'out'" in err and "u64" in err


def test_array_for_a_32_bit_parameter(capsys, tmp_path):
    f = tmp_path / "k.ptx"
    f.write_text(PTR_KERNEL.replace(".param .u64 out", ".param .u32 out"))
    err = one_line_error(capsys, ["run", str(f), "--grid", "1", "--block", "32", "--arg", "f32[4]=zeros"])
    assert "64-bit pointer" in err and "'out'" in err


@pytest.mark.parametrize("opt", ["--json", "--csv"])
@pytest.mark.parametrize("where", ["missing/x.out", "dir"])
def test_unwritable_output_path_is_refused_before_the_run(capsys, tmp_path, opt, where):
    (tmp_path / "dir").mkdir()
    code, out, err = run_cli(capsys, ["run", "vecadd", "--mode", "functional", opt, str(tmp_path / where)])
    assert code == 2 and "Traceback" not in err
    assert out == ""                                # nothing ran: no tables were printed
    assert opt in err and len(err.strip().splitlines()) == 1


def test_validate_unknown_case(capsys):
    """It exited 0 after running nothing."""
    err = one_line_error(capsys, ["validate", "--case", "nope"])
    assert "unknown case 'nope'" in err


def test_validate_of_one_microbenchmark_says_what_its_summary_lacks_instead_of_printing_nan(capsys):
    """`--case` of a single microbenchmark printed 'held-out nan%, p90 nan%' and an empty 'latency errors'."""
    code, out, err = run_cli(capsys, ["validate", "--case", "burst_w8_light", "--model", "ptx"])
    assert code == 0, err[-300:]
    assert "nan" not in out and "no held-out case among them" in out and "no pointer chase among them" in out


def test_validate_unwritable_report_is_refused_before_replaying(capsys, tmp_path):
    err = one_line_error(capsys, ["validate", "--out", str(tmp_path / "missing" / "R.md")])
    assert "--out" in err


@pytest.mark.parametrize("argv, words", [
    (["run"], "target"),
    (["run", "vecadd", "--mode", "fast"], "--mode"),
    (["run", "nope"], "unknown program"),
    (["run", "k.cu.nope"], "unknown program"),
    (["ptx", "nope"], "unknown program"),
    (["presets", "nope"], "unknown GPU preset"),
    (["frobnicate"], "invalid choice"),
    ([], "required"),
])
def test_cli_mistake_is_one_line(capsys, argv, words):
    assert words in one_line_error(capsys, argv)


@pytest.mark.parametrize("grid, block, words", [
    ("1", "32,1,65", "exceeds"),
    ("1,65536", "32", "exceeds"),
    ("0", "32", "positive"),
    ("1,2,3,4", "32", "1-3"),
    ("2.7", "32", "N or X,Y[,Z]"),
])
def test_bad_grid_or_block(capsys, ptx, grid, block, words):
    err = one_line_error(capsys, ["run", ptx, "--grid", grid, "--block", block, "--arg", "u32[4]=zeros"])
    assert words in err


# ------------------------------------------------------------------------ the launch API
def _add(a, b):
    pass


@pytest.mark.parametrize("grid", [(2.7,), 2.7, (1, True), "4", (1, 2, 3, 4), (0,), None])
def test_grid_that_is_not_1_to_3_positive_ints_is_refused(grid):
    """(2.7,) was truncated to 2."""
    with pytest.raises(LaunchError, match="grid"):
        gpusim.launch(gpusim.load_ptx(PTR_KERNEL)["k"], grid, 32, np.zeros(4, np.uint32), mode="functional")


@pytest.mark.parametrize("block", [(32, 1, 65), (1025,), (1, 1025)])
def test_block_beyond_sm90_dimensions_is_refused(block):
    with pytest.raises(LaunchError, match="block"):
        gpusim.launch(gpusim.load_ptx(PTR_KERNEL)["k"], 1, block, np.zeros(4, np.uint32), mode="functional")


def test_largest_block_dimensions_are_accepted():
    out = np.zeros(4, np.uint32)
    r = gpusim.launch(gpusim.load_ptx(PTR_KERNEL)["k"], 1, (16, 1, 64), out, mode="functional")
    assert r.block == (16, 1, 64)


def test_explicit_signature_refuses_an_array_of_another_dtype():
    """int32[::1] ran on a float32 array."""
    a = np.zeros(32, np.float32)
    with pytest.raises(LaunchError, match="argument 0 is an array"):
        gpusim.launch(_add, 1, 32, a, a, signature=(int32[::1], float32[::1]), mode="functional")
    with pytest.raises(LaunchError, match="argument 1"):
        gpusim.launch(_add, 1, 32, a, a, signature="void(float32[::1], float32[:, ::1])", mode="functional")
    with pytest.raises(LaunchError, match="argument 1 is an array but the signature says a scalar"):
        gpusim.launch(_add, 1, 32, a, a, signature=(float32[::1], float32), mode="functional")


def test_explicit_signature_that_matches_runs():
    a = np.zeros(32, np.float32)
    r = gpusim.launch(_add, 1, 32, a, a, signature="void(float32[::1], float32[::1])", mode="functional")
    assert r.mode == "functional"


@pytest.mark.parametrize("value, words", [(np.float32(1), "u64"), (2**64, "does not fit"), (1 + 2j, "complex")])
def test_value_that_does_not_fit_a_ptx_parameter_is_refused(value, words):
    with pytest.raises(LaunchError, match=words):
        gpusim.launch(gpusim.load_ptx(PTR_KERNEL)["k"], 1, 32, value, mode="functional")


@pytest.mark.parametrize("opt", [{"shared_mem": 1.5}, {"max_instructions": True}, {"shared_mem": "4"}])
def test_launch_option_of_the_wrong_kind_is_refused(opt):
    with pytest.raises(LaunchError):
        gpusim.launch(gpusim.load_ptx(PTR_KERNEL)["k"], 1, 32, np.zeros(4, np.uint32), mode="functional", **opt)


def test_globals_beyond_the_presets_device_memory_are_refused_before_allocation():
    text = PTR_KERNEL.replace(".visible .entry", ".global .align 8 .b8 big[17179869184];\n.visible .entry")
    with pytest.raises(LaunchError, match="dram.capacity"):
        gpusim.launch(gpusim.load_ptx(text)["k"], 1, 32, np.zeros(4, np.uint32), gpu="v100", mode="functional")


def _store(a, x):
    a[0] = x


def test_scalar_numba_cannot_pass_is_refused_by_name():
    """2**70 raised numba's ValueError."""
    with pytest.raises(LaunchError, match="does not fit 64 bits"):
        gpusim.launch(_store, 1, 1, np.zeros(1, np.complex64), 2**70, mode="functional")


def test_a_complex_scalar_reaches_the_kernel():
    a = np.zeros(1, np.complex64)
    gpusim.launch(_store, 1, 1, a, 1 + 2j, mode="functional")
    assert a[0] == 1 + 2j


def test_array_for_a_double_parameter_is_refused():
    text = PTR_KERNEL.replace(".param .u64 out", ".param .f64 out")
    with pytest.raises(LaunchError, match="64-bit pointer"):
        gpusim.launch(gpusim.load_ptx(text)["k"], 1, 32, np.zeros(4, np.uint32), mode="functional")
