"""dp4a and dp2a (integer dot products of packed elements, what NVVM emits for byte-wise multiply-adds):
every signedness combination and both dp2a halves against a numpy reference, wrapping to 32 bits."""
import numpy as np
import pytest
from conftest import run_lanes

from gpusim.errors import UnsupportedInstruction

rng = np.random.default_rng(11)


def fields(x, width, count, signed):
    out = [(x >> (width * k)) & ((1 << width) - 1) for k in range(count)]
    if signed:
        out = [np.where(v >= 1 << (width - 1), v - (1 << width), v) for v in out]
    return out


@pytest.mark.parametrize("ta", ["u32", "s32"])
@pytest.mark.parametrize("tb", ["u32", "s32"])
def test_dp4a_sums_the_four_byte_products_onto_c(ta, tb):
    a, b = (rng.integers(0, 2**32, 32, dtype=np.uint64) for _ in range(2))
    a[0], b[0] = 0x80808080, 0x7F7F7F7F           # the extremes of both signednesses
    c = rng.integers(0, 2**32, 32, dtype=np.uint64)
    want = c.astype(np.int64)
    for x, y in zip(fields(a.astype(np.int64), 8, 4, ta == "s32"), fields(b.astype(np.int64), 8, 4, tb == "s32")):
        want = want + x * y
    got = run_lanes(f"dp4a.{ta}.{tb} %d, %a, %b, %c;", ins={"a": ("u32", a), "b": ("u32", b), "c": ("u32", c)},
                    outs={"d": "u32"})["d"]
    assert got.astype(np.int64).tolist() == (want & 0xFFFFFFFF).tolist()


@pytest.mark.parametrize("half", ["lo", "hi"])
@pytest.mark.parametrize("ta,tb", [("u32", "u32"), ("s32", "u32"), ("u32", "s32"), ("s32", "s32")])
def test_dp2a_multiplies_the_halves_of_a_by_two_bytes_of_b(half, ta, tb):
    a, b, c = (rng.integers(0, 2**32, 32, dtype=np.uint64) for _ in range(3))
    ah = fields(a.astype(np.int64), 16, 2, ta == "s32")
    bb = fields(b.astype(np.int64), 8, 4, tb == "s32")
    first = 2 if half == "hi" else 0
    want = c.astype(np.int64) + ah[0] * bb[first] + ah[1] * bb[first + 1]
    got = run_lanes(f"dp2a.{half}.{ta}.{tb} %d, %a, %b, %c;",
                    ins={"a": ("u32", a), "b": ("u32", b), "c": ("u32", c)}, outs={"d": "u32"})["d"]
    assert got.astype(np.int64).tolist() == (want & 0xFFFFFFFF).tolist()


def test_dp2a_without_a_half_is_refused():
    with pytest.raises(UnsupportedInstruction, match="dp2a takes .lo or .hi"):
        run_lanes("dp2a.u32.u32 %d, %a, %b, %c;", ins={"a": ("u32", np.zeros(32, np.uint32)),
                  "b": ("u32", np.zeros(32, np.uint32)), "c": ("u32", np.zeros(32, np.uint32))},
                  outs={"d": "u32"}, mode="functional")
