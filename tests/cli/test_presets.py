"""GPU presets: named, documented fields; overrides by key path; every mistake names its key."""

import dataclasses

import pytest

from gpusim.cli import main
from gpusim.errors import ConfigError
from gpusim.presets import H100, PRESETS, TINY, get_preset


def test_every_field_of_every_preset_has_a_unit_and_a_meaning():
    for spec in PRESETS.values():
        rows = spec.describe()
        assert len(rows) > 50
        for path, _value, unit, doc in rows:
            if path not in ("name", "description", "scheduler.policy"):
                assert unit, path
            assert doc, path


def test_specs_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        H100.l1.latency = 3


def test_override_by_dotted_key_and_by_nested_table_agree():
    a = H100.with_(**{"l1.latency": 41, "l2.slices": 48})
    b = H100.with_(l1={"latency": 41}, l2={"slices": 48})
    assert a == b
    assert (a.l1.latency, a.l2.slices, a.l2.latency) == (41, 48, H100.l2.latency)
    assert H100.l1.latency != 41                     # the preset itself is untouched


def test_presets_differ_where_the_hardware_does():
    assert (H100.n_sm, PRESETS["a100"].n_sm, PRESETS["v100"].n_sm, TINY.n_sm) == (132, 108, 80, 2)
    assert PRESETS["v100"].l2.partitions == 1


@pytest.mark.parametrize("changes, path", [
    ({"l1.latncy": 3}, "l1.latncy"),
    ({"l3": {"size": 1}}, "l3"),
    ({"dram": {"chanels": 2}}, "dram.chanels"),
])
def test_unknown_key_is_an_error_naming_its_path(changes, path):
    with pytest.raises(ConfigError, match=f"unknown key '{path}'"):
        H100.with_(**changes)


@pytest.mark.parametrize("changes, path", [
    ({"l1.latency": "fast"}, "l1.latency"),
    ({"l1.latency": 3.5}, "l1.latency"),
    ({"n_sm": -4}, "n_sm"),
    ({"l2": 5}, "l2"),
    ({"l1.latency": {"x": 1}}, "l1.latency"),
    ({"scheduler.policy": "random"}, "scheduler.policy"),
    ({"l1.mshrs": 0}, "l1.mshrs"),
    ({"l2": {"slices": 95}}, "l2.partitions"),
    ({"noc.port_bandwidth": 0.0}, "noc.port_bandwidth"),
    ({"l1.assoc": 0}, "l1.assoc"),
    ({"l2.assoc": 0}, "l2.assoc"),
    ({"l1.size": 0}, "l1.size"),
    ({"l1": {"size": 1024, "assoc": 16}}, "l1.size"),        # 16 ways of 128 B need 2 KB
    ({"l2.size": 0}, "l2.size"),
    ({"l2.slices": 0}, "l2.slices"),
    ({"l2.partitions": 0}, "l2.partitions"),
])
def test_bad_value_is_an_error_naming_its_path(changes, path):
    with pytest.raises(ConfigError, match=f"bad value for '{path}'"):
        H100.with_(**changes)


def test_integer_field_accepts_a_float_field_value_widened():
    assert H100.with_(**{"dram.bandwidth": 1000}).dram.bandwidth == 1000.0


def test_toml_file_overrides_a_base_preset(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('base = "a100"\n[l1]\nlatency = 44\n[dram]\nbandwidth = 900.0\n')
    spec = get_preset(str(f))
    assert (spec.n_sm, spec.l1.latency, spec.dram.bandwidth) == (108, 44, 900.0)
    assert spec.name == "a100+mine.toml"


@pytest.mark.parametrize("text, message", [
    ("[l1]\nlatncy = 4\n", "unknown key 'l1.latncy'"),
    ("[l1]\nlatency = 'x'\n", "bad value for 'l1.latency'"),
    ('base = "h200"\n', "bad value for 'base'"),
    ("[l1\n", "mine.toml"),
])
def test_toml_mistakes_name_the_file_and_the_key(tmp_path, text, message):
    f = tmp_path / "mine.toml"
    f.write_text(text)
    with pytest.raises(ConfigError, match=message) as e:
        get_preset(str(f))
    assert str(f) in str(e.value)


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(ConfigError, match="h100, a100, v100, tiny"):
        get_preset("h200")


def test_committed_calibration_file_loads():
    spec = get_preset("validation/calibration_h100.toml")
    assert spec.n_sm == 132


def test_presets_command_shows_each_field_with_unit_and_meaning(capsys):
    assert main(["presets", "h100"]) == 0
    out = capsys.readouterr().out
    for needle in ("l1.latency", "noc.far_latency", "l2.partitions", "cycles", "hit latency"):
        assert needle in out, needle


def test_bad_config_file_on_the_command_line_is_one_line_and_exit_2(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text("[l1]\nlatncy = 4\n")
    assert main(["run", "vecadd", "--small", "--gpu", str(f)]) == 2
    err = capsys.readouterr().err
    assert "l1.latncy" in err and "Traceback" not in err


CACHE_MISTAKES = [
    ("[l1]\nassoc = 0\n", "l1.assoc"),
    ("[l2]\nassoc = 0\n", "l2.assoc"),
    ("[l1]\nsize = 0\n", "l1.size"),
    ("[l2]\nsize = 100\n", "l2.size"),
    ("[l2]\nslices = 0\n", "l2.slices"),
]


@pytest.mark.parametrize("text, path", CACHE_MISTAKES)
def test_toml_cache_geometry_that_cannot_work_names_its_key(tmp_path, text, path):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ConfigError, match=f"bad value for '{path}'") as e:
        get_preset(str(f))
    assert str(f) in str(e.value)


@pytest.mark.parametrize("text, path", CACHE_MISTAKES)
def test_cache_geometry_mistake_on_the_command_line_is_one_line_and_exit_2(tmp_path, capsys, text, path):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    assert main(["run", "vecadd", "--small", "--gpu", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"bad value for '{path}'" in err and "Traceback" not in err
    assert err.startswith("gpusim: error: ") and err.count("\n") == 1, err
