"""Kernel arguments as the driver passes them: numpy arrays copied to device memory and passed as
pointers (numba kernels: numba's array descriptor), scalars in their parameter's type, records,
complex numbers, tuples and tensor maps, packed into the .param space of the kernel."""
from __future__ import annotations

import numpy as np

from gpusim.errors import LaunchError
from gpusim.kernels import PTXKernel
from gpusim.memory.device import DeviceMemory
from gpusim.tma import TensorMap


def numba_type(a):
    from numba import typeof
    if isinstance(a, np.ndarray):
        return typeof(a)
    if isinstance(a, (bool, np.bool_)):
        return typeof(np.bool_(a))
    if isinstance(a, (int, np.integer)) and not -(1 << 63) <= int(a) < (1 << 64):
        raise LaunchError(f"integer argument {a} does not fit 64 bits")
    if isinstance(a, (int, float, complex, np.generic)):
        return typeof(a)
    raise LaunchError(f"unsupported kernel argument of type {type(a).__name__}: pass numpy arrays or scalars")




def put_array(a: np.ndarray, mem: DeviceMemory, copies: list):
    src = a if (a.flags.c_contiguous or a.flags.f_contiguous) else np.ascontiguousarray(a)
    addr = mem.put_array(src)
    copies.append((a, src, addr))
    return src, addr


def check_against_signature(i: int, t, a) -> None:
    """An argument must be what an explicit signature declares (as numba.cuda refuses a call that
    matches none of a kernel's signatures): an array of the same dtype, dimensions and layout, or a
    scalar for a scalar type."""
    if hasattr(t, "ndim"):
        if not isinstance(a, np.ndarray):
            raise LaunchError(f"argument {i} is {type(a).__name__} but the signature says an array {t}")
        got = numba_type(a)
        ok = str(got.dtype) == str(t.dtype) and got.ndim == t.ndim and (
            t.layout == "A" or t.layout == got.layout or got.ndim <= 1 and got.layout in "CF")
        if not ok:
            raise LaunchError(f"argument {i} is an array {got} but the signature says {t}")
    elif isinstance(a, np.ndarray):
        raise LaunchError(f"argument {i} is an array but the signature says a scalar {t}")


def flatten_args(k: PTXKernel, args, mem: DeviceMemory, copies: list) -> list:
    """Kernel argument values in PTX parameter order, arrays as device pointers (+ numba's descriptor)."""
    if k.signature is None:
        flat = []
        for idx, a in enumerate(args):
            if isinstance(a, TensorMap):
                flat.append(_tensor_map_arg(k, idx, a, mem, copies))
            elif isinstance(a, np.ndarray):
                p = k.decoded.params[idx] if idx < len(k.decoded.params) else None
                if p is not None and (p.size != 8 or p.type == "f64"):
                    raise LaunchError(f"argument {idx} is an array (passed as a 64-bit pointer) but parameter "
                                      f"'{p.name}' is .{p.type}")
                flat.append(put_array(a, mem, copies)[1])
            else:
                flat.append(a)
        return flat
    flat = []
    for idx, (a, t) in enumerate(zip(args, k.signature)):
        flat += _numba_value(idx, a, t, mem, copies)
    return flat


def _tensor_map_arg(k: PTXKernel, idx: int, tm: TensorMap, mem: DeviceMemory, copies: list):
    """A tensor map (gpusim/tma.py) as a 128-byte parameter, or as a pointer to its 128 bytes in global memory."""
    addr = put_array(tm.array, mem, copies)[1] if tm.array is not None else tm.address
    data = tm.encode(addr)
    p = k.decoded.params[idx] if idx < len(k.decoded.params) else None
    if p is not None and p.size == len(data):
        return data
    if p is not None and p.size == 8 and p.type in ("u64", "b64", "s64"):
        return mem.put_array(np.frombuffer(data, np.uint8).copy())
    raise LaunchError(f"argument {idx} is a tensor map: its parameter must be `.param .align 64 .b8 name[128]` "
                      "or a 64-bit pointer")


def _numba_value(idx: int, a, t, mem: DeviceMemory, copies: list) -> list:
    """numba's calling convention for one argument of numba type t: an array as its descriptor
    (meminfo, parent, size, itemsize, data, shape..., strides...), a tuple as its members in order."""
    from numba.core import types
    if isinstance(t, types.Array) or isinstance(a, np.ndarray):
        if not isinstance(a, np.ndarray):
            raise LaunchError(f"argument {idx} is {type(a).__name__} but the signature says an array {t}")
        if not isinstance(t, types.Array):
            raise LaunchError(f"argument {idx} is an array but the signature says {t}")
        src, addr = put_array(a, mem, copies)
        return [0, 0, a.size, a.itemsize, addr] + list(src.shape) + list(src.strides)
    if isinstance(t, types.BaseTuple):
        if not isinstance(a, tuple) or len(a) != len(t.types):
            raise LaunchError(f"argument {idx} must be a tuple of {len(t.types)} items for {t}, got {a!r}")
        out = []
        for x, tx in zip(a, t.types):
            out += _numba_value(idx, x, tx, mem, copies)
        return out
    if isinstance(t, (types.EnumMember, types.IntEnumMember)):
        return _numba_value(idx, a.value, t.dtype, mem, copies)
    if isinstance(t, (types.NPDatetime, types.NPTimedelta)):     # numba passes their int64 count
        return [np.asarray(a).view(np.int64)[()] if isinstance(a, (np.datetime64, np.timedelta64))
                else np.int64(a)]
    if isinstance(t, (types.NoneType, types.Omitted)):
        return []
    return _numba_scalar(idx, a, t, mem, copies)


def _numba_scalar(idx: int, a, t, mem: DeviceMemory, copies: list) -> list:
    """The parameter values numba passes for one scalar argument of numba type t: a complex number as
    its real and imaginary parts (two float parameters), a record (numpy structured scalar) as a
    pointer to a device copy of its bytes, anything else as one value of its dtype."""
    if hasattr(t, "fields") and hasattr(t, "dtype"):          # numba.types.Record
        if not isinstance(a, (np.void, np.record)) or a.dtype.itemsize != t.size:
            raise LaunchError(f"argument {idx} must be a numpy record of dtype {t.dtype}, got {a!r}")
        rec = np.frombuffer(a.tobytes(), np.uint8).copy()
        addr = mem.put_array(rec)
        copies.append((a, rec, addr))       # written back after the kernel, as numba does
        return [addr]
    name = str(t)
    if name in ("complex64", "complex128"):
        part = np.float32 if name == "complex64" else np.float64
        z = complex(a)
        return [part(z.real), part(z.imag)]
    try:
        if name == "bool":
            return [np.bool_(a)]
        dt = np.dtype(name)
        if dt.kind in "iu" and isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
            # numba passes an int through ctypes (c_int32(v), ...): wrapped to the type's width
            wrapped = int(a) & ((1 << (8 * dt.itemsize)) - 1)
            return [np.array(wrapped, dt.str.replace("i", "u")).view(dt)[()]]
        if dt == np.float16:             # PTX declares half parameters as .b16/.u16: its bits
            return [np.array(a, np.float16).view(np.uint16)[()]]
        return [dt.type(a)]
    except (TypeError, ValueError, OverflowError):
        raise LaunchError(f"argument {idx} of numba type {t} cannot be passed to a kernel") from None


def _aggregate_bytes(p, v) -> bytes | None:
    """Raw bytes for an aggregate parameter (`.param .align N .b8 name[size]`): a numpy record or bytes
    of exactly that size, or a complex number whose two parts fill it."""
    if isinstance(v, (complex, np.complexfloating)) and p.type == "b8" and p.size in (8, 16):
        return np.array(v, np.complex64 if p.size == 8 else np.complex128).tobytes()
    if p.type == "b128" and isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v) & ((1 << 128) - 1)).to_bytes(16, "little")
    if isinstance(v, (np.void, np.record, bytes, bytearray)):
        data = v.tobytes() if isinstance(v, np.generic) else bytes(v)
        return data if len(data) == p.size else None
    return None


def pack_params(k: PTXKernel, values: list) -> np.ndarray:
    d = k.decoded
    buf = bytearray(max(d.param_size, 8))
    if len(values) != len(d.params):
        raise LaunchError(f"kernel '{d.name[:60]}' takes {len(d.params)} parameters, "
                          f"got {len(values)} values")
    for p, v in zip(d.params, values):
        agg = _aggregate_bytes(p, v)
        if agg is not None:
            data = agg
        elif p.size > 8:
            raise LaunchError(f"parameter '{p.name}' is an aggregate of {p.size} bytes: pass a numpy record, "
                              f"bytes or (for 8 or 16 bytes) a complex number of that size, got {v!r}")
        else:
            data = _param_bytes(p, v)
        buf[p.offset:p.offset + len(data)] = data
    return np.frombuffer(bytes(buf), np.uint8).copy()


def _param_bytes(p, v) -> bytes:
    """The bytes of value v in parameter p; a value that does not fit the parameter is refused."""
    if p.size > 8:
        raise LaunchError(f"parameter '{p.name}' of {p.size} bytes (aggregates) is not supported")
    is_float = isinstance(v, (float, np.floating))
    if not is_float and not isinstance(v, (int, np.integer, bool, np.bool_)):
        raise LaunchError(f"parameter '{p.name}' (.{p.type}) cannot take a {type(v).__name__}")
    if p.type in ("f32", "f64"):
        with np.errstate(over="ignore"):
            return np.asarray(v, np.float32 if p.type == "f32" else np.float64).tobytes()
    if is_float:
        if p.type not in ("b16", "b32", "b64") or np.asarray(v).itemsize != p.size:
            raise LaunchError(f"parameter '{p.name}' is .{p.type}: a {np.asarray(v).dtype} value does not "
                              f"belong there" + (" (it holds an address: pass an array)" if p.size == 8 else ""))
        return np.asarray(v).tobytes()
    iv, bits = int(v), 8 * p.size
    if not -(1 << (bits - 1)) <= iv < (1 << bits):
        raise LaunchError(f"value {iv} does not fit parameter '{p.name}' (.{p.type})")
    return (iv & ((1 << bits) - 1)).to_bytes(p.size, "little")
