"""Helpers for the integer instruction tests: typed lane values with their edge cases, and the
Python-int reference arithmetic (two's complement wrap-around) they are checked against."""
import numpy as np
from conftest import NUMPY, run_lanes

BITS = {"s16": 16, "u16": 16, "b16": 16, "s32": 32, "u32": 32, "b32": 32, "s64": 64, "u64": 64, "b64": 64}


def signed(t):
    return t.startswith("s")


def wrap(v: int, t: str) -> int:
    """Python int v as a value of PTX type t (two's complement wrap-around)."""
    n = BITS[t]
    v &= (1 << n) - 1
    if signed(t) and v >> (n - 1):
        v -= 1 << n
    return v


def arr(values, t):
    return np.array([wrap(int(v), t) for v in values], dtype=NUMPY[t])


def ints(a):
    return [int(x) for x in a]


def values(t, rng, edge=True):
    """32 values of type t: the edge cases of the type, then random ones over the whole range."""
    n = BITS[t]
    if signed(t):
        lo, hi = -(1 << (n - 1)), (1 << (n - 1)) - 1
    else:
        lo, hi = 0, (1 << n) - 1
    e = [0, 1, 2, 3, -1, -2, lo, hi, lo + 1, hi - 1, 1 << (n - 2), -(1 << (n - 2)), 7, -7, 1 << (n // 2),
         (1 << (n // 2)) - 1] if edge else []
    e = [wrap(v, t) for v in e]
    rnd = [int.from_bytes(rng.bytes(n // 8), "little") for _ in range(32 - len(e))]
    return arr(e + rnd, t)


def binop(op, t, a, b, dt=None, ct=None, c=None):
    ins = {"a": (t, a), "b": (t, b)}
    text = f"{op} %d, %a, %b;"
    if c is not None:
        ins["c"] = (ct or t, c)
        text = f"{op} %d, %a, %b, %c;"
    return run_lanes(text, ins=ins, outs={"d": dt or t})["d"]


def check(got, want, t, what=""):
    want = arr(want, t) if not isinstance(want, np.ndarray) else want
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, f"{what}: lanes {bad.tolist()[:6]}: got {got[bad][:6].tolist()} want {want[bad][:6].tolist()}"
