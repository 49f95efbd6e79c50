"""Every config field has a range, checked with its key path named: a value out of range (or NaN, or
of the wrong kind) is a ConfigError before anything is sized from it; a bad TOML file is one line."""
from dataclasses import fields, is_dataclass

import numpy as np
import pytest

import gpusim
from gpusim.errors import ConfigError, LaunchError
from gpusim.presets import H100, PRESETS, TINY, get_preset
from gpusim.spec import MAX_CYCLES, check


def _fields(spec, prefix=""):
    for f in fields(spec):
        v = getattr(spec, f.name)
        if is_dataclass(v):
            yield from _fields(v, prefix + f.name + ".")
        else:
            yield prefix + f.name, v, f.metadata.get("bounds")


def test_every_numeric_field_has_a_range_that_holds_its_preset_values():
    for spec in PRESETS.values():
        check(spec)
        for path, value, rng in _fields(spec):
            if isinstance(value, str):
                continue
            assert rng is not None, path
            lo, hi = rng
            assert lo <= value <= hi, (spec.name, path, value, rng)


@pytest.mark.parametrize("toml, key, words", [
    ("[smem]\nbanks = 600\n", "smem.banks", "[1, 64]"),
    ("[smem]\nbanks = 1000000\n", "smem.banks", "[1, 64]"),
    ("[l1]\nlatency = 9223372036854775807\n", "l1.latency", "9223372036854775807"),
    ("[dram]\nlatency = -1\n", "dram.latency", "-1"),
    ("clock_mhz = nan\n", "clock_mhz", "nan"),
    ("clock_mhz = inf\n", "clock_mhz", "inf"),
    ("[l2]\nbandwidth = -inf\n", "l2.bandwidth", "-inf"),
    ("n_sm = true\n", "n_sm", "expected int"),
    ("n_sm = 2.5\n", "n_sm", "expected int"),
    ("[l2]\nlatency = \"5\"\n", "l2.latency", "expected int"),
    ("[scheduler]\npolicy = 3\n", "scheduler.policy", "expected a string"),
    ("[sm]\nmax_warps = 100000\n", "sm.max_warps", "[4, 2048]"),
    ("[l2]\nsize = 1099511627776\n", "l2.size", "1099511627776"),
    ("[dram]\ncapacity = 0\n", "dram.capacity", "0"),
    ("base = [1]\n", "base", "unknown preset"),
])
def test_toml_value_out_of_range_names_its_key(tmp_path, toml, key, words):
    f = tmp_path / "gpu.toml"
    f.write_text(toml)
    with pytest.raises(ConfigError) as e:
        get_preset(str(f))
    assert f"'{key}'" in str(e.value) and words in str(e.value)
    assert "\n" not in str(e.value)


def test_every_latency_accepts_its_largest_value_and_refuses_one_more():
    for path, _value, rng in _fields(H100):
        if rng is not None and rng[1] == MAX_CYCLES:
            assert H100.with_(**{path: MAX_CYCLES})
            with pytest.raises(ConfigError, match=path.replace(".", r"\.")):
                H100.with_(**{path: MAX_CYCLES + 1})


def test_non_utf8_toml_is_one_line(tmp_path):
    f = tmp_path / "gpu.toml"
    f.write_bytes(b"[l1]\nlatency = 3\n# \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8") as e:
        get_preset(str(f))
    assert "\n" not in str(e.value)


def test_directory_as_toml_is_refused(tmp_path):
    d = tmp_path / "dir.toml"
    d.mkdir()
    with pytest.raises(ConfigError, match="is a directory"):
        get_preset(str(d))


def test_spec_built_directly_is_checked_at_launch():
    import dataclasses
    bad = dataclasses.replace(TINY, smem=dataclasses.replace(TINY.smem, banks=600))
    with pytest.raises(ConfigError, match="smem.banks"):
        gpusim.launch(lambda a: None, 1, 32, np.zeros(4, np.float32), gpu=bad, mode="functional")
    with pytest.raises(LaunchError, match="gpu must be"):
        gpusim.launch(lambda a: None, 1, 32, np.zeros(4, np.float32), gpu=3, mode="functional")
