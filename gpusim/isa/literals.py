"""PTX literal text -> values: integers (decimal, hex, U suffix) and 0f/0d hex floats (the parser's)."""
from __future__ import annotations

import struct


def int_literal(text: str) -> int | None:
    """The value of an integer literal (decimal or hex, optional U suffix); None if it is not one.
    More than 40 digits cannot fit 128 bits and are not converted (Python limits long conversions)."""
    t = text[:-1] if text.endswith("U") else text
    if t[:2] in ("0x", "0X"):
        digits, base = t[2:], 16
        ok = digits and all(c in "0123456789abcdefABCDEF" for c in digits)
    else:
        digits, base = t, 10
        ok = digits.isascii() and digits.isdigit()
    if not ok:
        return None
    digits = digits.lstrip("0") or "0"
    return 1 << 128 if len(digits) > 40 else int(digits, base)


def hex_bits(text: str) -> int:
    return int(text[2:], 16)


def hex_float(text: str) -> float:
    bits = hex_bits(text)
    if text[1] in "fF":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]
