"""Kernel arguments written on the command line, one string per kernel parameter.

Arrays are `TYPE[N]=INIT` and are passed to a kernel as a 64-bit device pointer:

    f32[4096]=rand      uniform random: floats in [0, 1), integers in [0, 128)
    f32[4096]=zeros     all 0
    f32[4096]=ones      all 1
    i32[4096]=arange    0, 1, ..., N-1 (N must fit the type)
    f32[1]=fill:0       every element VALUE

Scalars are `TYPE=VALUE`: `i32=4096`, `f32=2.5`, `u64=7`, `u32=0xff`.
TYPE is one of f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64. Integer values are Python integer literals
(decimal, 0x.., 0o.., 0b..) and must fit the type; float values are anything float() reads.
"""
from __future__ import annotations

import re

import numpy as np

DTYPES = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
}
INITS = ("rand", "zeros", "ones", "arange", "fill:VALUE")
MAX_ELEMENTS = 1 << 28
RAND_INT_HIGH = 128  # integer `rand` draws from [0, RAND_INT_HIGH): fits every integer type

_ARRAY = re.compile(r"(?P<type>\w+)\[(?P<length>[^\]]*)\]")


def parse_arg(text: str, rng: np.random.Generator) -> np.ndarray | np.generic:
    """The array or scalar that `text` describes; ValueError naming `text` if it is malformed."""
    spec = text.strip()
    if "=" not in spec:
        raise ValueError(f"bad kernel argument {text!r}: expected TYPE=VALUE or TYPE[N]=INIT")
    left, right = (part.strip() for part in spec.split("=", 1))
    match = _ARRAY.fullmatch(left)
    if match is None:
        return _scalar(text, _dtype(text, left), right)
    dtype = _dtype(text, match["type"])
    return _array(text, dtype, _length(text, match["length"]), right, rng)


def parse_args(texts: list[str], seed: int = 0) -> list[np.ndarray | np.generic]:
    """parse_arg for each text, drawing random arrays in order from one generator seeded with `seed`."""
    rng = np.random.default_rng(seed)
    return [parse_arg(text, rng) for text in texts]


def _dtype(text: str, name: str) -> np.dtype:
    if name not in DTYPES:
        raise ValueError(f"bad kernel argument {text!r}: unknown type {name!r} (types: {', '.join(DTYPES)})")
    return np.dtype(DTYPES[name])


def _length(text: str, digits: str) -> int:
    if not digits.strip().isdigit():
        raise ValueError(f"bad kernel argument {text!r}: array length {digits!r} is not a positive integer")
    length = int(digits)
    if not 1 <= length <= MAX_ELEMENTS:
        raise ValueError(f"bad kernel argument {text!r}: array length {length} is not in [1, {MAX_ELEMENTS}]")
    return length


def _array(text: str, dtype: np.dtype, n: int, init: str, rng: np.random.Generator) -> np.ndarray:
    if init == "rand":
        if dtype == np.float16:        # numpy draws float32/64 only: rounded to half
            return rng.random(n, dtype=np.float32).astype(np.float16)
        if dtype.kind == "f":
            return rng.random(n, dtype=dtype)
        return rng.integers(0, RAND_INT_HIGH, size=n, dtype=dtype)
    if init == "zeros":
        return np.zeros(n, dtype=dtype)
    if init == "ones":
        return np.ones(n, dtype=dtype)
    if init == "arange":
        if dtype.kind in "iu" and n - 1 > np.iinfo(dtype).max:
            raise ValueError(f"bad kernel argument {text!r}: arange up to {n - 1} does not fit {dtype}")
        return np.arange(n, dtype=dtype)
    if init.startswith("fill:"):
        return np.full(n, _scalar(text, dtype, init[len("fill:") :].strip()), dtype=dtype)
    known = ", ".join(INITS)
    raise ValueError(f"bad kernel argument {text!r}: unknown initializer {init!r} (initializers: {known})")


def _scalar(text: str, dtype: np.dtype, value: str) -> np.generic:
    if dtype.kind == "f":
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"bad kernel argument {text!r}: {value!r} is not a number") from None
        with np.errstate(over="ignore"):
            result = dtype.type(number)
        if np.isinf(result) and not np.isinf(number):
            raise ValueError(f"bad kernel argument {text!r}: {value!r} overflows {dtype}")
        return result
    try:
        number = int(value, 0)
    except ValueError:
        raise ValueError(f"bad kernel argument {text!r}: {value!r} is not an integer") from None
    info = np.iinfo(dtype)
    if not info.min <= number <= info.max:
        span = f"[{info.min}, {info.max}]"
        raise ValueError(f"bad kernel argument {text!r}: {number} does not fit {dtype} {span}")
    return dtype.type(number)
