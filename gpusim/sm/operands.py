"""Reading and writing instruction operands for one lane (numba).

The ALU functions see a warp through a small view (`Lanes`: registers, scratch vectors, the special
registers this instruction reads); special registers are read once per instruction by
`read_sreg`, which needs the warp's and CTA's place in the grid, so they stay out of the generic
operand path."""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import f32_of, f64_of, sext, zext
from gpusim.isa.types import K_SINT, T_F32, T_F64
from gpusim.jit import njit
from gpusim.sm.state import CL_RANK, G_CLX, G_EXPLICIT, G_NCX, G_NSM, G_NTX, G_NTY

SR_CLOCK = oc.SR["clock"]
SR_CLOCK64 = oc.SR["clock64"]
SR_CLOCK_HI = oc.SR["clock_hi"]
SR_DYNAMIC_SMEM_SIZE = oc.SR["dynamic_smem_size"]
SR_GLOBALTIMER = oc.SR["globaltimer"]
SR_GLOBALTIMER_HI = oc.SR["globaltimer_hi"]
SR_GLOBALTIMER_LO = oc.SR["globaltimer_lo"]
SR_GRIDID = oc.SR["gridid"]
SR_LANEID = oc.SR["laneid"]
SR_LANEMASK_EQ = oc.SR["lanemask_eq"]
SR_LANEMASK_GE = oc.SR["lanemask_ge"]
SR_LANEMASK_GT = oc.SR["lanemask_gt"]
SR_LANEMASK_LE = oc.SR["lanemask_le"]
SR_LANEMASK_LT = oc.SR["lanemask_lt"]
SR_NSMID = oc.SR["nsmid"]
SR_NWARPID = oc.SR["nwarpid"]
SR_SMID = oc.SR["smid"]
SR_TOTAL_SMEM_SIZE = oc.SR["total_smem_size"]
SR_WARPID = oc.SR["warpid"]
SR_CLUSTERID_X, SR_NCLUSTERID_X, SR_CLUSTER_CTAID_X = oc.SR["clusterid.x"], oc.SR["nclusterid.x"], \
    oc.SR["cluster_ctaid.x"]
SR_CLUSTER_NCTAID_X, SR_CLUSTER_NCTARANK = oc.SR["cluster_nctaid.x"], oc.SR["cluster_nctarank"]
SR_CLUSTER_CTARANK, SR_IS_EXPLICIT_CLUSTER = oc.SR["cluster_ctarank"], oc.SR["is_explicit_cluster"]


@njit(no_cpython_wrapper=True)
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
    if sid == SR_LANEID:
        return l
    if sid == SR_WARPID:
        return M.wlocal[w]
    if sid == SR_NWARPID:
        return 64
    if sid == SR_SMID:
        return M.cta_sm[M.wcta[w]]
    if sid == SR_NSMID:
        return M.geom[G_NSM]
    if sid == SR_GRIDID:
        return 1
    if sid == SR_LANEMASK_EQ:
        return np.int64(1) << l
    if sid == SR_LANEMASK_LE:
        return (np.int64(2) << l) - 1
    if sid == SR_LANEMASK_LT:
        return (np.int64(1) << l) - 1
    if sid == SR_LANEMASK_GE:
        return 0xFFFFFFFF & ~((np.int64(1) << l) - 1)
    if sid == SR_LANEMASK_GT:
        return 0xFFFFFFFF & ~((np.int64(2) << l) - 1)
    if sid == SR_CLOCK:
        return M.clock[0] & 0xFFFFFFFF
    if sid == SR_CLOCK_HI:
        return (M.clock[0] >> 32) & 0xFFFFFFFF
    if sid == SR_CLOCK64:
        return M.clock[0]
    if sid == SR_GLOBALTIMER:
        return M.clock[0]          # one tick per cycle; scaled to ns by the timing model's report
    if sid == SR_GLOBALTIMER_LO:
        return M.clock[0] & 0xFFFFFFFF
    if sid == SR_GLOBALTIMER_HI:
        return M.clock[0] >> 32
    if sid == SR_DYNAMIC_SMEM_SIZE:
        return M.geom[7]
    if sid == SR_TOTAL_SMEM_SIZE:
        return M.geom[8]
    # thread-block clusters (geom G_CLX..: the launch's cluster dims, 1 x 1 x 1 without clusters)
    if SR_CLUSTERID_X <= sid < SR_CLUSTERID_X + 3:
        d = sid - SR_CLUSTERID_X
        return M.cta_id[M.wcta[w], d] // M.geom[G_CLX + d]
    if SR_NCLUSTERID_X <= sid < SR_NCLUSTERID_X + 3:
        d = sid - SR_NCLUSTERID_X
        return M.geom[G_NCX + d] // M.geom[G_CLX + d]
    if SR_CLUSTER_CTAID_X <= sid < SR_CLUSTER_CTAID_X + 3:
        d = sid - SR_CLUSTER_CTAID_X
        return M.cta_id[M.wcta[w], d] % M.geom[G_CLX + d]
    if SR_CLUSTER_NCTAID_X <= sid < SR_CLUSTER_NCTAID_X + 3:
        return M.geom[G_CLX + sid - SR_CLUSTER_NCTAID_X]
    if sid == SR_CLUSTER_NCTARANK:
        return M.geom[G_CLX] * M.geom[G_CLX + 1] * M.geom[G_CLX + 2]
    if sid == SR_CLUSTER_CTARANK:
        return M.clslot[M.wcta[w], CL_RANK]
    if sid == SR_IS_EXPLICIT_CLUSTER:
        return M.geom[G_EXPLICIT]
    return 0


@njit(no_cpython_wrapper=True)
def read_sreg(P, M, i, s, w, mask):
    """The special register of instruction i's source slot s, for the lanes in `mask`, into M.sregs."""
    sid = P.opv[i, s]
    for l in range(32):
        if (mask >> l) & 1:
            M.sregs[s, l] = sreg(M, sid, w, l)


@njit(no_cpython_wrapper=True, inline="always")
def bits(P, M, i, s, w, l):
    """Raw 64-bit value of source slot s."""
    k = P.opk[i, s]
    if k == oc.OK_REG:
        return M.R[w, P.opv[i, s], l]
    if k == oc.OK_IMM:
        return P.opv[i, s]
    if k == oc.OK_SREG:
        return M.sregs[s, l]          # read for the warp's active lanes by read_sreg before the instruction
    if k == oc.OK_REGNEG:
        return 1 - (M.R[w, P.opv[i, s], l] & 1)
    return 0


@njit(no_cpython_wrapper=True, inline="always")
def ival(P, M, i, s, w, l, ty):
    """Integer value of slot s as type ty (sign- or zero-extended to 64 bits)."""
    b = bits(P, M, i, s, w, l)
    n = P.tsize[ty]
    if P.tkind[ty] == K_SINT:
        return sext(b, n)
    return zext(b, n)


@njit(no_cpython_wrapper=True, inline="always")
def fval(P, M, i, s, w, l, ty):
    """Float value of slot s as float64 (f32 widened exactly)."""
    b = bits(P, M, i, s, w, l)
    if ty == T_F64:
        return f64_of(b)
    return np.float64(f32_of(b))


@njit(no_cpython_wrapper=True, inline="always")
def put(P, M, i, s, w, l, v):
    """Write raw bits v to destination slot s (sinks and immediates are ignored)."""
    if P.opk[i, s] == oc.OK_REG:
        M.R[w, P.opv[i, s], l] = v


@njit(no_cpython_wrapper=True, inline="always")
def put_int(P, M, i, s, w, l, v, ty):
    n = P.tsize[ty]
    put(P, M, i, s, w, l, zext(v, n) if n < 8 else v)


@njit
def is_f32(ty):
    return ty == T_F32
