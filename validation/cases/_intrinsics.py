"""Special-register reads for kernels: %clock64, %globaltimer, %smid and %warpid through inline PTX.

numba-cuda 0.30.4 has no clock64 intrinsic, so each one is an `@intrinsic` that emits a volatile
inline-asm `mov` (with a memory clobber, so LLVM keeps it ordered with loads and stores). In the
PTX they appear as `mov.u64 %rdN, %clock64;` between `// begin inline asm` markers.

Under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) inline PTX cannot run, so plain Python
stand-ins are used: host nanosecond counters and SM 0.
"""
from __future__ import annotations

import time

from numba.cuda import config

if config.ENABLE_CUDASIM:

    def clock64():
        return time.perf_counter_ns()

    def globaltimer():
        return time.time_ns()

    def smid():
        return 0

    def warpid():
        return 0

else:
    from llvmlite import ir
    from numba.cuda import types
    from numba.cuda.extending import intrinsic

    def _sreg(name: str, bits: int):
        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(bits), [])
            asm = ir.InlineAsm(fnty, f"mov.u{bits} $0, %{name};", ("=l" if bits == 64 else "=r")
                               + ",~{memory}", side_effect=True)
            return builder.call(asm, [])

        return codegen

    @intrinsic
    def clock64(typingctx):
        """Per-SM cycle counter (SM clock), 64-bit."""
        return types.int64(), _sreg("clock64", 64)

    @intrinsic
    def globaltimer(typingctx):
        """Global nanosecond timer, the same on every SM."""
        return types.int64(), _sreg("globaltimer", 64)

    @intrinsic
    def smid(typingctx):
        """Index of the SM the thread runs on."""
        return types.int32(), _sreg("smid", 32)

    @intrinsic
    def warpid(typingctx):
        """The warp's slot on its SM (%warpid; on the H100 its sub-partition is %warpid % 4)."""
        return types.int32(), _sreg("warpid", 32)
