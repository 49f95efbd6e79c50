"""Tensor maps for TMA tensor copies (cp.async.bulk.tensor): `encode_tiled`, gpusim's cuTensorMapEncodeTiled.

The hardware's 128-byte CUtensorMap is opaque; gpusim's layout of the 128 bytes (little endian):

    offset  size  field
         0     8  global address (bytes)
         8     4  magic 0x414D5447 ("GTMA"): the executor faults on anything else
        12     1  data type (CUtensorMapDataType's value)
        13     1  rank (1..5)
        14     1  interleave (0: none; others refused)
        15     1  swizzle (CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B)
        16     1  L2 promotion (recorded, no effect)
        17     1  out-of-bounds fill (0: zeros; NaN_REQUEST_ZERO_FMA refused)
        18     1  element size in bytes
        20    20  global dims, 5 x u32 (elements)
        40    32  global strides of dims 1..4, 4 x u64 (bytes; dim 0 is dense)
        72    10  box dims, 5 x u16 (elements)
        82     5  element strides, 5 x u8
    the rest zero.

The copy semantics live in gpusim/sm/bulkcopy.py. `encode_tiled` takes the fields of
cuTensorMapEncodeTiled, by CUDA's enum names (or their values), and checks what the driver checks
that gpusim relies on. `global_address` is an int (a device address) or the numpy array the tensor
lives in: then `launch` places the array in device memory and writes its address (pass the array
only through the tensor map: an array also passed as its own argument is a second copy).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from gpusim.errors import LaunchError

MAGIC = 0x414D5447
SIZE = 128
O_ADDR, O_MAGIC, O_DTYPE, O_RANK, O_INTERLEAVE, O_SWIZZLE, O_L2, O_OOB, O_ESIZE = 0, 8, 12, 13, 14, 15, 16, 17, 18
O_DIMS, O_STRIDES, O_BOX, O_ESTRIDES = 20, 40, 72, 82
DTYPES = {"UINT8": (0, 1), "UINT16": (1, 2), "UINT32": (2, 4), "INT32": (3, 4), "UINT64": (4, 8), "INT64": (5, 8),
          "FLOAT16": (6, 2), "FLOAT32": (7, 4), "FLOAT64": (8, 8), "BFLOAT16": (9, 2), "FLOAT32_FTZ": (10, 4),
          "TFLOAT32": (11, 4), "TFLOAT32_FTZ": (12, 4)}
SWIZZLES = {"NONE": 0, "32B": 1, "64B": 2, "128B": 3}
INTERLEAVES = {"NONE": 0, "16B": 1, "32B": 2}
L2_PROMOTIONS = {"NONE": 0, "L2_64B": 1, "L2_128B": 2, "L2_256B": 3}
OOB_FILLS = {"NONE": 0, "NAN_REQUEST_ZERO_FMA": 1}


def _enum(table: dict, v, what: str) -> int:
    if isinstance(v, str):
        key = v.upper().removeprefix("CU_TENSOR_MAP_").split("_", 1)[-1] if v.upper().startswith("CU_") else v.upper()
        for name in (key, key.removeprefix("SWIZZLE_").removeprefix("INTERLEAVE_").removeprefix("FLOAT_OOB_FILL_")
                     .removeprefix("L2_PROMOTION_").removeprefix("DATA_TYPE_")):
            if name in table:
                return table[name]
        raise LaunchError(f"unknown {what} {v!r} (one of {', '.join(table)})")
    if int(v) not in table.values():
        raise LaunchError(f"unknown {what} {v!r}")
    return int(v)


@dataclass(frozen=True)
class TensorMap:
    """The fields of a tiled tensor map; `encode(address)` gives its 128 bytes."""
    dtype: int
    esize: int
    rank: int
    array: np.ndarray | None
    address: int
    dims: tuple
    strides: tuple
    box: tuple
    estrides: tuple
    interleave: int
    swizzle: int
    l2: int
    oob: int

    def encode(self, address: int | None = None) -> bytes:
        buf = bytearray(SIZE)
        struct.pack_into("<QI7B", buf, 0, self.address if address is None else address, MAGIC, self.dtype, self.rank,
                         self.interleave, self.swizzle, self.l2, self.oob, self.esize)
        struct.pack_into("<5I", buf, O_DIMS, *(list(self.dims) + [1] * (5 - self.rank)))
        struct.pack_into("<4Q", buf, O_STRIDES, *(list(self.strides) + [0] * (4 - len(self.strides))))
        struct.pack_into("<5H", buf, O_BOX, *(list(self.box) + [1] * (5 - self.rank)))
        struct.pack_into("<5B", buf, O_ESTRIDES, *(list(self.estrides) + [1] * (5 - self.rank)))
        return bytes(buf)


def encode_tiled(dtype, rank: int, global_address, global_dim, global_strides, box_dim, element_strides=None,
                 interleave="NONE", swizzle="NONE", l2_promotion="NONE", oob_fill="NONE") -> TensorMap:
    """cuTensorMapEncodeTiled's fields: global_dim (rank sizes, innermost first), global_strides
    (rank - 1 byte strides of dims 1..rank-1, multiples of 16), box_dim (rank sizes, each 1..256),
    element_strides (rank traversal strides 1..8; default all 1)."""
    code = _enum({k: v[0] for k, v in DTYPES.items()}, dtype, "data type")
    esize = next(s for c, s in DTYPES.values() if c == code)
    if not 1 <= rank <= 5:
        raise LaunchError(f"tensor map rank {rank}: 1 to 5")
    dims, strides, box = tuple(int(x) for x in global_dim), tuple(int(x) for x in global_strides), \
        tuple(int(x) for x in box_dim)
    estrides = tuple(int(x) for x in (element_strides if element_strides is not None else [1] * rank))
    if len(dims) != rank or len(box) != rank or len(estrides) != rank or len(strides) != rank - 1:
        raise LaunchError(f"a rank-{rank} tensor map takes {rank} dims, {rank - 1} strides, {rank} box dims and "
                          f"{rank} element strides")
    if any(not 1 <= d < 1 << 32 for d in dims) or any(s % 16 or s <= 0 for s in strides):
        raise LaunchError("tensor map dims must be 1..2^32-1 and strides positive multiples of 16 bytes")
    if any(not 1 <= b <= 256 for b in box) or any(not 1 <= e <= 8 for e in estrides):
        raise LaunchError("tensor map box dims must be 1..256 and element strides 1..8")
    il = _enum(INTERLEAVES, interleave, "interleave")
    sw = _enum(SWIZZLES, swizzle, "swizzle")
    if il != 0:
        raise LaunchError("interleaved tensor maps are not implemented in gpusim")
    if sw and box[0] * esize > 16 << sw:
        raise LaunchError(f"box dim 0 ({box[0] * esize} bytes) exceeds the {16 << sw}-byte swizzle span")
    oob = _enum(OOB_FILLS, oob_fill, "out-of-bounds fill")
    if oob:
        raise LaunchError("NaN_REQUEST_ZERO_FMA out-of-bounds fill is not implemented in gpusim (zeros are)")
    array = global_address if isinstance(global_address, np.ndarray) else None
    address = 0 if array is not None else int(global_address)
    if array is None and address % 16:
        raise LaunchError("the tensor's global address must be 16-byte aligned")
    return TensorMap(code, esize, rank, array, address, dims, strides, box, estrides, il, sw,
                     _enum(L2_PROMOTIONS, l2_promotion, "L2 promotion"), oob)
