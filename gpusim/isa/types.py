"""PTX scalar types: codes, sizes and kinds shared by the decoder and the executor."""
from __future__ import annotations

# kind: 0 untyped bits, 1 unsigned, 2 signed, 3 float, 4 predicate
_TYPES = [
    # name, size in bytes, kind
    ("b8", 1, 0), ("b16", 2, 0), ("b32", 4, 0), ("b64", 8, 0), ("b128", 16, 0),
    ("u8", 1, 1), ("u16", 2, 1), ("u32", 4, 1), ("u64", 8, 1),
    ("s8", 1, 2), ("s16", 2, 2), ("s32", 4, 2), ("s64", 8, 2),
    ("f16", 2, 3), ("f16x2", 4, 3), ("bf16", 2, 3), ("bf16x2", 4, 3), ("f32", 4, 3), ("f64", 8, 3),
    ("pred", 1, 4),
    # tensor-core and 8-bit float formats: operands of mma and cvt only (gpusim/isa/tensorops.py)
    ("tf32", 4, 3), ("e4m3", 1, 3), ("e5m2", 1, 3), ("e4m3x2", 2, 3), ("e5m2x2", 2, 3),
]
TYPE_CODE = {name: i + 1 for i, (name, _, _) in enumerate(_TYPES)}   # 0 = no type
TYPE_NAME = {v: k for k, v in TYPE_CODE.items()}
TYPE_SIZE = {TYPE_CODE[n]: s for n, s, _ in _TYPES}
TYPE_KIND = {TYPE_CODE[n]: k for n, _, k in _TYPES}

K_BITS, K_UINT, K_SINT, K_FLOAT, K_PRED = 0, 1, 2, 3, 4

# Codes the executor branches on (numba sees them as global integer constants).
T_F16 = TYPE_CODE["f16"]
T_BF16 = TYPE_CODE["bf16"]
T_F32 = TYPE_CODE["f32"]
T_F64 = TYPE_CODE["f64"]
T_PRED = TYPE_CODE["pred"]
T_F16X2 = TYPE_CODE["f16x2"]
T_BF16X2 = TYPE_CODE["bf16x2"]
T_TF32 = TYPE_CODE["tf32"]
T_E4M3 = TYPE_CODE["e4m3"]
T_E5M2 = TYPE_CODE["e5m2"]
T_E4M3X2 = TYPE_CODE["e4m3x2"]
T_E5M2X2 = TYPE_CODE["e5m2x2"]


def type_size(name: str) -> int:
    return TYPE_SIZE[TYPE_CODE[name]]


def is_type(name: str) -> bool:
    return name in TYPE_CODE


def kind_table():
    """(size, kind) arrays indexed by type code, for the executor."""
    import numpy as np
    n = len(_TYPES) + 1
    size = np.zeros(n, np.int64)
    kind = np.zeros(n, np.int64)
    for code in TYPE_NAME:
        size[code] = TYPE_SIZE[code]
        kind[code] = TYPE_KIND[code]
    return size, kind
