"""The declarations of a PTX module and its functions: variables (with initialisers), parameter lists and
.reg ranges; a part of the parser (parser.py), which supplies the token helpers (next, peek, accept,
expect, error, int_value, number) and the register scopes."""
from __future__ import annotations

from gpusim.isa import ast, limits
from gpusim.isa.literals import hex_float
from gpusim.isa.types import is_type


class Declarations:
    def var_decl(self, allow_no_semicolon: bool = False) -> ast.VarDecl:
        space_tok = self.next()
        space = space_tok.text[1:]
        align, vec, typ = 0, 1, None
        while True:
            t = self.peek().text
            if t == ".align":
                self.next()
                tok = self.next()
                align = self.int_value(tok, limit=limits.MAX_ALIGN + 1)
                if align & (align - 1):
                    self.error(f".align must be a power of two, got {align}", tok)
            elif t in (".v2", ".v4", ".v8"):
                vec = int(self.next().text[2:])
            elif t.startswith(".") and is_type(t[1:]):
                typ = self.next().text[1:]
            elif t in (".ptr", ".global", ".shared", ".const", ".local", ".volatile"):
                self.next()
            else:
                break
        if typ is None:
            self.error("declaration without a type", self.peek())
        name_tok = self.next()
        if name_tok.kind != "ident":
            self.error(f"expected a name, found '{name_tok.text}'", name_tok)
        count = 1
        dims = []
        while self.accept("["):
            if self.peek().text == "]":
                dims.append(0)
            else:
                dims.append(self.int_value(self.next()))
            self.expect("]")
        if dims:
            count = 1
            for d in dims:
                count *= d
        init = None
        if self.accept("="):
            init = self.initializer()
        decl = ast.VarDecl(space, name_tok.text, typ, count, align or 0, vec, init, name_tok.line)
        cap, why = limits.DECL_LIMIT.get(space, (limits.GLOBAL_SPACE, ""))
        if decl.size > cap:
            self.error(f".{space} variable '{name_tok.text}' of {decl.size} bytes is too large ({why})", name_tok)
        if not allow_no_semicolon:
            self.expect(";")
        return decl

    def initializer(self) -> list:
        out: list = []
        if self.accept("{"):
            while not self.accept("}"):
                out.extend(self.initializer())
                self.accept(",")
            return out
        neg = self.accept("-")
        tok = self.next()
        if tok.kind == "fnum":
            out.append(hex_float(tok.text))
        elif tok.kind == "num":
            out.append(self.number(tok, neg))
        elif tok.kind == "ident":
            # generic(sym) / sym: address initialisers
            if self.accept("("):
                inner = self.next().text
                self.expect(")")
                out.append(("addr", inner))
            else:
                out.append(("addr", tok.text))
        else:
            self.error(f"bad initializer '{tok.text}'", tok)
        return out

    def param_list(self) -> list:
        params = []
        self.expect("(")
        while not self.accept(")"):
            if self.peek().text != ".param" and self.peek().text != ".reg":
                self.error(f"expected .param, found '{self.peek().text}'", self.peek())
            decl = self.var_decl(allow_no_semicolon=True)
            decl.space = "param"
            params.append(decl)
            self.accept(",")
        return params

    def reg_decl(self, fn: ast.Function):
        self.next()
        typ = None
        while self.peek().text.startswith(".") and not self.peek().text.startswith(".%"):
            t = self.next().text
            if is_type(t[1:]):
                typ = t[1:]
        if typ is None:
            self.error(".reg without a type", self.peek())
        while True:
            name = self.next()
            if name.kind != "ident":
                self.error(f"expected a register name, found '{name.text}'", name)
            if self.accept("<"):
                n = self.int_value(self.next(), limit=limits.MAX_REG_RANGE + 1)
                self.expect(">")
                fn.reg_ranges[self.scopes.declare(name.text, n)] = (typ, n)
            else:
                fn.regs[self.scopes.declare(name.text)] = typ
            if not self.accept(","):
                break
        self.expect(";")
