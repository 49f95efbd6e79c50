"""Where each symbol of a kernel lives: module variables, each function's frame in .local, the
kernel's parameters and dynamic shared memory, placed in their state spaces; and the initial bytes of
global and const variables."""
from __future__ import annotations

from gpusim.errors import PTXSyntaxError
from gpusim.isa import ast
from gpusim.isa import opcodes as oc
from gpusim.isa.layout import align as _align
from gpusim.isa.layout import init_bytes as _init_bytes
from gpusim.isa.limits import check_totals
from gpusim.isa.spaces import GLOBAL_BASE


def place_symbols(d) -> None:
    """Give every variable of decoder d's module, its functions' frames and the kernel's parameters an
    address in its state space (d.sym, d.func_sym, d.frames), and the initial bytes of global and
    const variables (d.global_inits, d.const_init)."""
    extern_shared = []
    for v in d.m.vars:
        if v.space == "global":
            off = d.glob.place(v.name, max(v.size, 1), v.align or 8)
            d.sym[v.name] = (oc.SP_GLOBAL, GLOBAL_BASE + off)
        elif v.space == "const":
            off = d.const.place(v.name, max(v.size, 1), v.align or 4)
            d.sym[v.name] = (oc.SP_CONST, off)
        elif v.space == "shared":
            if v.count == 0:
                extern_shared.append(v)
            else:
                d.sym[v.name] = (oc.SP_SHARED, d.shared.place(v.name, v.size, v.align or 4))
    for fn in d._functions():
        if fn.name in d.cyclic:          # frames per activation keep the static frame's alignment
            d.local.size = _align(d.local.size, 16)
        frame_start = d.local.size
        for v in fn.vars:
            key = (fn.name, v.name)
            if v.space == "shared":
                if v.count == 0:
                    extern_shared.append(v)
                else:
                    d.func_sym[key] = (oc.SP_SHARED, d.shared.place(
                        f"{fn.name}::{v.name}", v.size, v.align or 4))
            elif v.space in ("local", "param"):
                d.func_sym[key] = (oc.SP_LOCAL, d.local.place(     # natural alignment by default
                    f"{fn.name}::{v.name}", max(v.size, 1), max(v.align, v.elem_size, 1)))
            elif v.space == "global":
                off = d.glob.place(f"{fn.name}::{v.name}", max(v.size, 1), v.align or 8)
                d.func_sym[key] = (oc.SP_GLOBAL, GLOBAL_BASE + off)
        if fn.kind == "func":
            for v in fn.params + fn.rets:
                d.func_sym[(fn.name, v.name)] = (oc.SP_LOCAL, d.local.place(
                    f"{fn.name}::{v.name}", max(v.size, 1), max(v.align, v.elem_size, 1)))
        d.frames[fn.name] = (frame_start, d.local.size - frame_start)
    for v in d.k.params:
        off = d.params.place(v.name, v.size, max(v.align, min(v.elem_size, 8), 1))
        d.sym[v.name] = (oc.SP_PARAM, off)
    d.shared_static = d.shared.size
    dyn = _align(d.shared.size, 16)
    for v in extern_shared:
        d.sym[v.name] = (oc.SP_SHARED, dyn)
        for fn in d._functions():
            d.func_sym[(fn.name, v.name)] = (oc.SP_SHARED, dyn)
    check_totals(d)
    for v in d.m.vars:
        if v.space in ("global", "const") and v.init:
            data = _init_of(d, v)
            if v.space == "global":
                d.global_inits.append((d.glob.addr[v.name], data))
            else:
                d.const_init = getattr(d, "const_init", []) + [(d.const.addr[v.name], data)]



def _init_of(d, v: ast.VarDecl) -> bytes:
    def resolve(name):
        if name not in d.sym:
            raise PTXSyntaxError(f"unknown symbol '{name}' in the initializer of '{v.name}'", d.file, v.line, 1)
        return d.sym[name][1]
    try:
        return _init_bytes(v, resolve)
    except ValueError as e:
        raise PTXSyntaxError(f"bad initializer of '{v.name}': {e}", d.file, v.line, 1) from None
