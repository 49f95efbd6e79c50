"""Triton's host-side tensor descriptors (`triton.tools.tensor_descriptor.TensorDescriptor`, the
`desc.load([..])` / `desc.store([..], x)` of a kernel) over numpy arrays, for sm_90's TMA.

A kernel parameter of type `tensordesc<...>` is, in the PTX Triton emits, a 128-byte CUtensorMap passed
by value followed by the tensor's shape (i32 each) and strides (i64 each, in elements). Triton's own
launcher fills the map with cuTensorMapEncodeTiled from the compiled kernel's `tensordesc_meta` (box,
swizzle, element type, chosen by the compiler); `leaves` does the same with gpusim's encoder
(gpusim/tma.py), so the kernel's cp.async.bulk.tensor copies run through gpusim's TMA model."""
from __future__ import annotations

import numpy as np

from gpusim.errors import LaunchError
from gpusim.tma import encode_tiled


def tensor_descriptor(array, block_shape, shape=None, strides=None, padding: str = "zero"):
    """A TensorDescriptor over a numpy array (or gpusim.triton.reinterpret(...) of one): shape and strides
    (in elements, the last 1) default to the array's own; block_shape is the tile a load or store moves."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    base = getattr(array, "base", array) if type(array).__name__ == "Reinterpreted" else array
    if not isinstance(base, np.ndarray):
        raise LaunchError(f"tensor_descriptor takes a numpy array, got {type(array).__name__}")
    if not base.flags.c_contiguous:
        raise LaunchError("tensor_descriptor: the array must be C-contiguous (the last dimension dense)")
    shape = list(base.shape if shape is None else shape)
    strides = list([s // base.itemsize for s in base.strides] if strides is None else strides)
    block_shape = [int(b) for b in block_shape]
    if not (len(shape) == len(strides) == len(block_shape)) or not 1 <= len(shape) <= 5:
        raise LaunchError("tensor_descriptor: shape, strides and block_shape need the same rank, 1 to 5")
    if strides[-1] != 1 or any((s * base.itemsize) % 16 for s in strides[:-1]):
        raise LaunchError("tensor_descriptor: the last stride must be 1 and the others multiples of 16 bytes")
    if padding not in ("zero", "nan"):
        raise LaunchError(f"tensor_descriptor: padding is 'zero' or 'nan', got {padding!r}")
    d = object.__new__(TensorDescriptor)       # its __post_init__ asks the base for a torch data_ptr()
    d.base, d.shape, d.strides, d.block_shape, d.padding, d.round_f32_to_tf32 = (
        array, shape, strides, block_shape, padding, False)
    return d


def is_descriptor(a) -> bool:
    return type(a).__name__ == "TensorDescriptor" and hasattr(a, "block_shape")


def host_view(d, host_arg):
    """The descriptor as Triton's specialiser sees it: its base as host_arg makes an array look."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    v = object.__new__(TensorDescriptor)
    v.base, v.shape, v.strides, v.block_shape = host_arg(d.base, "a tensor descriptor's base"), list(d.shape), \
        list(d.strides), list(d.block_shape)
    v.padding, v.round_f32_to_tf32 = d.padding, d.round_f32_to_tf32
    return v


def leaves(d, meta) -> list:
    """The kernel parameters of one descriptor: its tensor map, shape and strides (Triton's layout)."""
    if meta is None:
        raise LaunchError("a tensor descriptor argument whose kernel has no tensordesc_meta: this Triton lowers "
                          "descriptors in a way gpusim does not know")
    if meta.get("is_im2col") or meta.get("fp4_padded"):
        raise LaunchError("im2col and fp4-padded tensor descriptors are not implemented in gpusim")
    if d.padding == "nan":
        raise LaunchError("tensor descriptors with padding='nan' are not implemented in gpusim (zero padding is)")
    base = d.base.base if type(d.base).__name__ == "Reinterpreted" else d.base
    esize = int(meta["elem_size"])
    rank = len(d.shape)
    tm = encode_tiled(int(meta["elem_type"]), rank, base, list(reversed(d.shape)),
                      [int(s) * esize for s in reversed(d.strides[:-1])], list(reversed(meta["block_size"])),
                      swizzle=int(meta["swizzle"]))
    return [tm] + [np.int32(x) for x in d.shape] + [np.int64(x) for x in d.strides]
