"""Hardware limits on what a PTX module may declare, checked when it is loaded, before anything is
allocated: sizes that no GPU gpusim models could hold are refused by name, at their line.

The limits are sm_90's (the CUDA C Programming Guide, "Technical Specifications per Compute
Capability", and the PTX ISA): a constant bank of 64 KB, 512 KB of local memory per thread,
32,764 bytes of kernel parameters. What depends on the preset (shared memory per block, device
memory) is checked at launch against the preset.
"""
from __future__ import annotations

from gpusim.errors import PTXSyntaxError

CONST_BANK = 64 * 1024              # bytes of .const a module may declare (one constant bank)
LOCAL_PER_THREAD = 512 * 1024       # bytes of local memory per thread
KERNEL_PARAMS = 32764               # bytes of kernel parameters (CUDA 12.1+, sm_70 and later)
SHARED_SPACE = 1 << 32              # the shared window of the generic address space
GLOBAL_SPACE = 1 << 44              # module .global variables (a preset's device memory is far less)
MAX_ALIGN = 1 << 16                 # largest .align accepted (a power of two)
MAX_REG_RANGE = 1 << 24             # %r<N>: the largest N accepted
MAX_LOC_LINE = (1 << 31) - 1        # .loc / .file numbers

# state space -> (largest size of one variable, what the limit is)
DECL_LIMIT = {
    "const": (CONST_BANK, "a constant bank holds 65536"),
    "local": (LOCAL_PER_THREAD, "a thread has at most 524288 bytes of local memory"),
    "param": (LOCAL_PER_THREAD, "a thread has at most 524288 bytes of local memory"),
    "shared": (SHARED_SPACE, "the shared window is 4 GiB"),
    "global": (GLOBAL_SPACE, "gpusim's global space holds 16 TiB"),
}


def check_totals(dec) -> None:
    """Totals over a kernel and the functions it may call, after layout (a gpusim.isa.decode.Decoder)."""
    k = dec.k
    for what, size, limit, why in (
            (".const", dec.const.size, CONST_BANK, "a constant bank holds 65536"),
            (".local (with .func parameters)", dec.local.size, LOCAL_PER_THREAD,
             "a thread has at most 524288 bytes of local memory"),
            ("kernel .param", dec.params.size, KERNEL_PARAMS, "a kernel takes at most 32764 bytes of parameters"),
            (".shared", dec.shared.size, SHARED_SPACE, "the shared window is 4 GiB"),
            (".global", dec.glob.size, GLOBAL_SPACE, "gpusim's global space holds 16 TiB")):
        if size > limit:
            raise PTXSyntaxError(f"kernel '{k.name}' declares {size} bytes of {what}; {why}", dec.file,
                                 k.line, 1)
