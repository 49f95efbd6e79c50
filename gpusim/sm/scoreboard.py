"""The scoreboard: per warp and register, the cycle its pending value is written and what kind of
producer writes it (0: a fixed-latency pipe -> `wait`; 1: shared memory, SFU, a special-register read
or a shuffle -> short_scoreboard; 2: global/local memory -> long_scoreboard). A warp may issue an
instruction once every register it reads or writes is ready. It has no parameters of its own: each
producer's latency comes from its pipeline or memory unit.

`variable` marks, per pc, the instructions whose PTX class is a fixed-latency one but which the SM runs
as variable-latency MIO operations that set a scoreboard (S2R for %tid, %laneid, %ctaid and the like;
SHFL, MATCH, REDUX): their consumers wait on short_scoreboard, not on `wait`, for at least the
pipelines' `lat_s2r` (S2R) or `lat_shfl` (the MIO operations) cycles: `variable[pc]` holds that latency.
In the SASS model it also marks a warp-aggregated global atomic (ptxas's VOTEU, FLO, POPC, one ATOMG and a
SHFL that hands each lane its value): its result comes `lat_shfl` cycles after the atomic's, and a consumer
that waits for it stalls on long_scoreboard until the atomic is back, then on short_scoreboard for the SHFL
(producer kind 3, `SPLIT`), as the H100 samples the SHFL and the instruction after it
(validation/data/h100/ncu/sass_stalls_more_2026-11-27/ho_compact_atomic_naive).

The SASS model adds ptxas's write-after-read waits (gpusim/sasslisting.py `read_barriers`): a global or
local memory instruction's registers are read when the LSU begins it, not when it issues, so ptxas
gives it a read barrier and makes later SASS that would overwrite those registers (or a loop's back
edge) wait for it. `rd_set`/`rd_wait` are, per pc, the barriers (bit masks) its SASS sets and waits
on; `released[w, b]` the cycle warp w's barrier b is released. A warp held by one stalls on
long_scoreboard, as ncu reports a scoreboard wait on a memory instruction.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.sm.stalls import LONG_SCOREBOARD, SHORT_SCOREBOARD, WAIT

Scoreboard = namedtuple("Scoreboard", "reads writes ready_at producer variable rd_set rd_wait released tail")
SPLIT = -2              # operands_ready's reason for a kind-3 result: long_scoreboard, then `tail` cycles of short
N_BARRIERS = 6          # SASS scoreboard barriers
MAX_READS, MAX_WRITES = oc.NSLOT - oc.S0 + 1, oc.S0      # every source slot and the guard; every destination
OP_ATOM = oc.OP["atom"]
_MIO_OPS = {oc.OP[name] for name in ("shfl", "match", "redux") if name in oc.OP}
# special registers read with S2R/S2UR (a scoreboard); the clocks are CS2R (fixed latency), the launch
# shape (%ntid, %nctaid, ...) constant-bank operands
_S2R = {oc.SR[name] for name in ("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z", "laneid", "warpid",
                                 "smid", "gridid", "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge",
                                 "lanemask_gt", "clusterid.x", "clusterid.y", "clusterid.z", "cluster_ctaid.x",
                                 "cluster_ctaid.y", "cluster_ctaid.z", "cluster_ctarank")}
S2R_SREGS = frozenset(_S2R)


def register_lists(d):
    """Per pc: registers read (guard, sources, address bases) and written, -1 padded."""
    reads = np.full((d.n, MAX_READS), -1, np.int64)
    writes = np.full((d.n, MAX_WRITES), -1, np.int64)
    for pc in range(d.n):
        k = 0
        g = d.ins[pc, oc.F_GUARD]
        if g >= 0:
            reads[pc, k] = g
            k += 1
        for s in range(oc.S0, oc.NSLOT):
            kind = d.opk[pc, s]
            if kind in (oc.OK_REG, oc.OK_REGNEG) or (kind == oc.OK_ADDR and d.opv[pc, s] >= 0):
                reads[pc, k] = d.opv[pc, s]
                k += 1
        for s in range(oc.D0, oc.S0):
            if d.opk[pc, s] == oc.OK_REG:
                writes[pc, s] = d.opv[pc, s]
    # an atom whose old value no instruction reads is a reduction on the machine (ptxas emits RED, no
    # destination): nothing to wait for, not even before the next atom writes the same register
    read = set(reads[reads >= 0].tolist())
    for pc in range(d.n):
        if d.ins[pc, oc.F_OP] == OP_ATOM:
            for s in range(MAX_WRITES):
                if writes[pc, s] >= 0 and int(writes[pc, s]) not in read:
                    writes[pc, s] = -1
    return reads, writes


def variable_latency(d, mio_latency: int, s2r_latency: int) -> np.ndarray:
    """Per pc: the least latency of a variable-latency result that sets a scoreboard: `s2r_latency` for a
    special-register read (S2R), `mio_latency` for a shuffle/match/redux (MIO); 0 for everything else."""
    out = np.zeros(d.n, np.int64)
    for pc in range(d.n):
        if int(d.ins[pc, oc.F_OP]) in _MIO_OPS:
            out[pc] = mio_latency
            continue
        for s in range(oc.S0, oc.NSLOT):
            if d.opk[pc, s] == oc.OK_SREG and int(d.opv[pc, s]) in _S2R:
                out[pc] = s2r_latency
    return out


def make_state(d, n_warps: int, read_barriers, mio_latency: int, s2r_latency: int, aggregated=None) -> Scoreboard:
    """read_barriers: per pc, (barriers set, barriers waited on) as bit masks (the SASS model), else none.
    mio_latency, s2r_latency: the least latencies of MIO operations and S2R (`variable_latency`).
    aggregated: per pc, nonzero where ptxas made a global atomic warp-aggregated (the SASS model), else none."""
    reads, writes = register_lists(d)
    rb = np.zeros((d.n, 2), np.int64) if read_barriers is None else np.ascontiguousarray(read_barriers, np.int64)
    variable = variable_latency(d, mio_latency, s2r_latency)
    if aggregated is not None:
        for pc in range(d.n):
            if aggregated[pc] != 0 and int(d.ins[pc, oc.F_CLASS]) == oc.C_ATOMIC and writes[pc, 0] >= 0:
                variable[pc] = mio_latency
    return Scoreboard(reads, writes, np.zeros((n_warps, d.nregs), np.int64), np.zeros((n_warps, d.nregs), np.int64),
                      variable, np.ascontiguousarray(rb[:, 0]), np.ascontiguousarray(rb[:, 1]),
                      np.zeros((n_warps, N_BARRIERS), np.int64), np.int64(mio_latency))


@njit(inline="always")
def _reason(kind):
    if kind == 1:
        return SHORT_SCOREBOARD
    if kind == 2:
        return LONG_SCOREBOARD
    if kind == 3:
        return SPLIT
    return WAIT


@njit(inline="always")
def operands_ready(sb, w, pc, t, reason):
    """(cycle, stall reason): no earlier than t, and not before every register of `pc` is ready."""
    for k in range(MAX_READS):
        r = sb.reads[pc, k]
        if r < 0:
            break
        if sb.ready_at[w, r] > t:
            t = sb.ready_at[w, r]
            reason = _reason(sb.producer[w, r])
    for k in range(MAX_WRITES):
        r = sb.writes[pc, k]
        if r >= 0 and sb.ready_at[w, r] > t:
            t = sb.ready_at[w, r]
            reason = _reason(sb.producer[w, r])
    return t, reason


@njit(inline="always")
def reads_released(sb, w, pc, t, reason):
    """(cycle, stall reason): no earlier than t, and not before the read barriers `pc` waits on are released."""
    m = sb.rd_wait[pc]
    if m != 0:
        for b in range(N_BARRIERS):
            if (m >> b) & 1 and sb.released[w, b] > t:
                t = sb.released[w, b]
                reason = LONG_SCOREBOARD
    return t, reason


@njit(inline="always")
def operands_wait(sb, w, pc, t, reason):
    """(cycle, stall reason, split): no earlier than t, and not before `pc`'s registers are ready and the read
    barriers it waits on released. A kind-3 result (an aggregated atomic's, through its SHFL) is a wait on
    long_scoreboard until `split`, then short_scoreboard; otherwise split is 0."""
    t, reason = operands_ready(sb, w, pc, t, reason)
    t, reason = reads_released(sb, w, pc, t, reason)
    if reason == SPLIT:
        return t, SHORT_SCOREBOARD, t - sb.tail
    return t, reason, 0


@njit(inline="always")
def operands_read(sb, w, pc, when):
    """`pc`'s registers are read at cycle `when`: the read barriers it sets are released then."""
    m = sb.rd_set[pc]
    if m != 0:
        for b in range(N_BARRIERS):
            if (m >> b) & 1 and sb.released[w, b] < when:
                sb.released[w, b] = when


@njit(inline="always")
def mark_written(sb, w, pc, ready, kind):
    """The registers `pc` writes are pending until `ready`, produced by a unit of `kind`."""
    for k in range(MAX_WRITES):
        d = sb.writes[pc, k]
        if d >= 0:
            sb.ready_at[w, d] = ready
            sb.producer[w, d] = kind


@njit
def clear(sb, w):
    """A new warp in slot w: nothing pending."""
    for r in range(sb.ready_at.shape[1]):
        sb.ready_at[w, r] = 0
    for b in range(N_BARRIERS):
        sb.released[w, b] = 0
