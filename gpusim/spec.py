"""Specs: frozen, documented parameters of one hardware unit, and the tools that walk them.

A unit's spec is a frozen dataclass whose every field is declared with `param(default, unit, doc)`.
A GPU spec nests the unit specs (`spec.l1.latency`); `walk` lists every field with its dotted path,
`override` applies a nested dict (from TOML or code) and names the key path of anything wrong.
"""
from __future__ import annotations

import dataclasses
from dataclasses import field, fields, is_dataclass

from gpusim.errors import ConfigError

MAX_CYCLES = 1_000_000     # the largest latency or queue depth a spec field accepts, in cycles


def param(default, unit: str = "", doc: str = "", bounds: tuple | None = None):
    """A spec field with its unit (cycles, bytes, bytes/cycle, count, ...), a one-line meaning and, for
    numbers, the closed range (lo, hi) of values it accepts: every array the simulator sizes from a
    spec and every cycle sum it forms stays in bounds for any value in range."""
    return field(default=default, metadata={"unit": unit, "doc": doc, "bounds": bounds})


def walk(spec, prefix: str = ""):
    """(path, value, unit, doc) for every leaf field, depth first, in declaration order."""
    for f in fields(spec):
        v = getattr(spec, f.name)
        path = prefix + f.name
        if is_dataclass(v):
            yield from walk(v, path + ".")
        else:
            yield path, v, f.metadata.get("unit", ""), f.metadata.get("doc", "")


def _fmt(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _check(path: str, cur, value, rng=None):
    if isinstance(cur, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"bad value for '{path}': expected true or false, got {value!r}")
        return value
    if isinstance(cur, str):
        if not isinstance(value, str):
            raise ConfigError(f"bad value for '{path}': expected a string, got {value!r}")
        return value
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not numeric or (isinstance(cur, int) and not isinstance(value, int)):
        raise ConfigError(f"bad value for '{path}': expected {type(cur).__name__}, got {value!r}")
    lo, hi = rng if rng is not None else (0, float("inf"))
    if not lo <= value <= hi:       # NaN is in no range
        raise ConfigError(f"bad value for '{path}': {value!r} is outside the accepted range [{_fmt(lo)}, {_fmt(hi)}]")
    return type(cur)(value)


def override(spec, changes: dict, prefix: str = ""):
    """A copy of `spec` with `changes` applied: nested dicts for nested specs, or dotted keys
    ("l1.latency"). An unknown key or a value of the wrong type raises ConfigError naming its path."""
    nested: dict = {}
    for key, value in changes.items():
        head, _, rest = str(key).partition(".")
        if rest:
            nested.setdefault(head, {})[rest] = value
        elif isinstance(value, dict):
            nested.setdefault(head, {}).update(value)
        else:
            nested[head] = value
    known = {f.name: f for f in fields(spec)}
    new = {}
    for key, value in nested.items():
        path = prefix + key
        if key not in known:
            raise ConfigError(f"unknown key '{path}' (known here: {', '.join(known)})")
        cur = getattr(spec, key)
        if is_dataclass(cur):
            if not isinstance(value, dict):
                raise ConfigError(f"bad value for '{path}': expected a table of {type(cur).__name__} fields")
            new[key] = override(cur, value, path + ".")
        elif isinstance(value, dict):
            raise ConfigError(f"bad value for '{path}': expected a {type(cur).__name__}, got a table")
        else:
            new[key] = _check(path, cur, value, known[key].metadata.get("bounds"))
    out = dataclasses.replace(spec, **new)
    if hasattr(out, "validate"):
        out.validate(prefix)
    return out


def check(spec, prefix: str = "") -> None:
    """Every field of `spec` (and of its nested specs) within its range and valid as a whole: for a
    spec built directly rather than through `override`. Raises ConfigError naming the key path."""
    for f in fields(spec):
        v = getattr(spec, f.name)
        if is_dataclass(v):
            check(v, prefix + f.name + ".")
        else:
            _check(prefix + f.name, f.default, v, f.metadata.get("bounds"))
    if hasattr(spec, "validate"):
        spec.validate(prefix)
