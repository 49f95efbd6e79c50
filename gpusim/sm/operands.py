"""Reading and writing instruction operands for one lane (numba)."""
from __future__ import annotations

import numpy as np
from numba import njit

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import f32_of, f64_of, sext, zext
from gpusim.isa.types import K_SINT, T_F32, T_F64
from gpusim.sm.state import G_NCX, G_NSM, G_NTX, G_NTY, G_NTZ


@njit(cache=True)
def sreg(M, sid, w, l):
    lin = M.wlocal[w] * 32 + l
    ntx, nty = M.geom[G_NTX], M.geom[G_NTY]
    if sid <= 2:
        if sid == 0:
            return lin % ntx
        if sid == 1:
            return (lin // ntx) % nty
        return lin // (ntx * nty)
    if sid <= 5:
        return M.geom[G_NTX + sid - 3]
    if sid <= 8:
        return M.cta_id[M.wcta[w], sid - 6]
    if sid <= 11:
        return M.geom[G_NCX + sid - 9]
    if sid == oc.SR["laneid"]:
        return l
    if sid == oc.SR["warpid"]:
        return M.wlocal[w]
    if sid == oc.SR["nwarpid"]:
        return 64
    if sid == oc.SR["smid"]:
        return M.cta_sm[M.wcta[w]]
    if sid == oc.SR["nsmid"]:
        return M.geom[G_NSM]
    if sid == oc.SR["gridid"]:
        return 1
    if sid == oc.SR["lanemask_eq"]:
        return np.int64(1) << l
    if sid == oc.SR["lanemask_le"]:
        return (np.int64(2) << l) - 1
    if sid == oc.SR["lanemask_lt"]:
        return (np.int64(1) << l) - 1
    if sid == oc.SR["lanemask_ge"]:
        return 0xFFFFFFFF & ~((np.int64(1) << l) - 1)
    if sid == oc.SR["lanemask_gt"]:
        return 0xFFFFFFFF & ~((np.int64(2) << l) - 1)
    if sid == oc.SR["clock"]:
        return M.clock[0] & 0xFFFFFFFF
    if sid == oc.SR["clock_hi"]:
        return (M.clock[0] >> 32) & 0xFFFFFFFF
    if sid == oc.SR["clock64"]:
        return M.clock[0]
    if sid == oc.SR["globaltimer"]:
        return M.clock[0]          # one tick per cycle; scaled to ns by the timing model's report
    if sid == oc.SR["globaltimer_lo"]:
        return M.clock[0] & 0xFFFFFFFF
    if sid == oc.SR["globaltimer_hi"]:
        return M.clock[0] >> 32
    if sid == oc.SR["dynamic_smem_size"]:
        return M.geom[7]
    if sid == oc.SR["total_smem_size"]:
        return M.geom[8]
    return 0


@njit(cache=True)
def bits(P, M, i, s, w, l):
    """Raw 64-bit value of source slot s."""
    k = P.opk[i, s]
    if k == oc.OK_REG:
        return M.R[w, P.opv[i, s], l]
    if k == oc.OK_IMM:
        return P.opv[i, s]
    if k == oc.OK_SREG:
        return sreg(M, P.opv[i, s], w, l)
    if k == oc.OK_REGNEG:
        return 1 - (M.R[w, P.opv[i, s], l] & 1)
    return 0


@njit(cache=True)
def ival(P, M, i, s, w, l, ty):
    """Integer value of slot s as type ty (sign- or zero-extended to 64 bits)."""
    b = bits(P, M, i, s, w, l)
    n = P.tsize[ty]
    if P.tkind[ty] == K_SINT:
        return sext(b, n)
    return zext(b, n)


@njit(cache=True)
def fval(P, M, i, s, w, l, ty):
    """Float value of slot s as float64 (f32 widened exactly)."""
    b = bits(P, M, i, s, w, l)
    if ty == T_F64:
        return f64_of(b)
    return np.float64(f32_of(b))


@njit(cache=True)
def put(P, M, i, s, w, l, v):
    """Write raw bits v to destination slot s (sinks and immediates are ignored)."""
    if P.opk[i, s] == oc.OK_REG:
        M.R[w, P.opv[i, s], l] = v


@njit(cache=True)
def put_int(P, M, i, s, w, l, v, ty):
    n = P.tsize[ty]
    put(P, M, i, s, w, l, zext(v, n) if n < 8 else v)


@njit(cache=True)
def is_f32(ty):
    return ty == T_F32
