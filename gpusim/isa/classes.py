"""Which pipeline executes an instruction (timing class), decided once at decode time."""
from __future__ import annotations

from gpusim.isa import opcodes as oc
from gpusim.isa.types import T_F64, TYPE_CODE, TYPE_KIND

_SFU = {"sqrt", "rcp", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"}
_BRANCH = {"bra", "call", "ret", "exit", "retf", "trap"}
# 64-bit integer operations whose high half waits for the low half (a carry or a compare chain in
# SASS); 64-bit logic, shifts and selects split into two independent halves and stay "int"
_CARRY_CHAIN = {"add", "sub", "setp", "set", "min", "max", "neg", "abs", "mul", "mad", "addc", "subc", "madc"}
_INT64 = {TYPE_CODE["s64"], TYPE_CODE["u64"], TYPE_CODE["b64"]}


def instruction_class(base: str, ty: int, flags: int, space: int, sub: int = 0) -> int:
    if base in ("ld", "ldu", "st", "ldmatrix", "stmatrix"):
        return oc.C_LDST
    if base == "cp":        # the copy goes through the LSU; commit_group / wait_group are bookkeeping
        return oc.C_LDST if sub == oc.CP_COPY else oc.C_MISC
    if base == "mma":
        return oc.C_TENSOR
    if base in ("atom", "red"):
        return oc.C_ATOMIC
    if base in _BRANCH:
        return oc.C_BRANCH
    if base == "bar":
        return oc.C_BARRIER
    if base in ("mbarrier", "wgmma", "cpbulk"):
        return oc.C_SYNC        # wgmma.mma_async (gmma) and bulk copies (tma): set by hopper.decode_hopper
    if base in ("shfl", "vote", "activemask", "redux", "match", "membar", "nop", "nanosleep", "brkpt", "prefetch",
                "elect"):
        return oc.C_MISC
    if ty == T_F64:
        return oc.C_FP64
    if base in _SFU or (base == "div" and TYPE_KIND.get(ty) == 3):
        return oc.C_SFU
    if TYPE_KIND.get(ty) == 3:
        return oc.C_FP32
    if ty in _INT64 and base in _CARRY_CHAIN:
        return oc.C_INT64
    return oc.C_INT
