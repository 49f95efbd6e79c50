"""Warp-wide instructions: shfl.sync, vote.sync, activemask, redux.sync, match.sync, elect.sync (numba).

The `.sync` forms take a membermask (their last source): vote and redux combine the active lanes
that membermask names, as PTX defines them (`vote.sync.ballot.b32 d, p, 0xFFFF` sees lanes 0-15
only). A shfl whose source lane is outside membermask reads that lane's value (PTX leaves it
undefined). An executing lane outside its own membermask is undefined behaviour in PTX; gpusim
gives it the result of the named lanes."""
from __future__ import annotations

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.bits import sext, zext
from gpusim.isa.types import K_SINT
from gpusim.jit import njit
from gpusim.sm.operands import bits, put


@njit(no_cpython_wrapper=True)
def exec_shfl(P, M, i, w, mask):
    mode = P.ins[i, oc.F_MOD]
    src = M.si[0]
    for l in range(32):
        src[l] = bits(P, M, i, oc.S0, w, l) & 0xFFFFFFFF
    has_p = P.ins[i, oc.F_NDST] > 1
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        b = bits(P, M, i, oc.S0 + 1, w, l) & 0x1F
        c = bits(P, M, i, oc.S0 + 2, w, l)
        cval = c & 0x1F
        seg = (c >> 8) & 0x1F
        max_lane = (l & seg) | (cval & ~seg)
        min_lane = l & seg
        if mode == 0:
            j = l - b
            ok = j >= max_lane
        elif mode == 1:
            j = l + b
            ok = j <= max_lane
        elif mode == 2:
            j = l ^ b
            ok = j <= max_lane
        else:
            j = min_lane | (b & ~seg)
            ok = j <= max_lane
        if not ok:
            j = l
        put(P, M, i, oc.D0, w, l, src[j])
        if has_p:
            put(P, M, i, oc.D0 + 1, w, l, 1 if ok else 0)


@njit(no_cpython_wrapper=True)
def members(P, M, i, w, mask, slot):
    """The active lanes that the membermask operand in `slot` names (all active lanes if it is absent)."""
    if P.ins[i, oc.F_NSRC] <= slot - oc.S0:
        return mask
    for l in range(32):
        if (mask >> l) & 1:
            return mask & (bits(P, M, i, slot, w, l) & 0xFFFFFFFF)
    return mask


@njit(no_cpython_wrapper=True)
def exec_vote(P, M, i, w, mask):
    mode = P.ins[i, oc.F_MOD]
    named = members(P, M, i, w, mask, oc.S0 + 1)
    ballot = np.int64(0)
    for l in range(32):
        if (named >> l) & 1 and bits(P, M, i, oc.S0, w, l) & 1:
            ballot |= np.int64(1) << l
    if mode == 0:
        r = 1 if ballot == named else 0
    elif mode == 1:
        r = 1 if ballot != 0 else 0
    elif mode == 2:
        r = 1 if (ballot == named or ballot == 0) else 0
    else:
        r = ballot
    for l in range(32):
        if (mask >> l) & 1:
            put(P, M, i, oc.D0, w, l, r)


@njit(no_cpython_wrapper=True)
def exec_activemask(P, M, i, w, mask):
    for l in range(32):
        if (mask >> l) & 1:
            put(P, M, i, oc.D0, w, l, mask)


@njit(no_cpython_wrapper=True)
def exec_redux(P, M, i, w, mask):
    op = P.ins[i, oc.F_MOD]
    ty = P.ins[i, oc.F_TYPE]
    signed = P.tkind[ty] == K_SINT
    named = members(P, M, i, w, mask, oc.S0 + 1)
    acc = np.int64(0)
    first = True
    for l in range(32):
        if not (named >> l) & 1:
            continue
        v = bits(P, M, i, oc.S0, w, l)
        v = sext(v, 4) if signed else zext(v, 4)
        if first:
            acc = v
            first = False
        elif op == 0:
            acc += v
        elif op == 1:
            acc = min(acc, v)
        elif op == 2:
            acc = max(acc, v)
        elif op == 3:
            acc &= v
        elif op == 4:
            acc |= v
        else:
            acc ^= v
    for l in range(32):
        if (mask >> l) & 1:
            put(P, M, i, oc.D0, w, l, zext(acc, 4))




@njit(no_cpython_wrapper=True)
def exec_match(P, M, i, w, mask):
    """match.any.sync: d = the lanes named by this lane's membermask (and active) whose a equals this
    lane's; match.all.sync: d = those named lanes (and p = 1) if all of them hold the same a, else d = 0
    (and p = 0). a is .b32 or .b64."""
    n = P.tsize[P.ins[i, oc.F_TYPE]]
    vals = M.si[0]
    for l in range(32):
        if (mask >> l) & 1:
            vals[l] = zext(bits(P, M, i, oc.S0, w, l), n)
    has_p = P.ins[i, oc.F_NDST] > 1
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        named = mask & (bits(P, M, i, oc.S0 + 1, w, l) & 0xFFFFFFFF)
        same_as_me = np.int64(0)
        for j in range(32):
            if (named >> j) & 1 and vals[j] == vals[l]:
                same_as_me |= np.int64(1) << j
        if P.ins[i, oc.F_MOD] == 0:
            r = same_as_me
        else:
            r = named if same_as_me == named else np.int64(0)
        put(P, M, i, oc.D0, w, l, r)
        if has_p:
            put(P, M, i, oc.D0 + 1, w, l, 1 if same_as_me == named else 0)


@njit(no_cpython_wrapper=True)
def exec_elect(P, M, i, w, mask):
    """elect.sync d|p, membermask: the leader is the lowest active lane membermask names; every
    executing lane gets its lane id in d, and p is true in the leader only."""
    named = members(P, M, i, w, mask, oc.S0)
    leader = -1
    for l in range(32):
        if (named >> l) & 1:
            leader = l
            break
    has_p = P.ins[i, oc.F_NDST] > 1
    for l in range(32):
        if (mask >> l) & 1:
            put(P, M, i, oc.D0, w, l, max(leader, 0))
            if has_p:
                put(P, M, i, oc.D0 + 1, w, l, 1 if l == leader else 0)
