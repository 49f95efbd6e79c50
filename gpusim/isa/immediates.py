"""Immediate operands as the raw 64-bit register bits the executor reads."""
from __future__ import annotations

import math
import struct

from gpusim.isa import ast
from gpusim.isa.types import T_F32, T_F64, TYPE_KIND


def signed64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def imm_bits(x: ast.Imm, ty: int) -> int:
    """0f/0d hex floats keep their bits (an 0f used as f64 is widened); decimal literals take the
    instruction's type: floats for float types, else two's-complement integers."""
    if x.fbits is not None:
        if x.fbits == "f32" and ty == T_F64:
            f = struct.unpack("<f", struct.pack("<I", x.value))[0]
            return struct.unpack("<q", struct.pack("<d", f))[0]
        return signed64(x.value)
    if TYPE_KIND.get(ty) == 3 or isinstance(x.value, float):
        f = float(x.value)
        if ty == T_F64:
            return struct.unpack("<q", struct.pack("<d", f))[0]
        if ty == T_F32:
            return f32_bits(f)
    if isinstance(x.value, float) and not math.isfinite(x.value):
        raise ValueError(f"{x.text} is not a finite number")
    return signed64(int(x.value))


def f32_bits(f: float) -> int:
    """The bits of f rounded to float32 (to nearest even; beyond the largest float32: infinity)."""
    import numpy as np
    with np.errstate(over="ignore"):
        return int(np.float32(f).view(np.uint32))
