"""The PTX syntax tree produced by the parser. Plain data: no behaviour beyond small helpers."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reg:
    name: str           # '%r1', '%tid.x', '%p2'
    neg: bool = False   # '!%p1' (predicate operands of setp/selp combining)


@dataclass(frozen=True)
class Imm:
    value: int | float
    text: str
    fbits: str | None = None  # 'f32' / 'f64' for 0f/0d hex floats (value then holds the raw bits)


@dataclass(frozen=True)
class Sym:
    name: str
    offset: int = 0


@dataclass(frozen=True)
class Addr:
    base: str | None    # register or symbol name
    offset: int = 0


@dataclass(frozen=True)
class TensorAddr(Addr):
    """`[tensorMap, {c0, c1, ...}]`: a tensor map's address and the box's coordinates (cp.async.bulk.tensor)."""
    coords: tuple = ()


@dataclass(frozen=True)
class Vec:
    items: tuple


@dataclass(frozen=True)
class PredPair:
    first: Reg
    second: Reg


@dataclass(frozen=True)
class Sink:
    pass


@dataclass(frozen=True)
class Paren:
    items: tuple


@dataclass
class Instr:
    opcode: str                 # full dotted name, e.g. 'ld.global.v4.f32'
    operands: list
    line: int
    col: int
    text: str
    guard: str | None = None    # predicate register guarding execution
    guard_neg: bool = False
    loc: tuple | None = None    # (file id, source line) from the last .loc

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def mods(self) -> list[str]:
        return self.opcode.split(".")[1:]


@dataclass
class Label:
    name: str
    line: int


@dataclass
class VarDecl:
    space: str          # 'global' | 'shared' | 'const' | 'local' | 'param'
    name: str
    type: str           # 'b8', 'f32', ...
    count: int          # number of elements (1 for scalars); 0 for extern unsized arrays
    align: int
    vec: int = 1
    init: list | None = None
    line: int = 0

    @property
    def elem_size(self) -> int:
        from gpusim.isa.types import type_size
        return type_size(self.type) * self.vec

    @property
    def size(self) -> int:
        return self.elem_size * max(self.count, 1) if self.count else 0


@dataclass
class Function:
    name: str
    kind: str                               # 'entry' | 'func'
    params: list = field(default_factory=list)     # VarDecl (space 'param')
    rets: list = field(default_factory=list)       # VarDecl (space 'param')
    regs: dict = field(default_factory=dict)       # register name -> type
    reg_ranges: dict = field(default_factory=dict)  # '%r' -> (type, count) for '%r<N>' declarations
    body: list = field(default_factory=list)       # Instr | Label
    vars: list = field(default_factory=list)       # VarDecl declared in the body (.local/.shared/.param)
    directives: dict = field(default_factory=dict)  # maxntid, reqntid, ...
    line: int = 0


@dataclass
class Module:
    file: str
    version: str = ""
    target: str = ""
    address_size: int = 64
    files: dict = field(default_factory=dict)      # .file id -> path
    vars: list = field(default_factory=list)       # module-scope VarDecl
    functions: dict = field(default_factory=dict)  # name -> Function
    text: str = ""
