"""Tokenizer for PTX text. Tokens carry line and column for error messages."""
from __future__ import annotations

import re
from dataclasses import dataclass

from gpusim.errors import PTXSyntaxError

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f]+)
  | (?P<nl>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"[^"\n]*")
  | (?P<fnum>0[fF][0-9a-fA-F]{8}\b|0[dD][0-9a-fA-F]{16}\b)
  | (?P<num>0[xX][0-9a-fA-F]+U?\b|\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+U?\b)
  | (?P<ident>[%$.A-Za-z_][\w$%.]*(?:::[\w$%.]+)*)
  | (?P<punct>[{}()\[\],;:+\-@!<>=|])
""", re.VERBOSE | re.DOTALL)


@dataclass(frozen=True)
class Token:
    kind: str   # 'nl' 'string' 'fnum' 'num' 'ident' 'punct' 'eof'
    text: str
    line: int
    col: int


def decode_source(data: bytes, file: str = "<ptx>") -> str:
    """PTX bytes as text; a byte that is not UTF-8 is refused at its line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        src = data[data.rfind(b"\n", 0, e.start) + 1:e.start].decode("utf-8", "replace")
        raise PTXSyntaxError(f"byte 0x{data[e.start]:02x} is not UTF-8 text", file, line, col, src) from None


def tokenize(text: str, file: str = "<ptx>") -> list[Token]:
    out: list[Token] = []
    pos, line, line_start = 0, 1, 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            col = pos - line_start + 1
            src = text[line_start:text.find("\n", pos) if "\n" in text[pos:] else n]
            raise PTXSyntaxError(f"unexpected character {text[pos]!r}", file, line, col, src)
        kind = m.lastgroup
        tok = m.group()
        if kind == "nl":
            out.append(Token("nl", tok, line, pos - line_start + 1))
            line += 1
            line_start = m.end()
        elif kind == "comment":
            nls = tok.count("\n")
            if nls:
                line += nls
                line_start = pos + tok.rfind("\n") + 1
                out.append(Token("nl", "\n", line, 1))
        elif kind == "ident" and tok.startswith(".") and "." in tok[1:]:
            # `.reg.b16` (inline asm in CUDA headers writes declarations without spaces): one
            # directive token per dotted part, as `.reg .b16`; opcodes never start with a dot
            col = pos - line_start + 1
            for part in tok[1:].split("."):
                out.append(Token(kind, "." + part, line, col))
                col += len(part) + 1
        elif kind != "ws":
            out.append(Token(kind, tok, line, pos - line_start + 1))
        pos = m.end()
    out.append(Token("eof", "", line, pos - line_start + 1))
    return out
