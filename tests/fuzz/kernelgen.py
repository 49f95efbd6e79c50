"""A seeded generator of random numba.cuda kernels with defined behaviour, for differential testing.

`generate(seed)` returns a `Case`: the Python source text of a module defining `kernel(ain, fin,
out_i, out_f, acc)` (plus small device functions), its launch shape and its inputs. Every thread
stores its NI int64 and NF float32 variables to out_i/out_f at the end (or before an early return);
acc is an int32 array updated only with atomics whose order does not matter.

The programs are built so that every correct implementation gives the same bits:
- Integers are int64 everywhere and every subexpression is kept far below 2^31 (an operand that could
  grow is masked with `& 0xFFFF`), so numba's int64 arithmetic and the simulator's numpy scalars agree.
- Floats are float32 everywhere (constants written `np.float32(c)`); add, sub, mul, div, abs, neg and
  int->float conversion are IEEE round-to-nearest in both (gpusim compiles without contraction).
  NaNs may appear; the comparison treats any NaN as equal to any NaN.
- Warp intrinsics (shuffles, votes, syncwarp) are emitted only where the set of lanes that reach
  them is known statically: converged code, or under conditions on the lane id alone, nested; the
  mask is exactly that set and every shuffle source lane is in it (or out of the warp's range, where
  the lane keeps its own value). A loop whose trip count or exit depends on data, or any early
  return, makes the set unknown and no warp intrinsic is emitted there (or after a return).
- Shared memory: at the kernel's top level (block-uniform, before any early return) a phase writes
  each thread's own slot, synchronises, lets any statement read any slot, and synchronises again.
- Atomics: add on slots 0-7, max on 8-15, min on 16-23, or/xor on 24-31 (each slot one kind of
  commutative operation); their return values are never used.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
from kernelgen_exprs import ACC, BIG, FULL, NF, NI, Expressions


@dataclass
class Options:
    max_depth: int = 2
    statements: tuple = (4, 9)
    expr_depth: int = 2
    warp_ops: bool = True
    shared: bool = True
    atomics: bool = True
    device_functions: bool = True
    device_inline: str = "always"      # "always": inline="always"; "never": a real call (needs the drop-in)
    early_return: bool = True
    floats: bool = True
    local_arrays: bool = True
    bit_ops: bool = True           # cuda.popc / clz / brev on 32-bit values
    ffs: bool = False              # cuda.ffs (bfind.shiftamt: branch isagaps adds it)
    block_votes: bool = True       # syncthreads_count/and/or: numba emits a scoped { .reg .pred %p1; }


@dataclass
class Case:
    seed: int
    source: str
    grid: int | tuple
    block: int | tuple
    inputs: dict = field(default_factory=dict)

    def args(self):
        """Fresh argument arrays (inputs copied, outputs zeroed) in kernel order."""
        n = _count(self.grid) * _count(self.block)
        return [self.inputs["ain"].copy(), self.inputs["fin"].copy(), np.zeros(n * NI, np.int64),
                np.zeros(n * NF, np.float32), self.inputs["acc"].copy()]


@dataclass
class _Ctx:
    mask: int | None = FULL      # the lanes known to reach this point; None: not known
    in_loop: bool = False
    top: bool = True             # block-uniform top level of the kernel
    shared_readable: bool = False
    loop_vars: tuple = ()
    no_return: bool = False      # inside a loop whose lane set is known: an early return would break it

    def with_(self, **kw):
        d = dict(self.__dict__)
        d.update(kw)
        return _Ctx(**d)


class _Gen(Expressions):
    def __init__(self, seed: int, opts: Options):
        self.r = random.Random(seed)
        self.o = opts
        self.lines: list[str] = []
        self.returned = False
        self.counter = 0
        self.dfuncs: list[tuple[str, str]] = []    # (name, kind) kind: "i" or "f"

    # ---- statements ------------------------------------------------------------------------
    def emit(self, ind, text):
        self.lines.append("    " * ind + text)

    def block(self, ind, ctx, depth, n):
        start = len(self.lines)
        for _ in range(n):
            if self.returned:        # some threads may have left: no lane set is known from here on
                ctx = ctx.with_(mask=None)
            self.statement(ind, ctx, depth)
        if len(self.lines) == start:
            self.emit(ind, "pass")

    def assign_int(self, ind, ctx):
        v = f"i{self.r.randrange(NI)}"
        e, b = self.iexpr(ctx)
        if self.r.random() < 0.3:
            e, b = f"{v} + {e}", b + BIG
        self.emit(ind, f"{v} = {e}" if b < BIG else f"{v} = ({e}) & 0xFFFF")

    def assign_float(self, ind, ctx):
        self.emit(ind, f"f{self.r.randrange(NF)} = {self.fexpr(ctx)}")

    def statement(self, ind, ctx, depth):
        r = self.r
        choices = ["ai"] * 5 + (["af"] * 3 if self.o.floats else [])
        if depth < self.o.max_depth:
            choices += ["if"] * 3 + ["lane_if"] * 2 + ["for"] * 2 + ["while"]
        if ctx.in_loop:
            choices += ["break", "continue"]
        if self.o.early_return and depth > 0 and not ctx.shared_readable and not ctx.no_return:
            choices += ["return"]
        if self.o.atomics:
            choices += ["atomic"]
        if self.o.local_arrays:
            choices += ["local"]
        if self.o.device_functions and self.dfuncs:
            choices += ["call"] * 2
        if self.o.warp_ops and ctx.mask:
            choices += ["warp"] * 4
        if self.o.shared and ctx.top and not self.returned and not ctx.shared_readable:
            choices += ["shared"] + (["count"] if self.o.block_votes else []) \
                + (["shared_atomic"] if self.o.atomics else [])
        getattr(self, "s_" + r.choice(choices))(ind, ctx, depth)

    def s_ai(self, ind, ctx, depth):
        self.assign_int(ind, ctx)

    def s_af(self, ind, ctx, depth):
        self.assign_float(ind, ctx)

    def s_if(self, ind, ctx, depth):
        inner = ctx.with_(mask=None, top=False)
        self.emit(ind, f"if {self.cond(ctx)}:")
        self.block(ind + 1, inner, depth + 1, self.r.randint(1, 3))
        if self.r.random() < 0.6:
            self.emit(ind, "else:")
            self.block(ind + 1, inner, depth + 1, self.r.randint(1, 3))

    def s_lane_if(self, ind, ctx, depth):
        text, m = self.lane_cond()
        known = ctx.mask is not None
        self.emit(ind, f"if {text}:")
        self.block(ind + 1, ctx.with_(mask=(ctx.mask & m) if known else None, top=False), depth + 1,
                   self.r.randint(1, 3))
        if self.r.random() < 0.5:
            self.emit(ind, "else:")
            self.block(ind + 1, ctx.with_(mask=(ctx.mask & ~m & FULL) if known else None, top=False), depth + 1,
                       self.r.randint(1, 3))

    def _loop_var(self):
        self.counter += 1
        return f"j{self.counter}"

    def s_for(self, ind, ctx, depth):
        j = self._loop_var()
        if self.r.random() < 0.5:     # constant trip count: the lane set is kept, no break/continue
            lo = self.r.randint(0, 2)
            self.emit(ind, f"for {j} in range({lo}, {lo + self.r.randint(1, 4)}):")
            body = ctx.with_(in_loop=False, no_return=True, loop_vars=ctx.loop_vars + (j,))
            self.block(ind + 1, body, depth + 1, self.r.randint(1, 3))
            return
        a, _ = self.iexpr(ctx, 2)
        b, _ = self.iexpr(ctx, 2)
        self.emit(ind, f"for {j} in range(({a}) & 3, ({b}) & 7):")
        body = ctx.with_(mask=None, top=False, in_loop=True, loop_vars=ctx.loop_vars + (j,))
        self.block(ind + 1, body, depth + 1, self.r.randint(1, 4))

    def s_while(self, ind, ctx, depth):
        w = self._loop_var()
        a, _ = self.iexpr(ctx, 2)
        self.emit(ind, f"{w} = 0")
        self.emit(ind, f"while {w} < (({a}) & 7):")
        self.emit(ind + 1, f"{w} += 1")
        body = ctx.with_(mask=None, top=False, in_loop=True, loop_vars=ctx.loop_vars + (w,))
        self.block(ind + 1, body, depth + 1, self.r.randint(1, 4))

    def s_break(self, ind, ctx, depth):
        self.emit(ind, f"if {self.cond(ctx)}:")
        self.emit(ind + 1, "break")

    def s_continue(self, ind, ctx, depth):
        self.emit(ind, f"if {self.cond(ctx)}:")
        self.emit(ind + 1, "continue")

    def s_return(self, ind, ctx, depth):
        self.emit(ind, f"if {self.cond(ctx)}:")
        self.store(ind + 1)
        self.emit(ind + 1, "return")
        self.returned = True

    def s_atomic(self, ind, ctx, depth):
        op, base = self.r.choice([("add", 0), ("max", 8), ("min", 16), ("or_", 24), ("xor", 28)])
        idx, _ = self.iexpr(ctx, 1)
        val, _ = self.iexpr(ctx, 1)
        span = 3 if base >= 24 else 7
        self.emit(ind, f"cuda.atomic.{op}(acc, {base} + (({idx}) & {span}), ({val}) & 0xFF)")

    def s_call(self, ind, ctx, depth):
        name, kind = self.r.choice(self.dfuncs)
        if kind == "i":
            a, _ = self.iexpr(ctx, 1)
            b, _ = self.iexpr(ctx, 1)
            self.emit(ind, f"i{self.r.randrange(NI)} = {name}({a}, {b})")
        else:
            self.emit(ind, f"f{self.r.randrange(NF)} = {name}({self.fexpr(ctx, 1)}, {self.fexpr(ctx, 1)})")

    def s_warp(self, ind, ctx, depth):
        m = ctx.mask
        lanes = [l for l in range(32) if m >> l & 1]
        r = self.r
        kind = r.choice(["shfl", "shfl", "xor", "up", "down", "all", "any", "eq", "ballot", "syncwarp"])
        hexm = f"0x{m:08x}"
        isint = r.random() < 0.6 or not self.o.floats
        val = self.ivar(ctx) if isint else f"f{r.randrange(NF)}"
        dst = f"i{r.randrange(NI)}" if isint else f"f{r.randrange(NF)}"
        if kind == "xor":
            ok = [x for x in range(1, 32) if all(m >> (l ^ x) & 1 for l in lanes)]
            kind, arg = ("xor", r.choice(ok)) if ok else ("shfl", None)
        if kind in ("up", "down"):
            sign = -1 if kind == "up" else 1
            ok = [d for d in range(1, 32)
                  if all(not 0 <= l + sign * d < 32 or m >> (l + sign * d) & 1 for l in lanes)]
            if not ok:
                kind = "shfl"
            else:
                arg = r.choice(ok)
        if kind == "shfl":
            if m == FULL and r.random() < 0.5:
                src = f"({self.iexpr(ctx, 2)[0]}) & 31"
            else:
                src = str(r.choice(lanes))
            self.emit(ind, f"{dst} = cuda.shfl_sync({hexm}, {val}, {src})")
        elif kind == "xor":
            self.emit(ind, f"{dst} = cuda.shfl_xor_sync({hexm}, {val}, {arg})")
        elif kind in ("up", "down"):
            self.emit(ind, f"{dst} = cuda.shfl_{kind}_sync({hexm}, {val}, {arg})")
        elif kind in ("all", "any", "eq"):
            self.emit(ind, f"i{r.randrange(NI)} = 1 if cuda.{kind}_sync({hexm}, {self.cond(ctx, 1)}) else 0")
        elif kind == "ballot":
            shift = r.choice(["& 0xFFFF", ">> 16"])
            self.emit(ind, f"i{r.randrange(NI)} = np.int64(cuda.ballot_sync({hexm}, {self.cond(ctx, 1)})) {shift}")
        else:
            self.emit(ind, f"cuda.syncwarp({hexm})")

    def s_local(self, ind, ctx, depth):
        a, _ = self.iexpr(ctx, 1)
        self.emit(ind, f"loc[({a}) & 3] = i{self.r.randrange(NI)}")

    def s_shared_atomic(self, ind, ctx, depth):
        """Every thread clears its slot; after a barrier, atomics add to any slot (order does not
        matter); after another, any slot may be read."""
        self.emit(ind, "sh[tid] = 0")
        self.emit(ind, "cuda.syncthreads()")
        body = ctx.with_(top=False)
        self.emit(ind, f"if {self.cond(ctx)}:")
        a, _ = self.iexpr(ctx, 1)
        v, _ = self.iexpr(ctx, 1)
        self.emit(ind + 1, f"cuda.atomic.add(sh, ({a}) % bdim, ({v}) & 0xFF)")
        a, _ = self.iexpr(body, 1)
        # add only: a slot mixing add with max/or would depend on the order of the atomics
        self.emit(ind, f"cuda.atomic.add(sh, ({a}) % bdim, 1)" if self.r.random() < 0.5 else "pass")
        self.emit(ind, "cuda.syncthreads()")
        self.emit(ind, f"i{self.r.randrange(NI)} = np.int64(sh[({self.iexpr(ctx, 1)[0]}) % bdim])")
        self.emit(ind, "cuda.syncthreads()")

    def s_count(self, ind, ctx, depth):
        fn = self.r.choice(["count", "and", "or"])
        self.emit(ind, f"i{self.r.randrange(NI)} = np.int64(cuda.syncthreads_{fn}"
                       f"(np.int32(1 if {self.cond(ctx)} else 0)))")

    def s_shared(self, ind, ctx, depth):
        e, _ = self.iexpr(ctx, 1)
        self.emit(ind, f"sh[tid] = np.int32(({e}) & 0xFFFF)")
        if self.r.random() < 0.5:
            self.emit(ind, f"if {self.cond(ctx)}:")
            self.emit(ind + 1, f"sh[tid] = np.int32(i{self.r.randrange(NI)} & 0xFFF)")
        self.emit(ind, "cuda.syncthreads()")
        readable = ctx.with_(shared_readable=True)
        self.emit(ind, f"i{self.r.randrange(NI)} = np.int64(sh[({self.iexpr(ctx, 1)[0]}) % bdim])")
        self.block(ind, readable.with_(top=False, mask=ctx.mask), 1, self.r.randint(1, 3))
        self.emit(ind, "cuda.syncthreads()")

    def store(self, ind):
        for k in range(NI):
            self.emit(ind, f"out_i[gid * {NI} + {k}] = i{k}")
        for k in range(NF):
            self.emit(ind, f"out_f[gid * {NF} + {k}] = f{k}")

    # ---- functions -------------------------------------------------------------------------
    def device_function(self, k):
        kind = self.r.choice("if") if self.o.floats else "i"
        name = f"dev{k}"
        deco = (f'@cuda.jit(device=True, inline="{self.o.device_inline}")'
                if self.o.device_inline != "never" else "@cuda.jit(device=True)")
        out = [deco, f"def {name}(a, b):"]
        ctx = _Ctx(mask=None, top=False)
        if kind == "i":
            e1, _ = self._fn_iexpr(ctx)
            e2, _ = self._fn_iexpr(ctx)
            c = self._fn_iexpr(ctx)[0]
            out += [f"    if {c} > {self.r.randint(-50, 50)}:", f"        return ({e1}) & 0xFFFF"]
            if self.r.random() < 0.5:
                step = f"        r = (r ^ (k + {self._fn_iexpr(ctx)[0]})) & 0xFFFF"
                out += ["    r = a", "    for k in range(b & 3):", step,
                        "        if r > b:", "            break", "    a = r"]
            out += [f"    return ({e2}) & 0xFFFF"]
        else:
            out += ["    if a < b:", f"        return a * np.float32({self.r.choice(['0.5', '-2.0', '3.0'])}) - b",
                    "    return (a + b) / (abs(b) + np.float32(2.0))"]
        self.dfuncs.append((name, kind))
        return out

    def _fn_iexpr(self, ctx):
        ops = ["+", "-", "^", "&", "|"]
        a, b = self.r.choice(["a", "b"]), self.r.choice(["a", "b", str(self.r.randint(-9, 99))])
        c = self.r.choice(["a", "b", str(self.r.randint(1, 9))])
        return f"(({a} {self.r.choice(ops)} {b}) {self.r.choice(ops)} ({c} * 3))", BIG

    def kernel(self):
        header = ["import numpy as np", "from numba import cuda", ""]
        funcs = []
        if self.o.device_functions:
            for k in range(self.r.randint(0, 2)):
                funcs += self.device_function(k) + [""]
        self.lines = [
            "def kernel(ain, fin, out_i, out_f, acc):",
            "    tid = np.int64(cuda.threadIdx.x) + np.int64(cuda.threadIdx.y) * np.int64(cuda.blockDim.x)",
            "    bdim = np.int64(cuda.blockDim.x) * np.int64(cuda.blockDim.y)",
            "    gid = (np.int64(cuda.blockIdx.x) + np.int64(cuda.blockIdx.y) * np.int64(cuda.gridDim.x)) * bdim + tid",
            "    lane = tid & 31",
            "    n = np.int64(ain.shape[0])",
            "    sh = cuda.shared.array(128, np.int32)",
            "    loc = cuda.local.array(4, np.int64)",
            "    for k in range(4):",
            "        loc[k] = k",
        ]
        for k in range(NI):
            self.lines.append(f"    i{k} = np.int64(ain[(gid * {2 * k + 1} + {k}) % n])")
        for k in range(NF):
            self.lines.append(f"    f{k} = fin[(gid * {k + 1} + {3 * k}) % n]")
        lo, hi = self.o.statements
        self.block(1, _Ctx(), 0, self.r.randint(lo, hi))
        self.store(1)
        return "\n".join(header + funcs + self.lines) + "\n"


def _count(dims) -> int:
    return int(np.prod(dims))


def generate(seed: int, opts: Options | None = None) -> Case:
    """The random kernel, launch shape and inputs for `seed` (the same seed, the same case)."""
    opts = opts or Options()
    gen = _Gen(seed, opts)
    source = gen.kernel()
    r = random.Random(seed * 7919 + 1)
    block = r.choice([32, 64, 96, 128, 32, 64, 96, 128, (16, 4), (32, 2), (8, 8), (32, 3)])
    grid = r.choice([1, 1, 2, (1, 2)])
    n = _count(grid) * _count(block)
    rng = np.random.default_rng(seed)
    fin = (rng.standard_normal(n) * 4).astype(np.float32)
    fin[rng.random(n) < 0.05] = 0.0
    inputs = {"ain": rng.integers(-200, 200, n).astype(np.int32), "fin": fin,
              "acc": rng.integers(-5, 5, ACC).astype(np.int32)}
    return Case(seed=seed, source=source, grid=grid, block=block, inputs=inputs)


def compile_kernel(source: str, name: str = "<kernelgen>"):
    """Exec a generated module; returns its namespace (kernel and device functions)."""
    import linecache
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    ns: dict = {"__name__": "kernelgen_case"}
    exec(compile(source, name, "exec"), ns)
    return ns
