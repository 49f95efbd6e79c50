"""programs/argspec.py (kernel arguments on the command line) and the PTX programs that use it."""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from programs.argspec import DTYPES, parse_arg, parse_args  # noqa: E402
from programs.ptx_programs import PTX_DIR, PTX_PROGRAMS  # noqa: E402


def parse(text, seed=0):
    return parse_arg(text, np.random.default_rng(seed))


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_array_spec_gives_requested_dtype_and_length(name):
    for init in ("rand", "zeros", "ones", "arange", "fill:3"):
        arr = parse(f"{name}[100]={init}")
        assert isinstance(arr, np.ndarray)
        assert arr.dtype == np.dtype(DTYPES[name]) and arr.shape == (100,)


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_scalar_spec_gives_numpy_scalar_of_requested_type(name):
    value = parse(f"{name}=7")
    assert isinstance(value, np.generic) and value.dtype == np.dtype(DTYPES[name]) and value == 7


def test_initializers_give_their_values():
    assert np.array_equal(parse("i32[4]=zeros"), [0, 0, 0, 0])
    assert np.array_equal(parse("f32[3]=ones"), [1, 1, 1])
    assert np.array_equal(parse("u16[5]=arange"), [0, 1, 2, 3, 4])
    assert np.array_equal(parse("f32[2]=fill:-2.5"), [-2.5, -2.5])
    assert np.array_equal(parse("f32[1]=fill:0"), [0.0])
    assert np.array_equal(parse("i64[2]=fill:0x10"), [16, 16])


def test_float_rand_is_uniform_in_unit_interval_and_not_constant():
    arr = parse("f32[10000]=rand")
    assert arr.min() >= 0 and arr.max() < 1 and 0.45 < arr.mean() < 0.55


def test_integer_rand_is_non_negative_and_fits_the_smallest_types():
    for name in ("i8", "u8", "i32", "u64"):
        arr = parse(f"{name}[10000]=rand")
        assert arr.min() >= 0 and arr.max() <= 127 and len(np.unique(arr)) > 100


def test_same_seed_gives_same_arrays_and_later_arrays_differ():
    first = parse_args(["f32[64]=rand", "f32[64]=rand"], seed=5)
    again = parse_args(["f32[64]=rand", "f32[64]=rand"], seed=5)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], first[1])


def test_whitespace_around_the_parts_is_ignored():
    assert np.array_equal(parse("  f32[3] = fill: 2 "), [2, 2, 2])
    assert parse(" i32 = 4096 ") == 4096


def test_integer_scalars_accept_python_literals_and_their_type_range():
    assert parse("u32=0xffffffff") == 0xFFFFFFFF
    assert parse("i8=-128") == -128
    assert parse("u64=18446744073709551615") == 2**64 - 1
    assert parse("f32=2.5") == np.float32(2.5)


def test_bad_type_is_rejected_with_its_name():
    with pytest.raises(ValueError, match="f33") as err:
        parse("f33[4]=rand")
    assert "f32" in str(err.value)  # lists the known types
    with pytest.raises(ValueError, match="'float'"):
        parse("float=1.0")


@pytest.mark.parametrize(
    "text",
    [
        "f32",
        "f32[4]",
        "f32[]=rand",
        "f32[0]=rand",
        "f32[-1]=rand",
        "f32[x]=rand",
        "f32[4]=randn",
        "f32[4]=fill:x",
        "f32=abc",
        "f32=1e39",
        "i32=2.5",
        "i32=",
        "u8=256",
        "i8=-129",
        "u32=-1",
        "u8[300]=arange",
        "i8[4]=fill:1000",
    ],
)
def test_malformed_spec_is_rejected_naming_the_text(text):
    with pytest.raises(ValueError) as err:
        parse(text)
    assert repr(text) in str(err.value)


def _entry_params(ptx_text, kernel):
    match = re.search(rf"\.entry\s+{re.escape(kernel)}\s*\((.*?)\)", ptx_text, re.S)
    assert match, f".entry {kernel} not found"
    return re.findall(r"\.param\s+\.(\w+)", match.group(1))


@pytest.mark.parametrize("name", sorted(PTX_PROGRAMS))
def test_ptx_program_args_match_its_kernel_parameters(name):
    prog = PTX_PROGRAMS[name]
    ptx = PTX_DIR / prog["file"]
    assert ptx.with_suffix(".cu").exists(), "the CUDA C source ships beside the PTX"
    params = _entry_params(ptx.read_text(), prog["kernel"])
    args = parse_args(prog["args"])
    assert len(params) == len(args)
    for param, arg in zip(params, args, strict=True):
        expected_bits = 64 if isinstance(arg, np.ndarray) else arg.dtype.itemsize * 8
        assert int(param[1:]) == expected_bits, f"{param} parameter for {arg!r}"
    assert len(prog["grid"]) == 3 and len(prog["block"]) == 3


@pytest.mark.parametrize("name", sorted(PTX_PROGRAMS))
def test_ptx_program_reference_gives_arrays_shaped_like_its_outputs(name):
    prog = PTX_PROGRAMS[name]
    args = parse_args(prog["args"])
    before = [a.copy() for a in args]
    expected = prog["reference"](args)
    assert expected and prog["rtol"] >= 0 and prog["atol"] >= 0
    for index, want in expected.items():
        assert isinstance(args[index], np.ndarray)
        assert want.shape == args[index].shape and want.dtype == args[index].dtype
        assert not np.array_equal(want, args[index]), "the kernel is expected to change this argument"
    assert all(np.array_equal(a, b) for a, b in zip(args, before, strict=True)), "reference mutated its args"
