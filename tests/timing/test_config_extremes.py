"""Every numeric config field at either end of its range still gives a correct run (or a gpusim error
naming the problem): the ranges keep every array sized from a spec, and every cycle sum, in bounds."""
from dataclasses import fields, is_dataclass

import numpy as np
import pytest

import gpusim
from gpusim.errors import GpusimError
from gpusim.presets import TINY

N = 256
PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<10>;
    .shared .align 4 .b8 tmp[512];
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.s32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd6];
    add.f32 %f3, %f1, %f2;
    mul.wide.u32 %rd8, %r4, 4;
    mov.u64 %rd9, tmp;
    add.s64 %rd9, %rd9, %rd8;
    st.shared.f32 [%rd9], %f3;
    bar.sync 0;
    ld.shared.f32 %f3, [%rd9];
    atom.global.add.f32 %f1, [%rd7], %f3;
DONE:
    ret;
}
"""


def _numeric_fields(spec, prefix=""):
    for f in fields(spec):
        v = getattr(spec, f.name)
        if is_dataclass(v):
            yield from _numeric_fields(v, prefix + f.name + ".")
        elif f.metadata.get("bounds") is not None:
            yield prefix + f.name, f.metadata["bounds"]


# an SM with these values cannot hold a block of 128 threads with 16 registers and 512 B of shared memory
TOO_SMALL_FOR_THE_BLOCK = {("sm.max_threads", 0), ("sm.max_threads_per_cta", 0), ("sm.regs", 0),
                           ("sm.reg_alloc_unit", 1), ("sm.smem", 0), ("sm.smem_per_cta_reserved", 1),
                           ("sm.smem_alloc_unit", 1)}
CASES = [(path, end, rng[end]) for path, rng in _numeric_fields(TINY) for end in (0, 1)]


@pytest.mark.parametrize("path, end, value", CASES, ids=[f"{p}={'lo' if e == 0 else 'hi'}" for p, e, _ in CASES])
def test_field_at_the_end_of_its_range_runs_correctly_or_is_refused(path, end, value):
    try:
        spec = TINY.with_(**{path: value})
    except GpusimError:
        return      # a whole-spec rule (e.g. slices must split into partitions) refuses it by name
    rng = np.random.default_rng(0)
    a, b = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    c = np.zeros(N, np.float32)
    k = gpusim.load_ptx(PTX)["vadd"]
    if (path, end) in TOO_SMALL_FOR_THE_BLOCK:
        with pytest.raises(GpusimError, match="exceeds|does not fit|per block at most"):
            gpusim.launch(k, 2, 128, a, b, c, np.uint32(N), gpu=spec, mode="timing")
        return
    r = gpusim.launch(k, 2, 128, a, b, c, np.uint32(N), gpu=spec, mode="timing", max_instructions=100_000)
    np.testing.assert_array_equal(c, a + b)
    assert r.cycles > 0
