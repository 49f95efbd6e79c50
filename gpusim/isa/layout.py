"""Byte layout of variables within a state space, and initialiser bytes of module variables."""
from __future__ import annotations

import math
import struct

from gpusim.isa import ast
from gpusim.isa.immediates import f32_bits
from gpusim.isa.types import TYPE_CODE, TYPE_KIND, TYPE_SIZE


def align(x: int, a: int) -> int:
    return (x + a - 1) // a * a if a > 1 else x


class Layout:
    """Byte offsets of variables within one state space."""

    def __init__(self, start: int = 0):
        self.size = start
        self.addr: dict[str, int] = {}

    def place(self, name: str, size: int, alignment: int) -> int:
        if name in self.addr:
            return self.addr[name]
        off = align(self.size, max(alignment, 1))
        self.addr[name] = off
        self.size = off + size
        return off


def init_bytes(decl: ast.VarDecl, resolve) -> bytes:
    code = TYPE_CODE[decl.type]
    size = TYPE_SIZE[code]
    out = bytearray()
    for v in decl.init or []:
        if isinstance(v, tuple):
            out += struct.pack("<Q", resolve(v[1]))[:size]
        elif TYPE_KIND[code] == 3 and size == 4:
            out += struct.pack("<I", f32_bits(float(v)))
        elif TYPE_KIND[code] == 3 and size == 8:
            out += struct.pack("<d", float(v))
        elif TYPE_KIND[code] == 3 and isinstance(v, float):     # f16 / bf16 from a decimal value
            out += _half_bits(v, decl.type).to_bytes(2, "little")
        elif isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"{v} is not a finite number")
        else:
            out += (int(v) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    return bytes(out[: decl.size])




def _half_bits(v: float, typ: str) -> int:
    """f16 or bf16 bits of v, rounded to nearest even."""
    import numpy as np
    if typ.startswith("f16"):
        with np.errstate(over="ignore"):
            return int(np.float16(v).view(np.uint16))
    b = f32_bits(v)
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return 0x7FC0
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
