"""Register scopes of a function body: `{ .reg .b32 %t; ... }` blocks (inline asm, libdevice).

A register declared in a block is visible in that block (and blocks inside it) only and shadows an
outer register of the same name; two sibling blocks declaring the same name declare two registers.
The parser records such a register under a name of its own, `%t{N}` (N numbers the blocks of the
module; 0 is the function's own scope), and so any register declared without a '%' (`.reg .u32 r0;`
-> `%r0{N}`), whose uses would otherwise read as symbols. Registers declared at function level with a
'%' keep their names.
"""
from __future__ import annotations


class Scopes:
    def __init__(self):
        self.stack: list = []       # innermost last: (id, {name: renamed}, {stem: (renamed stem, count)})
        self.count = 0

    def enter_function(self):
        self.stack = [(0, {}, {})]

    def push(self):
        self.count += 1
        self.stack.append((self.count, {}, {}))

    def pop(self):
        if self.stack:
            self.stack.pop()

    def declare(self, name: str, count: int | None = None) -> str:
        """Declare register `name` (a range `name<count>` when count is given) in the innermost block;
        the name to record it under."""
        sid, names, ranges = self.stack[-1]
        if sid == 0 and name.startswith("%"):
            return name
        renamed = (name if name.startswith("%") else "%" + name) + f"{{{sid}}}"
        if count is None:
            names[name] = renamed
        else:
            ranges[name] = (renamed, count)
        return renamed

    def resolve(self, name: str) -> str | None:
        """The name a register declared in an enclosing block was given (None: not such a register)."""
        for _, names, ranges in reversed(self.stack):
            if name in names:
                return names[name]
            stem = name.rstrip("0123456789")
            digits = name[len(stem):]
            if digits and stem in ranges and len(digits) < 12 and int(digits) < ranges[stem][1]:
                return ranges[stem][0] + digits
        return None

    def name(self, name: str) -> str:
        return self.resolve(name) or name
