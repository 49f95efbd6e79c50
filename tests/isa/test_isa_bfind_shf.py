"""bfind with and without .shiftamt (numba's cuda.ffs path), and the funnel shift shf.{l,r}.{wrap,clamp}
(what nvcc emits for 128-bit shifts), bit-exact against Python references in both modes."""
import numpy as np
import pytest
from conftest import run_lanes
from int_lanes import BITS, values

M32 = (1 << 32) - 1


def bfind_ref(x: int, t: str, shiftamt: bool) -> int:
    """The PTX ISA's pseudocode for bfind."""
    n = BITS[t]
    msb = n - 1
    a = x & ((1 << n) - 1)
    if t.startswith("s") and (a >> msb) & 1:
        a = ~a & ((1 << n) - 1)
    d = M32
    for i in range(msb, -1, -1):
        if (a >> i) & 1:
            d = i
            break
    if shiftamt and d != M32:
        d = msb - d
    return d


@pytest.mark.parametrize("shiftamt", [False, True], ids=["plain", "shiftamt"])
@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfind_matches_the_ptx_pseudocode_including_zero_and_minus_one(t, shiftamt, rng):
    a = values(t, rng)          # edge cases first: 0, 1, -1, min, max, ...
    mod = ".shiftamt" if shiftamt else ""
    got = run_lanes(f"bfind{mod}.{t} %d, %a;", ins={"a": (t, a)}, outs={"d": "u32"})["d"]
    assert got.tolist() == [bfind_ref(int(x), t, shiftamt) for x in a]
    assert got[0] == 0xFFFFFFFF                               # input 0: no bit found
    if t.startswith("s"):
        assert got[4] == 0xFFFFFFFF                           # -1 has no non-sign bit either


def test_bfind_shiftamt_after_brev_is_numbas_ffs():
    """numba's cuda.ffs(x) for u32 is brev + bfind.shiftamt (+1 unless no bit): the lowest set bit."""
    a = np.array([0, 1, 2, 0x80000000, 12, 0xFFFFFFFF] + [1 << k for k in range(26)], np.uint32)
    got = run_lanes("brev.b32 %r1, %a; bfind.shiftamt.u32 %d, %r1;", ins={"a": ("u32", a)}, outs={"d": "u32"},
                    regs={"r1": "b32"})["d"]
    want = [((int(x) & -int(x)).bit_length() - 1) if x else M32 for x in a]
    assert got.tolist() == want


def shf_ref(a: int, b: int, c: int, left: bool, clamp: bool) -> int:
    n = min(c, 32) if clamp else c & 31
    v = (b << 32) | a
    return ((v << n) >> 32) & M32 if left else (v >> n) & M32


@pytest.mark.parametrize("mode", ["wrap", "clamp"])
@pytest.mark.parametrize("direction", ["l", "r"])
def test_shf_funnel_shift_matches_reference_for_every_shift_amount(direction, mode, rng):
    a = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    for shifts in (np.arange(32, dtype=np.uint32), np.array(list(range(32, 48)) + [63, 64, 255, 256] +
                                                              [M32, 2**31] + list(range(10)), np.uint32)):
        got = run_lanes(f"shf.{direction}.{mode}.b32 %d, %a, %b, %c;",
                        ins={"a": ("b32", a), "b": ("b32", b), "c": ("u32", shifts)}, outs={"d": "b32"})["d"]
        want = [shf_ref(int(x), int(y), int(s), direction == "l", mode == "clamp") for x, y, s in zip(a, b, shifts)]
        assert got.tolist() == want


def test_shf_pair_shifts_a_64_bit_value_held_in_two_words(rng):
    """A 64-bit left shift by k < 32 as nvcc writes it: hi = shf.l.wrap(lo, hi, k), lo = lo << k."""
    v = [int.from_bytes(rng.bytes(8), "little") for _ in range(32)]
    k = rng.integers(0, 32, 32).astype(np.uint32)
    lo = np.array([x & M32 for x in v], np.uint32)
    hi = np.array([x >> 32 for x in v], np.uint32)
    out = run_lanes("shf.l.wrap.b32 %h, %lo, %hi, %k; shl.b32 %l, %lo, %k;",
                    ins={"lo": ("b32", lo), "hi": ("b32", hi), "k": ("u32", k)}, outs={"h": "b32", "l": "b32"})
    got = [(int(h) << 32) | int(low) for h, low in zip(out["h"], out["l"])]
    assert got == [(x << int(s)) & ((1 << 64) - 1) for x, s in zip(v, k)]


def test_numba_ffs_and_clz_run_unchanged(rng):
    """cuda.ffs / cuda.clz as numba compiles them (brev + bfind.shiftamt, clz), against Python."""
    from numba import cuda

    import gpusim

    def k(x, y, out):
        i = cuda.grid(1)
        out[i, 0] = cuda.ffs(x[i])
        out[i, 1] = cuda.clz(x[i])
        out[i, 2] = cuda.ffs(y[i])
        out[i, 3] = cuda.clz(y[i])

    x = np.concatenate([[0, 1, 0x80000000, 0xFFFFFFFF, 6], rng.integers(0, 2**32, 27)]).astype(np.uint32)
    y = np.concatenate([[0, 1, -1, -(2**63), 2**40], rng.integers(-2**63, 2**63 - 1, 27)]).astype(np.int64)
    out = np.zeros((32, 4), np.int64)

    def ffs(v, n):
        v &= (1 << n) - 1
        return (v & -v).bit_length()

    def clz(v, n):
        return n - (v & ((1 << n) - 1)).bit_length()

    for mode in ("functional", "timing"):
        gpusim.launch(k, 1, 32, x, y, out, mode=mode, gpu="tiny")
        assert out[:, 0].tolist() == [ffs(int(v), 32) for v in x]
        assert out[:, 1].tolist() == [clz(int(v), 32) for v in x]
        assert out[:, 2].tolist() == [ffs(int(v), 64) for v in y]
        assert out[:, 3].tolist() == [clz(int(v), 64) for v in y]
