"""Helpers for instruction-level tests: wrap a few PTX instructions in a kernel, run it on one block of
32 threads (one warp), and return each lane's outputs.

    out = run_lanes("add.s32 %d, %a, %b;", ins={"a": ("s32", a), "b": ("s32", b)}, outs={"d": "s32"})
    out["d"]     # numpy array of 32 values, lane i at index i

Each input is a 32-element array (or one scalar for every lane) loaded by lane `tid.x` from its own
global array into a register `%<name>` of the given PTX type; each output register is stored by lane
`tid.x` into its own array after the body. `pred` inputs/outputs travel as u32 0/1. 16-bit float types
(f16, bf16) travel as their raw uint16 bits.
"""
from __future__ import annotations

import math
import struct
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import gpusim  # noqa: E402

NUMPY = {
    "s16": np.int16, "u16": np.uint16, "b16": np.uint16, "f16": np.uint16, "bf16": np.uint16,
    "s32": np.int32, "u32": np.uint32, "b32": np.uint32, "f32": np.float32,
    "s64": np.int64, "u64": np.uint64, "b64": np.uint64, "f64": np.float64,
    "pred": np.uint32,
}  # fmt: skip
HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
KERNEL = HEADER + """
.visible .entry k(.param .u64 out)
{{
    .reg .u32 %r<8>;
    .reg .u64 %rd<8>;
    .reg .pred %p<4>;
{body}
    ret;
}}
"""


def kernel(body: str) -> str:
    """PTX text of a kernel `k(.param .u64 out)` with %r<8>, %rd<8>, %p<4> declared around `body`."""
    return KERNEL.format(body=body)


def ptx_size(t: str) -> int:
    return np.dtype(NUMPY[t]).itemsize


def _mem_type(t: str) -> str:
    if t == "pred":
        return "u32"
    if t in ("f16", "bf16"):
        return "b16"
    return t


def build_kernel(body: str, ins: dict, outs: dict, regs: dict | None = None, decls: str = "",
                 name: str = "k", arrays: dict | None = None) -> str:
    """PTX text of a kernel: params out_<name>..., in_<name>..., arr_<name>...; registers %<name>.

    The body may use %z_tid (u32 tid.x) and branch to Z_EPILOGUE (the output stores)."""
    regs = dict(regs or {})
    params = [f".param .u64 out_{n}" for n in outs] + [f".param .u64 in_{n}" for n in ins]
    params += [f".param .u64 arr_{n}" for n in (arrays or {})]
    lines = [HEADER, f".visible .entry {name}(", ",\n".join("\t" + p for p in params), ")", "{"]
    lines += ["\t.reg .u32 %z_tid;", "\t.reg .u64 %z_base, %z_off, %z_addr;", "\t.reg .u32 %z_tmp;",
              "\t.reg .pred %z_p;"]
    declared = {}
    for n, (t, _) in ins.items():
        declared[n] = t
    for n, t in outs.items():
        declared.setdefault(n, t)
    for n, t in regs.items():
        declared.setdefault(n, t)
    for n, t in declared.items():
        lines.append(f"\t.reg .{t} %{n};")
    if decls:
        lines.append(decls)
    lines.append("\tmov.u32 %z_tid, %tid.x;")
    for n, (t, _) in ins.items():
        mt = _mem_type(t)
        lines += [f"\tld.param.u64 %z_base, [in_{n}];",
                  f"\tmul.wide.u32 %z_off, %z_tid, {ptx_size(t)};",
                  "\tadd.s64 %z_addr, %z_base, %z_off;"]
        if t == "pred":
            lines += [f"\tld.global.{mt} %z_tmp, [%z_addr];", f"\tsetp.ne.u32 %{n}, %z_tmp, 0;"]
        else:
            lines.append(f"\tld.global.{mt} %{n}, [%z_addr];")
    lines.append("// body")
    lines.append(body)
    lines.append("// epilogue")
    lines.append("Z_EPILOGUE:")
    for n, t in outs.items():
        mt = _mem_type(t)
        lines += [f"\tld.param.u64 %z_base, [out_{n}];",
                  f"\tmul.wide.u32 %z_off, %z_tid, {ptx_size(t)};",
                  "\tadd.s64 %z_addr, %z_base, %z_off;"]
        if t == "pred":
            lines += [f"\tselp.u32 %z_tmp, 1, 0, %{n};", "\tst.global.u32 [%z_addr], %z_tmp;"]
        else:
            lines.append(f"\tst.global.{mt} [%z_addr], %{n};")
    lines += ["\tret;", "}", ""]
    return "\n".join(lines)


def lanes(values, t: str) -> np.ndarray:
    dt = NUMPY[t]
    if np.isscalar(values) or np.ndim(values) == 0:
        return np.full(32, values, dtype=dt)
    arr = np.asarray(values)
    if arr.dtype != dt and arr.dtype.kind == np.dtype(dt).kind and arr.dtype.itemsize == np.dtype(dt).itemsize:
        arr = arr.astype(dt)
    if arr.dtype != dt:
        arr = np.array([int(v) if np.dtype(dt).kind in "iu" else v for v in arr.tolist()], dtype=dt)
    assert arr.shape == (32,), f"an input needs 32 lane values, got shape {arr.shape}"
    return arr


MODES = ("functional", "timing")


def run_lanes(body: str, ins: dict | None = None, outs: dict | None = None, regs: dict | None = None,
              decls: str = "", block: int = 32, arrays: dict | None = None, **launch_opts) -> dict:
    """Run `body` on one warp (or `block` threads); ins: name -> (type, values), outs: name -> type,
    arrays: name -> numpy array passed as pointer parameter arr_<name> and updated in place.

    The kernel runs on the `tiny` preset in both modes (functional, then timing) unless `mode` or
    `gpu` says otherwise, and the two must agree bit for bit. Returns name -> array for every
    output and array, and "_result" -> the (last) LaunchResult."""
    ins = dict(ins or {})
    outs = dict(outs or {})
    arrays = dict(arrays or {})
    text = build_kernel(body, ins, outs, regs, decls, arrays=arrays)
    k = gpusim.load_ptx(text)["k"]
    modes = (launch_opts.pop("mode"),) if "mode" in launch_opts else MODES
    launch_opts.setdefault("gpu", "tiny")
    in_arrays = []
    for _n, (t, v) in ins.items():
        arr = lanes(v, t)
        if block > 32:
            arr = np.resize(arr, block)
        in_arrays.append(arr)
    first = None
    for mode in modes:
        out_arrays = {n: np.zeros(block if block > 32 else 32, dtype=NUMPY[t]) for n, t in outs.items()}
        arrs = {n: a.copy() for n, a in arrays.items()} if len(modes) > 1 else arrays
        res = gpusim.launch(k, 1, block, *out_arrays.values(), *in_arrays, *arrs.values(), mode=mode, **launch_opts)
        out_arrays.update(arrs)
        if first is None:
            first = out_arrays
        else:
            for n, a in out_arrays.items():
                assert np.array_equal(a.view(np.uint8), first[n].view(np.uint8)), \
                    f"output {n} differs between {modes[0]} and {mode} mode"
    for n, a in arrays.items():
        a[...] = out_arrays[n]
    out_arrays["_result"] = res
    return out_arrays


def run_ptx(text: str, kernel: str, grid, block, *args, **opts):
    """Launch a complete PTX module's kernel; arrays are updated in place."""
    return gpusim.launch(gpusim.load_ptx(text)[kernel], grid, block, *args, **opts)


# ------------------------------------------------------------------ float bit helpers
def f32_bits(x) -> int:
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]


def bits_f32(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def f64_bits(x) -> int:
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def bits_f64(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b & (2**64 - 1)))[0]


def as_bits32(arr) -> np.ndarray:
    return np.asarray(arr, dtype=np.float32).view(np.uint32)


def as_bits64(arr) -> np.ndarray:
    return np.asarray(arr, dtype=np.float64).view(np.uint64)


# ------------------------------------------------------------------ exact rounding references
FORMATS = {  # precision bits (incl. the implicit one), minimum normal exponent, maximum exponent
    "f64": (53, -1022, 1023), "f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127),
}


def round_exact(x, fmt: str = "f32", mode: str = "rn") -> float:
    """Round an exact rational (Fraction / int / float) to the binary format `fmt` with IEEE rounding
    mode rn / rz / rm / rp, handling subnormals and overflow. Returns a Python float (exact)."""
    if isinstance(x, (float, np.floating)):
        if not math.isfinite(float(x)) or float(x) == 0:
            return float(x)                     # infinities, NaN and signed zeros convert exactly
        x = Fraction(float(x))
    x = Fraction(x)
    p, emin, emax = FORMATS[fmt]
    if x == 0:
        return 0.0
    sign = -1 if x < 0 else 1
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    quantum = Fraction(2) ** (e - p + 1)
    n = a / quantum
    fl = n.numerator // n.denominator
    rem = n - fl
    if mode == "rn":
        up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1)
    elif mode == "rz":
        up = False
    elif mode == "rp":
        up = rem > 0 and sign > 0
    elif mode == "rm":
        up = rem > 0 and sign < 0
    else:
        raise ValueError(mode)
    r = (fl + int(up)) * quantum
    if r == 0:
        return math.copysign(0.0, sign)
    largest = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    if r > largest:
        to_inf = mode == "rn" or (mode == "rp" and sign > 0) or (mode == "rm" and sign < 0)
        return sign * math.inf if to_inf else float(sign * largest)
    return float(sign * r)


def f32_exact(x, mode: str = "rn") -> np.float32:
    return np.float32(round_exact(x, "f32", mode))


def fr(x) -> Fraction:
    """The exact value of a float / numpy float as a Fraction."""
    return Fraction(float(x))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
