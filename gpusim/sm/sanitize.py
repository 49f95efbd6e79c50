"""racecheck and synccheck, as NVIDIA's compute-sanitizer offers them: the tracking (numba).

The executor calls in here only when a check is on (`San.ctl[CT_FLAGS]`), from the shared-memory
instructions, the CTA barrier (arrival and release), `bar.warp.sync` and CTA start; with no check on,
each of those paths pays one load and one test. Functional and timing mode share the calls.

racecheck: for every byte of the CTA's shared memory, the last writer and up to two readers since
the last CTA barrier, each as (thread | flags | pc << 16, stamp). `stamp` is a launch-wide clock that
ticks at every CTA barrier release, every `bar.warp.sync` and every CTA start. Two accesses to one
byte by different threads, at least one a write, are ordered (no hazard) when
  - a CTA barrier of that CTA completed between them (the record's stamp is older than the CTA's last
    release: `cta[c, CS_FLOOR]`), or
  - both threads are lanes of one warp and each has taken part in a `bar.warp.sync` since the first
    access (`lanes[w, lane]`: stamp of the lane's last warp barrier). Lock-step execution of a warp
    does not order its lanes (Volta and later schedule threads independently), nor do shfl.sync or
    vote.sync: without __syncwarp, lanes of one warp race as threads of two warps do.
Atomics never race with atomics; an atomic after another thread's plain write is a WAW hazard, after
its plain read a WAR hazard, and a plain read after another thread's atomic a RAW hazard. A write
that leaves the element's value unchanged is not a hazard (compute-sanitizer too reports identical-value
writes only as benign), and a later read of such a write is not one either. Any barrier release of
the CTA counts as a full barrier (named barriers over some warps included): the check may then miss
a hazard, never invent one.

synccheck: at a CTA barrier (`bar.sync`, `bar.red`, `bar.arrive`, `barrier.*`) it reports
  - K_DIV_WARP: an aligned barrier (`bar.*`, `barrier.*.aligned`) reached by some but not all of the
    warp's live threads (divergent code, or a guard predicate that differs between lanes);
  - K_DIV_BLOCK: threads of one CTA meeting at one barrier id through two different aligned
    whole-CTA barrier instructions (`__syncthreads()` in both arms of a branch);
  - K_COUNT_MISMATCH: arrivals at one barrier instance with different thread counts;
  - K_BAD_COUNT: a thread count that is not a multiple of the warp size;
and at `bar.warp.sync`: K_SYNCWARP_MASK, a mask that leaves out the executing lane. Barriers that
can never complete stay gpusim's deadlock fault (sanitize_report.py adds which barriers the stuck
warps wait at).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.errors import LaunchError
from gpusim.isa import opcodes as oc
from gpusim.isa.spaces import SHARED_WINDOW, WINDOW_SIZE
from gpusim.jit import njit
from gpusim.sm.memops import address
from gpusim.sm.operands import bits

San = namedtuple("San", "ctl cta lanes shadow rep pcinfo")

F_RACE, F_SYNC = 1, 2                                       # check flags
CT_FLAGS, CT_CLOCK, CT_RACE, CT_SYNC, CT_NREP, CT_DROPPED = range(6)   # ctl fields
CS_FLOOR, CS_BARS = 0, 1                                    # cta fields; per barrier id: pc, count, tid
K_RAW, K_WAR, K_WAW, K_DIV_WARP, K_DIV_BLOCK, K_COUNT_MISMATCH, K_BAD_COUNT, K_SYNCWARP_MASK, K_ID_MISMATCH = \
    range(1, 10)
R_KIND, R_PC1, R_PC2, R_TID1, R_TID2, R_CX, R_CY, R_CZ, R_ADDR, R_COUNT, R_X1, R_X2 = range(12)
NREP = 64                                                   # distinct reports kept (by kind and pc pair)
PI_ALIGNED, PI_SYNCWARP, PI_BARRIER = 1, 2, 4               # pcinfo bits
A_READ, A_WRITE, A_ATOMIC = 0, 1, 2
FL_ATOMIC, FL_SAME = 1 << 12, 1 << 13                       # record flags beside thread + 1
TID_BITS = (1 << 12) - 1
SHADOW_LIMIT = 4 << 30                                      # bytes of racecheck state a launch may take


def make_san(flags: int, n_warps: int, n_ctas: int, smem_bytes: int, nbar: int, texts) -> San:
    race = flags & F_RACE
    need = n_ctas * smem_bytes * 6 * 8
    if race and need > SHADOW_LIMIT:
        raise LaunchError(f"racecheck needs {need / 2**30:.1f} GiB for {n_ctas} resident blocks of {smem_bytes} "
                          f"bytes of shared memory (at most {SHADOW_LIMIT >> 30} GiB): use mode='functional', "
                          "which runs one block at a time")
    ctl = np.zeros(8, np.int64)
    ctl[CT_FLAGS] = flags
    ctl[CT_CLOCK] = 1
    cta = np.full((n_ctas, CS_BARS + 3 * nbar), -1, np.int64)
    cta[:, CS_FLOOR] = 0
    lanes = np.zeros((n_warps if race else 1, 32), np.int64)
    # zero-filled, so the operating system provides only the pages a kernel touches
    shadow = np.zeros((n_ctas, smem_bytes, 6) if race else (1, 1, 6), np.int64)
    return San(ctl, cta, lanes, shadow, np.zeros((NREP, 12), np.int64), pc_info(texts))


def pc_info(texts) -> np.ndarray:
    """Per pc: PI_BARRIER for CTA barriers, PI_ALIGNED for the aligned ones (`bar.sync`, `bar.red`,
    `bar.arrive` are `barrier.*.aligned`), PI_SYNCWARP for `bar.warp.sync`."""
    info = np.zeros(max(len(texts), 1), np.int64)
    for pc, t in enumerate(texts):
        words = t.split()
        if words and words[0].startswith("@"):
            words = words[1:]
        op = words[0] if words else ""
        if op.startswith("bar.warp"):
            info[pc] = PI_SYNCWARP
        elif op.startswith("bar.") or op.startswith("bar{"):
            info[pc] = PI_BARRIER | PI_ALIGNED
        elif op.startswith("barrier."):
            info[pc] = PI_BARRIER | (PI_ALIGNED if ".aligned" in op else 0)
    return info


@njit(no_cpython_wrapper=True)
def report(S, cta_id, c, kind, pc1, pc2, tid1, tid2, addr, x1, x2):
    """Count a hazard or error; keep the first NREP distinct (kind, pc pair) with their first details."""
    S.ctl[CT_RACE if kind <= K_WAW else CT_SYNC] += 1
    n = S.ctl[CT_NREP]
    for r in range(n):
        if S.rep[r, R_KIND] == kind and S.rep[r, R_PC1] == pc1 and S.rep[r, R_PC2] == pc2:
            S.rep[r, R_COUNT] += 1
            return
    if n >= S.rep.shape[0]:
        S.ctl[CT_DROPPED] += 1
        return
    row = S.rep[n]
    row[R_KIND], row[R_PC1], row[R_PC2], row[R_TID1], row[R_TID2] = kind, pc1, pc2, tid1, tid2
    row[R_CX], row[R_CY], row[R_CZ] = cta_id[c, 0], cta_id[c, 1], cta_id[c, 2]
    row[R_ADDR], row[R_COUNT], row[R_X1], row[R_X2] = addr, 1, x1, x2
    S.ctl[CT_NREP] = n + 1


# ------------------------------------------------------------------ CTA start, barriers, warp barriers
@njit(no_cpython_wrapper=True)
def new_cta(S, c):
    """A CTA starts in slot c: every record left by the slot's previous CTA becomes stale."""
    S.ctl[CT_CLOCK] += 1
    S.cta[c, CS_FLOOR] = S.ctl[CT_CLOCK]
    for k in range(CS_BARS, S.cta.shape[1]):
        S.cta[c, k] = -1


@njit(no_cpython_wrapper=True)
def barrier_released(S, c, b):
    """Barrier b of CTA slot c completed: every earlier access of the CTA is ordered before what follows."""
    S.ctl[CT_CLOCK] += 1
    S.cta[c, CS_FLOOR] = S.ctl[CT_CLOCK]
    S.cta[c, CS_BARS + 3 * b] = -1


@njit(no_cpython_wrapper=True)
def barrier_arrive(S, M, c, w, pc, emask, b, expect, kind):
    """synccheck at a warp's arrival at CTA barrier b (kind: 0 sync, 1 arrive, 2 red; expect: thread
    count, 0 for all)."""
    if (S.ctl[CT_FLAGS] & F_SYNC) == 0:
        return
    base = M.wlocal[w] * 32
    first = _low_lane(emask)
    tid = base + first
    live = M.valid[w] & ~M.exited[w]
    aligned = (S.pcinfo[pc] & PI_ALIGNED) != 0
    if aligned and emask != live:
        report(S, M.cta_id, c, K_DIV_WARP, pc, pc, tid, base + _low_lane(live & ~emask), b, emask, live)
    if expect % 32 != 0:
        report(S, M.cta_id, c, K_BAD_COUNT, pc, pc, tid, tid, b, expect, 0)
    k = CS_BARS + 3 * b
    if S.cta[c, k] < 0:
        S.cta[c, k] = pc | (kind << 40)
        S.cta[c, k + 1] = expect
        S.cta[c, k + 2] = tid
        return
    pc0 = S.cta[c, k] & ((1 << 40) - 1)
    kind0 = S.cta[c, k] >> 40
    if S.cta[c, k + 1] != expect:
        report(S, M.cta_id, c, K_COUNT_MISMATCH, pc0, pc, S.cta[c, k + 2], tid, b, S.cta[c, k + 1], expect)
    elif (pc0 != pc and expect == 0 and kind != 1 and kind0 != 1 and aligned
          and (S.pcinfo[pc0] & PI_ALIGNED) != 0):
        report(S, M.cta_id, c, K_DIV_BLOCK, pc0, pc, S.cta[c, k + 2], tid, b, 0, 0)


@njit(no_cpython_wrapper=True)
def warp_sync(P, M, S, i, w, pc, emask):
    """bar.warp.sync: synccheck of the mask; for racecheck, the lanes that took part are ordered."""
    c = M.wcta[w]
    base = M.wlocal[w] * 32
    part = 0
    for l in range(32):
        if (emask >> l) & 1:
            m = bits(P, M, i, oc.S0, w, l) & 0xFFFFFFFF
            if (m >> l) & 1:
                part |= 1 << l
            elif S.ctl[CT_FLAGS] & F_SYNC:
                report(S, M.cta_id, c, K_SYNCWARP_MASK, pc, pc, base + l, base + l, 0, m, emask)
    if S.ctl[CT_FLAGS] & F_RACE:
        S.ctl[CT_CLOCK] += 1
        for l in range(32):
            if (part >> l) & 1:
                S.lanes[w, l] = S.ctl[CT_CLOCK]


@njit(no_cpython_wrapper=True, inline="always")
def _low_lane(m):
    for l in range(32):
        if (m >> l) & 1:
            return l
    return 0


# ------------------------------------------------------------------ racecheck
@njit(no_cpython_wrapper=True)
def shared_access(P, M, S, i, w, emask, pc, access):
    """racecheck for one ld/st/atom/red of the warp's active lanes, before it executes. Lanes whose
    address is not in shared memory, or that the instruction will fault on, are left to memcheck."""
    space = P.ins[i, oc.F_SPACE]
    if space != oc.SP_SHARED and space != oc.SP_GENERIC:
        return
    c = M.wcta[w]
    size = P.tsize[P.ins[i, oc.F_TYPE]]
    nv = 1 if access == A_ATOMIC else P.ins[i, oc.F_VEC]
    lim = M.smem.shape[1]
    base = M.wlocal[w] * 32
    for l in range(32):
        if not (emask >> l) & 1:
            continue
        a = address(P, M, i, oc.S0, w, l)
        if space == oc.SP_GENERIC:
            if not (SHARED_WINDOW <= a < SHARED_WINDOW + WINDOW_SIZE):
                continue
            a -= SHARED_WINDOW
        if a < 0 or a + size * nv > lim or (a & (size - 1)) != 0:
            continue
        for k in range(nv):
            v = np.int64(0)
            if access == A_WRITE:
                if P.opk[i, oc.S0 + 1 + k] == oc.OK_SINK:
                    continue
                v = bits(P, M, i, oc.S0 + 1 + k, w, l)
            _lane_access(S, M.smem, M.cta_id, c, w, base + l, a + k * size, size, pc, access, v)
            if access == A_WRITE:       # stored now, so the next lane of this store compares with it
                for j in range(size):
                    M.smem[c, a + k * size + j] = np.uint8((v >> (8 * j)) & 0xFF)


@njit(no_cpython_wrapper=True, inline="always")
def _unordered(S, w, t_old, t_new, stamp):
    """True when an access by thread t_old at `stamp` (since the CTA's last barrier) is not ordered
    before thread t_new's access now."""
    if t_old == t_new:
        return False
    if (t_old >> 5) != (t_new >> 5):
        return True
    return not (S.lanes[w, t_old & 31] > stamp and S.lanes[w, t_new & 31] > stamp)


@njit(no_cpython_wrapper=True)
def _lane_access(S, smem, cta_id, c, w, tid, off, size, pc, access, v):
    sh = S.shadow
    floor = S.cta[c, CS_FLOOR]
    now = S.ctl[CT_CLOCK]
    me = tid + 1 + (pc << 16)
    kw, pw, tw = 0, 0, 0                 # first hazard against the writer: kind, pc, thread
    kr, pr, tr = 0, 0, 0                 # first hazard against a reader
    same = access == A_WRITE             # a write that leaves the element's value as it is
    if same:
        for k in range(size):
            if ((v >> (8 * k)) & 0xFF) != smem[c, off + k]:
                same = False
    for k in range(size):
        b = off + k
        f = sh[c, b, 0]
        t = (f & TID_BITS) - 1
        racing = f != 0 and sh[c, b, 1] >= floor and _unordered(S, w, t, tid, sh[c, b, 1])
        if racing and kw == 0:
            kind = 0
            if access == A_READ:
                kind = 0 if f & FL_SAME else K_RAW
            elif access == A_WRITE:
                kind = 0 if same else K_WAW
            elif (f & FL_ATOMIC) == 0:
                kind = K_WAW
            if kind != 0:
                kw, pw, tw = kind, f >> 16, t
        if access == A_READ:
            _add_reader(sh, c, b, floor, tid, me, now)
            continue
        if not same and kr == 0:
            for r in (2, 4):
                f = sh[c, b, r]
                if f != 0 and sh[c, b, r + 1] >= floor:
                    t = (f & TID_BITS) - 1
                    if _unordered(S, w, t, tid, sh[c, b, r + 1]):
                        kr, pr, tr = K_WAR, f >> 16, t
                        break
        if same and racing:
            continue    # the value already there: the unordered writer of it stays the one later accesses race with
        sh[c, b, 0] = me | (FL_ATOMIC if access == A_ATOMIC else 0) | (FL_SAME if same else 0)
        sh[c, b, 1] = now
    if kw != 0:
        report(S, cta_id, c, kw, pw, pc, tw, tid, off, 0, 0)
    if kr != 0:
        report(S, cta_id, c, kr, pr, pc, tr, tid, off, 0, 0)


@njit(no_cpython_wrapper=True, inline="always")
def _add_reader(sh, c, b, floor, tid, me, now):
    f = sh[c, b, 2]
    if f == 0 or sh[c, b, 3] < floor:
        sh[c, b, 2], sh[c, b, 3], sh[c, b, 4] = me, now, 0
    elif (f & TID_BITS) - 1 == tid:
        sh[c, b, 2], sh[c, b, 3] = me, now
    else:
        sh[c, b, 4], sh[c, b, 5] = me, now
