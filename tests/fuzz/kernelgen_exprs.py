"""The expressions and conditions of tests/fuzz/kernelgen.py's generated kernels, and the bounds that
keep them defined: integer expressions carry a bound on their magnitude and are masked before they
could leave (-LIMIT, LIMIT); lane conditions carry the exact set of lanes they select."""
from __future__ import annotations

NI = 4          # int variables i0..i3
NF = 2          # float variables f0..f1
ACC = 32
BIG = 1 << 16   # every int variable stays within (-BIG, BIG)
LIMIT = 1 << 28
FULL = (1 << 32) - 1


def _pow2(b: int) -> int:
    p = 1
    while p < b:
        p <<= 1
    return p


class Expressions:
    """Mixed into the generator: needs `self.r` (random.Random) and `self.o` (kernelgen.Options)."""

    # ---- expressions -------------------------------------------------------------------------
    def ivar(self, ctx):
        names = [f"i{k}" for k in range(NI)] + ["tid", "lane", "gid"] + list(ctx.loop_vars)
        return self.r.choice(names)

    def iexpr(self, ctx, depth=0) -> tuple[str, int]:
        r = self.r
        if depth >= self.o.expr_depth or r.random() < 0.35:
            x = r.random()
            if x < 0.6:
                return self.ivar(ctx), BIG
            if x < 0.7 and self.o.local_arrays:
                a, _ = self.iexpr(ctx, depth + 1)
                return f"loc[({a}) & 3]", BIG
            if x < 0.85 or not ctx.shared_readable:
                c = r.choice([0, 1, 2, 3, 5, 7, 8, 16, 31, 32, 100, -1, -3, -50, r.randint(-1000, 1000)])
                return str(c), abs(c)
            a, _ = self.iexpr(ctx, depth + 1)
            return f"np.int64(sh[({a}) % bdim])", BIG
        kind = r.choice("+-*&|^<>/%mMaqc" + ("pzb" if self.o.bit_ops else "") + ("f" if self.o.ffs else ""))
        a, ba = self.iexpr(ctx, depth + 1)
        b, bb = self.iexpr(ctx, depth + 1)
        if kind in "+-":
            return self._cap(f"({a} {kind} {b})", ba + bb)
        if kind == "*":
            a, ba = self._small(a, ba)
            b, bb = self._small(b, bb)
            return self._cap(f"({a} * {b})", ba * bb)
        if kind in "&|^":
            return f"({a} {kind} {b})", 2 * _pow2(max(ba, bb))
        if kind == "<":
            k = r.randint(0, 3)
            return self._cap(f"({a} << {k})", ba << k)
        if kind == ">":
            return f"({a} >> {r.randint(0, 5)})", ba
        if kind == "/":
            return f"({a} // (({b} & 7) + 1))", ba
        if kind == "%":
            m = r.choice([3, 7, 15, 31])
            return f"({a} % (({b} & {m}) + 1))", m + 1
        if kind == "m":
            return f"min({a}, {b})", max(ba, bb)
        if kind == "M":
            return f"max({a}, {b})", max(ba, bb)
        if kind == "a":
            return f"abs({a})", ba
        if kind == "q":
            return f"({a} if {self.cond(ctx, depth + 1)} else {b})", max(ba, bb)
        if kind == "p":
            return f"np.int64(cuda.popc(np.int32({a} & 0xFFFFF)))", 32
        if kind == "z":
            return f"np.int64(cuda.clz(np.int32({a} & 0xFFFFF)))", 32
        if kind == "b":
            return f"(np.int64(cuda.brev(np.uint32({a} & 0xFFFF))) >> 16)", 0xFFFF
        if kind == "f":
            return f"np.int64(cuda.ffs(np.int32({a} & 0xFFFFF)))", 32
        return f"np.int64({self.fexpr_int_safe(ctx)})", 64

    def fexpr_int_safe(self, ctx):
        """A comparison of floats turned into 0/1 (float->int conversion of arbitrary values is not
        defined the same way everywhere, so it is not generated)."""
        a, b = self.fexpr(ctx, 9), self.fexpr(ctx, 9)
        return f"1 if {a} {self.r.choice(['<', '<=', '>', '=='])} {b} else 0"

    def _small(self, e, b):
        return (f"({e} & 4095)", 4095) if b > 4096 else (e, b)

    def _cap(self, e, b):
        return (f"({e} & 0xFFFF)", 0xFFFF) if b > LIMIT else (e, b)

    def fexpr(self, ctx, depth=0) -> str:
        r = self.r
        if not self.o.floats:
            return "np.float32(0.0)"
        if depth >= self.o.expr_depth or r.random() < 0.35:
            x = r.random()
            if x < 0.6:
                return f"f{r.randrange(NF)}"
            if x < 0.8:
                return f"np.float32({r.choice(['0.5', '2.0', '-1.0', '0.25', '3.0', '1e-3', '0.1', '-7.5'])})"
            return f"np.float32({self.ivar(ctx)})"
        kind = r.choice("+-*/an")
        a, b = self.fexpr(ctx, depth + 1), self.fexpr(ctx, depth + 1)
        if kind in "+-*":
            return f"({a} {kind} {b})"
        if kind == "/":
            return f"({a} / (abs({b}) + np.float32(1.0)))"
        if kind == "a":
            return f"abs({a})"
        return f"(-{a})"

    def cond(self, ctx, depth=0) -> str:
        r = self.r
        x = r.random()
        if x < 0.55:
            a, _ = self.iexpr(ctx, depth + 1)
            b, _ = self.iexpr(ctx, depth + 1)
            return f"{a} {r.choice(['<', '<=', '>', '>=', '==', '!='])} {b}"
        if x < 0.7 and self.o.floats:
            return f"{self.fexpr(ctx, 1)} {r.choice(['<', '>', '<='])} {self.fexpr(ctx, 1)}"
        if x < 0.85 and depth < 2:
            return f"({self.cond(ctx, depth + 1)}) {r.choice(['and', 'or'])} ({self.cond(ctx, depth + 1)})"
        a, _ = self.iexpr(ctx, depth + 1)
        return f"(({a}) & {r.choice([1, 2, 3, 4, 8])}) == 0"

    # ---- lane conditions (their lane sets are known) --------------------------------------
    def lane_cond(self) -> tuple[str, int]:
        r = self.r
        k = r.randint(1, 31)
        choice = r.randrange(5)
        if choice == 0:
            text, pred = f"lane < {k}", lambda l: l < k
        elif choice == 1:
            text, pred = f"lane >= {k}", lambda l: l >= k
        elif choice == 2:
            a = r.choice([1, 2, 4, 8, 16, 3, 5, 12])
            b = r.randrange(32) & a
            text, pred = f"(lane & {a}) == {b}", lambda l: (l & a) == b
        elif choice == 3:
            s = r.randint(1, 4)
            c = r.randrange(32 >> s)
            text, pred = f"(lane >> {s}) == {c}", lambda l: (l >> s) == c
        else:
            text, pred = f"lane != {k}", lambda l: l != k
        return text, sum(1 << l for l in range(32) if pred(l))
