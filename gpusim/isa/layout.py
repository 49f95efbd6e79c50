"""Byte layout of variables within a state space, and initialiser bytes of module variables."""
from __future__ import annotations

import struct

from gpusim.isa import ast
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
        elif TYPE_KIND[code] == 3:
            out += struct.pack("<f" if size == 4 else "<d", float(v))
        else:
            out += (int(v) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    return bytes(out[: decl.size])


