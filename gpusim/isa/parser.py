"""Recursive-descent parser: PTX text -> gpusim.isa.ast.Module.

Covers what NVVM (numba-cuda) and nvcc emit for sm_80/sm_90: module directives, variables with
initialisers, .entry/.func with parameters, .reg ranges, labels, guards, vectors, addresses,
call blocks, .loc/.file, scoped blocks `{ .reg .b32 %t; ... }` (scopes.py), `WARP_SZ` (the immediate 32).
"""
from __future__ import annotations

from gpusim.errors import PTXSyntaxError, UnsupportedInstruction
from gpusim.isa import ast, limits
from gpusim.isa.declarations import Declarations
from gpusim.isa.lexer import Token, tokenize
from gpusim.isa.literals import hex_bits, int_literal
from gpusim.isa.scopes import Scopes

_LINKAGE = {".visible", ".extern", ".weak", ".common"}
_SPACES = {".global", ".shared", ".const", ".local", ".param"}
_LINE_DIRECTIVES = {".version", ".target", ".address_size", ".file", ".loc"}
_PERF = {".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".maxclusterrank", ".reqnctapercluster",
         ".explicitcluster", ".noreturn", ".pragma", ".blocksareclusters"}


class Parser(Declarations):
    def __init__(self, text: str, file: str):
        self.text, self.file = text, file
        self.lines = text.splitlines()
        self.toks = tokenize(text, file)
        self.i = 0
        self.loc = None
        self.scopes = Scopes()
        self.wide = False       # the current instruction takes 128-bit immediates (.b128)

    # ---------------------------------------------------------------- token helpers
    def peek(self, skip_nl: bool = True) -> Token:
        if skip_nl:
            while self.toks[self.i].kind == "nl":
                self.i += 1
        return self.toks[self.i]

    def next(self, skip_nl: bool = True) -> Token:
        tok = self.peek(skip_nl)
        if tok.kind != "eof":       # the end of file stays the next token
            self.i += 1
        return tok

    def error(self, msg: str, tok: Token):
        src = self.lines[tok.line - 1] if 0 < tok.line <= len(self.lines) else ""
        raise PTXSyntaxError(msg, self.file, tok.line, tok.col, src)

    def expect(self, text: str) -> Token:
        tok = self.next()
        if tok.text != text:
            self.error(f"expected '{text}', found '{tok.text or 'end of file'}'", tok)
        return tok

    def accept(self, text: str) -> bool:
        if self.peek().text == text:
            self.i += 1
            return True
        return False

    def rest_of_line(self) -> list[Token]:
        out = []
        while self.toks[self.i].kind not in ("nl", "eof"):
            out.append(self.toks[self.i])
            self.i += 1
        return out

    def int_value(self, tok: Token, neg: bool = False, limit: int = 1 << 64) -> int:
        """An integer literal below `limit` (64 bits by default), named at its token otherwise."""
        v = int_literal(tok.text) if tok.kind == "num" else None
        if v is None:
            self.error(f"expected an integer, found '{tok.text or 'end of file'}'", tok)
        if v >= limit:
            self.error(f"integer {tok.text[:40]} is too large (at most {limit - 1})", tok)
        return -v if neg else v

    def number(self, tok: Token, neg: bool = False) -> int | float:
        """A numeric literal: integers must fit 64 bits; decimal floats are doubles."""
        if "." in tok.text or ("e" in tok.text.lower() and tok.text[:2] not in ("0x", "0X")):
            v = float(tok.text)
            return -v if neg else v
        return self.int_value(tok, neg, limit=1 << (128 if self.wide else 64))    # .b128 moves take 128 bits

    # ---------------------------------------------------------------- module
    def parse(self) -> ast.Module:
        mod = ast.Module(file=self.file, text=self.text)
        while True:
            tok = self.peek()
            if tok.kind == "eof":
                return mod
            t = tok.text
            if t in _LINE_DIRECTIVES:
                self.next()
                self.module_line_directive(mod, t, self.rest_of_line())
            elif t == ".section":
                self.skip_section()
            elif t in _LINKAGE or t in (".entry", ".func") or t in _SPACES:
                self.module_decl(mod)
            elif t == ".pragma":
                self.next()
                self.skip_statement()
            else:
                self.error(f"unexpected '{t}' at module scope", tok)

    def module_line_directive(self, mod, name, toks):
        vals = [t.text for t in toks]
        need = 2 if name in (".file", ".loc") else 1
        if len(vals) < need:
            self.error(f"{name} needs {need} value{'s' if need > 1 else ''}", toks[-1] if toks else self.peek(False))
        if name == ".version" and vals:
            mod.version = vals[0]
        elif name == ".target" and vals:
            mod.target = vals[0]
        elif name == ".address_size" and vals:
            mod.address_size = self.int_value(toks[0])
            if mod.address_size not in (32, 64):
                self.error(f".address_size must be 32 or 64, got {vals[0]}", toks[0])
        elif name == ".file" and len(toks) >= 2:
            mod.files[self.int_value(toks[0], limit=limits.MAX_LOC_LINE + 1)] = vals[1].strip('"')

    def skip_section(self):
        self.next()
        self.next()
        self.expect("{")
        depth = 1
        while depth:
            tok = self.next()
            if tok.kind == "eof":
                self.error("unterminated .section", tok)
            depth += tok.text == "{"
            depth -= tok.text == "}"

    def skip_statement(self):
        while True:
            tok = self.next()
            if tok.text == ";":
                return
            if tok.kind == "eof":
                self.error("expected ';', found end of file", tok)

    def module_decl(self, mod):
        linkage = []
        while self.peek().text in _LINKAGE:
            linkage.append(self.next().text)
        tok = self.peek()
        if tok.text in (".entry", ".func"):
            fn = self.function()
            if fn is not None:
                mod.functions[fn.name] = fn
        elif tok.text in _SPACES:
            mod.vars.append(self.var_decl())
        else:
            self.error(f"expected a declaration after {' '.join(linkage)}", tok)

    def function(self) -> ast.Function | None:
        kind_tok = self.next()
        kind = kind_tok.text[1:]
        rets = []
        if kind == "func" and self.peek().text == "(":
            rets = self.param_list()
        name_tok = self.next()
        if name_tok.kind != "ident":
            self.error(f"expected a function name, found '{name_tok.text}'", name_tok)
        fn = ast.Function(name_tok.text, kind, rets=rets, line=name_tok.line)
        if self.peek().text == "(":
            fn.params = self.param_list()
        while self.peek().text in _PERF:
            d = self.next().text
            vals = []
            while self.peek().kind == "num" or self.peek().text == ",":
                t = self.next()
                if t.kind == "num":
                    vals.append(self.int_value(t))
            if d == ".pragma":
                self.skip_statement()
            fn.directives[d[1:]] = vals
        if self.accept(";"):
            return None     # prototype / extern declaration
        self.expect("{")
        self.body(fn)
        return fn

    # ---------------------------------------------------------------- bodies
    def body(self, fn: ast.Function):
        depth = 1
        self.scopes.enter_function()
        while depth:
            tok = self.peek()
            t = tok.text
            if tok.kind == "eof":
                self.error(f"function '{fn.name}' is not closed with '}}'", tok)
            if t == "{":
                self.next()
                depth += 1
                self.scopes.push()
            elif t == "}":
                self.next()
                depth -= 1
                self.scopes.pop()
            elif t == ".reg":
                self.reg_decl(fn)
            elif t in (".local", ".shared", ".param", ".global", ".const"):
                fn.vars.append(self.var_decl())
            elif t == ".loc":
                self.next()
                vals = self.rest_of_line()
                if len(vals) >= 2:
                    self.loc = tuple(self.int_value(v, limit=limits.MAX_LOC_LINE + 1) for v in vals[:2])
            elif t in (".pragma", ".maxnreg") or t.startswith(".") and t not in _SPACES:
                self.next()
                self.skip_statement()
            elif tok.kind == "ident" and self.toks_after_is_colon():
                self.next()
                self.next()
                if self.peek().text == ".callprototype":
                    self.skip_statement()
                    continue
                fn.body.append(ast.Label(t, tok.line))
            else:
                fn.body.append(self.instruction())

    def toks_after_is_colon(self) -> bool:
        j = self.i + 1
        while j < len(self.toks) and self.toks[j].kind == "nl":
            j += 1
        return j < len(self.toks) and self.toks[j].text == ":"

    def instruction(self) -> ast.Instr:
        first = self.peek()
        guard, guard_neg = None, False
        if self.accept("@"):
            guard_neg = self.accept("!")
            g = self.next()
            if g.kind != "ident":
                self.error(f"expected a predicate after '@', found '{g.text}'", g)
            guard = self.scopes.name(g.text)
        op = self.next()
        if op.kind != "ident" or op.text.startswith(("%", ".")):
            self.error(f"expected an instruction, found '{op.text or 'end of file'}'", op)
        operands = []
        self.wide = ".b128" in op.text
        try:
            if self.peek().text != ";":
                while True:
                    operands.append(self.operand())
                    if not self.accept(","):
                        break
        except PTXSyntaxError:
            from gpusim.isa.opcodes import OP, OP_ALIASES
            base = op.text.split(".", 1)[0]
            if base not in OP and base not in OP_ALIASES:
                text = self.lines[first.line - 1] if first.line <= len(self.lines) else ""
                raise UnsupportedInstruction(op.text, self.file, first.line, text) from None
            raise
        end = self.peek()
        if end.text != ";":
            self.error(f"expected ',' or ';' after operand, found '{end.text}'", end)
        self.next()
        text = self.lines[first.line - 1] if first.line <= len(self.lines) else ""
        return ast.Instr(op.text, operands, first.line, first.col, text, guard, guard_neg, self.loc)

    def operand(self):
        tok = self.peek()
        t = tok.text
        if t == "[":
            return self.address()
        if t == "{":
            self.next()
            items = []
            while not self.accept("}"):
                items.append(self.operand())
                self.accept(",")
            return ast.Vec(tuple(items))
        if t == "(":
            self.next()
            items = []
            while not self.accept(")"):
                items.append(self.operand())
                self.accept(",")
            return ast.Paren(tuple(items))
        if t == "!":
            self.next()
            r = self.next()
            return ast.Reg(self.scopes.name(r.text), neg=True)
        if t == "-" or tok.kind in ("num", "fnum"):
            neg = self.accept("-")
            n = self.next()
            if n.kind == "fnum":
                return ast.Imm(hex_bits(n.text), n.text, "f32" if n.text[1] in "fF" else "f64")
            if n.kind != "num":
                self.error(f"expected a number, found '{n.text}'", n)
            v = self.number(n, neg)
            return ast.Imm(v, ("-" if neg else "") + n.text)
        if tok.kind == "ident":
            self.next()
            if t == "_":
                if self.peek().text == "|":        # elect.sync _|p, ...: the value discarded
                    self.next()
                    return ast.PredPair(ast.Sink(), ast.Reg(self.scopes.name(self.next().text)))
                return ast.Sink()
            if t == "WARP_SZ":
                return ast.Imm(32, t)
            reg = self.scopes.resolve(t)
            if self.peek().text == "|":
                self.next()
                second = self.next()
                return ast.PredPair(ast.Reg(reg or t), ast.Reg(self.scopes.name(second.text)))
            if reg is not None or t.startswith("%"):
                return ast.Reg(reg or t)
            if self.peek().text in ("+", "-") and self.toks[self.i + 1].kind == "num":
                sign = -1 if self.next().text == "-" else 1
                return ast.Sym(t, sign * self.int_value(self.next(), limit=_MAX_OFFSET))
            return ast.Sym(t)
        self.error(f"unexpected '{t or 'end of file'}' in operand", tok)

    def address(self) -> ast.Addr:
        self.expect("[")
        base, offset, sign = None, 0, 1
        while True:
            tok = self.next()
            if tok.kind == "ident":
                if base is not None:
                    self.error("address with two base names", tok)
                base = self.scopes.name(tok.text)
            elif tok.kind == "num":
                offset += sign * self.int_value(tok, limit=_MAX_OFFSET)
            elif tok.text == "-" and self.peek().kind == "num":
                offset -= self.int_value(self.next(), limit=_MAX_OFFSET)
            else:
                self.error(f"bad address term '{tok.text}'", tok)
            nxt = self.next()
            if abs(offset) >= _MAX_OFFSET:
                self.error(f"address offset {offset} is too large", nxt)
            if nxt.text == "]":
                return ast.Addr(base, offset)
            if nxt.text == "," and self.peek().text == "{":     # [tensorMap, {c0, ..}]
                coords = self.operand()
                self.expect("]")
                return ast.TensorAddr(base, offset, tuple(coords.items))
            if nxt.text not in ("+", "-"):
                self.error(f"expected '+', '-' or ']' in address, found '{nxt.text}'", nxt)
            sign = 1 if nxt.text == "+" else -1


_MAX_OFFSET = 1 << 48      # address offsets: beyond any state space gpusim lays out


def parse_ptx(text: str, file: str = "<ptx>") -> ast.Module:
    return Parser(text, file).parse()
