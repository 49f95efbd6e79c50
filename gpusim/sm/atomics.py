"""Global atomics of the load/store unit (gpusim/sm/lsu.py holds its state): a warp's atomic leaves the LSU
as one request per sector for the L2's atomic units (gpusim/memory/l2.py), once the SM has credits for its
operations at each unit it goes to (`LSUSpec.atomic_credits`); and which instructions are atomics, floating-point
atomics, or releases (a fence, or an atomic with release semantics: they wait for the warp's earlier writes)."""
from __future__ import annotations

import re

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.isa.types import K_FLOAT, TYPE_KIND
from gpusim.jit import njit
from gpusim.memory.coalescer import coalesce, count_lines
from gpusim.memory.l2 import l2_atomic, slice_of
from gpusim.memory.shared_banks import same_address_ways

OP_ATOM, OP_RED = oc.OP["atom"], oc.OP["red"]


def float_atomics(d) -> np.ndarray:
    """Per pc of decoded program d: 1 for an atom/red on floating-point data (the L2 chains them)."""
    out = np.zeros(d.n, np.int64)
    for pc in range(d.n):
        if d.ins[pc, oc.F_OP] in (OP_ATOM, OP_RED) and TYPE_KIND.get(int(d.ins[pc, oc.F_TYPE])) == K_FLOAT:
            out[pc] = 1
    return out


def global_atomics(d) -> bool:
    """Whether decoded program d has an atom/red outside shared memory (a global or generic address)."""
    for pc in range(d.n):
        if d.ins[pc, oc.F_OP] in (OP_ATOM, OP_RED) and d.ins[pc, oc.F_SPACE] != oc.SP_SHARED:
            return True
    return False


# the semantics anywhere among the qualifiers: `atom.acq_rel.gpu.global.add` (the ISA's order) or
# `atom.global.gpu.acq_rel.add` (Triton's)
_ACQUIRE = re.compile(r"^(?:@!?%\w+\s+)?atom\S*\.(?:acquire|acq_rel)\b")
_RELEASE = re.compile(r"^(?:@!?%\w+\s+)?(?:(?:atom|red)\S*\.(?:release|acq_rel)\b|membar\.(?:gl|sys)\b|"
                      r"fence\.(?:sc|acq_rel)\.(?:gpu|sys)\b)")


def release_pcs(d) -> np.ndarray:
    """Per pc of decoded program d: bit 0 for an instruction that waits until the warp's earlier global stores
    and atomics are performed (a gpu/system-scope membar or fence.sc/acq_rel, an atom/red with release or acq_rel
    semantics outside the CTA scope: ptxas emits MEMBAR.ALL.GPU before it); bit 1 for an atom with acquire or
    acq_rel semantics outside the CTA scope, after which the warp waits for it to be performed (ptxas emits
    CCTL.IVALL after it); else 0."""
    out = np.zeros(d.n, np.int64)
    for pc, text in enumerate(d.texts[:d.n]):
        t = text.strip()
        op = t.split()[0 if not t.startswith("@") else 1]
        if ".cta" in op:
            continue
        if _RELEASE.match(t):
            out[pc] |= 1
        if _ACQUIRE.match(t):
            out[pc] |= 2
    return out


@njit
def sector_ways(addrs, mask, sector):
    """The most active lanes on one address inside 32-byte `sector`: the slice's operations on it."""
    worst = 1
    for a in range(32):
        if not (mask >> a) & 1 or addrs[a] >> 5 != sector:
            continue
        c = 0
        for b in range(a, 32):
            if (mask >> b) & 1 and addrs[b] == addrs[a]:
                c += 1
        worst = max(worst, c)
    return worst


@njit
def sector_bytes(addrs, mask, size, sector):
    """The operand bytes the lanes on 32-byte `sector` bring its slice (a lane each, at most the sector's)."""
    n = 0
    for a in range(32):
        if (mask >> a) & 1 and addrs[a] >> 5 == sector:
            n += size
    return min(n, 32)


@njit
def full_line(sectors, ns, k):
    """Whether sorted `sectors[:ns]` hold all four sectors of sectors[k]'s line."""
    first = sectors[k] & ~np.int64(3)
    p = k - (sectors[k] & 3)
    return p >= 0 and p + 3 < ns and sectors[p] == first and sectors[p + 3] == first + 3


@njit
def _credit_units(lsu, l2, tr_addr, mask, ns, worst):
    """The atomic units the request in lsu.sectors[:ns] goes to (credit_unit) and the operations each performs
    for it (credit_ops: one per sector and address round, at most `atomic_credits`); how many units."""
    if lsu.credits.shape[1] == 0:
        return 0
    n, chunk = 0, np.int64(-1)
    nsl = lsu.credits.shape[1]
    for k in range(ns):     # sectors in address order: a unit's chunk's are together
        sec = lsu.sectors[k]
        if sec >> l2.atomic_shift != chunk and n < lsu.credit_unit.shape[0]:
            chunk = sec >> l2.atomic_shift
            lsu.credit_unit[n] = slice_of(sec, nsl, l2.atomic_shift)
            lsu.credit_ops[n] = 0
            n += 1
        lsu.credit_ops[n - 1] += 1 if worst == 1 else sector_ways(tr_addr, mask, sec)
    for i in range(n):
        lsu.credit_ops[i] = min(lsu.credit_ops[i], lsu.credits.shape[2])
    return n


@njit
def global_atomic(lsu, l1, l2, noc, dram, tr_addr, mask, size, sm, pc, now, w):
    """Atomics/reductions at L2. Lanes on one address serialise at the SM (the warp's busiest address)
    and again at the slice (per sector, its busiest address); distinct addresses in one sector share
    an L2 operation."""
    worst = 1 if lsu.aggregated[pc] != 0 else same_address_ways(tr_addr, mask)
    start = max(now, lsu.free_at[sm])
    ns = coalesce(tr_addr, mask, size, lsu.sectors)
    lines = count_lines(lsu.sectors, ns)
    n = _credit_units(lsu, l2, tr_addr, mask, ns, worst)
    cap = lsu.credits.shape[2]
    # each unit it goes to: its operations there take the SM's oldest credits for that unit. The LSU has begun it
    # (read its registers: its read barriers are released) and holds it until then; what the SM queued behind it
    # waits (lg_throttle once the queue is full), and so does its warp's exit (drain)
    for i in range(n):
        u = lsu.credit_unit[i]
        start = max(start, lsu.credits[sm, u, (lsu.credit_head[sm, u] + lsu.credit_ops[i] - 1) % cap])
    lsu.free_at[sm] = start + lsu.issue_interval + lsu.atomic_line * (lines - 1) + lsu.atomic_same_address * (worst - 1)
    done = start
    is_float = lsu.float_atomic[pc] != 0
    coalesced = worst == 1 and not is_float     # an integer request, one lane per address: whole lines at the line rate
    for k in range(ns):
        ways = 1 if worst == 1 else sector_ways(tr_addr, mask, lsu.sectors[k])
        # a warp-aggregated atomic brings one lane's operand
        nb = size if lsu.aggregated[pc] != 0 else sector_bytes(tr_addr, mask, size, lsu.sectors[k])
        done = max(done, l2_atomic(l2, noc, dram, sm, lsu.sectors[k], start + l1.latency, ways, is_float,
                                   coalesced and full_line(lsu.sectors, ns, k), nb))
    lsu.last_drain[0] = max(lsu.last_drain[0], done)
    lsu.acked_at[w] = max(lsu.acked_at[w], done)
    lsu.sm_acked[sm] = max(lsu.sm_acked[sm], done)
    lsu.drain_at[w] = max(lsu.drain_at[w], lsu.free_at[sm] + l1.latency)    # sent off, not performed
    for i in range(n):      # its credits are taken until it is performed and back
        u = lsu.credit_unit[i]
        for k in range(lsu.credit_ops[i]):
            lsu.credits[sm, u, (lsu.credit_head[sm, u] + k) % cap] = done
        lsu.credit_head[sm, u] = (lsu.credit_head[sm, u] + lsu.credit_ops[i]) % cap
    return done


@njit(inline="always")
def fence_ready(lsu, w):
    """The cycle warp w's gpu-scope release may go: the writes its SM had sent when the warp came to it
    acknowledged plus `fence_after_ack`, and the warp's last L1 invalidation done (0: nothing to wait for)."""
    last = max(lsu.acked_at[w], lsu.seen_acked[w])
    return max(last + lsu.fence_after if last > 0 else 0, lsu.invalidated_at[w])


@njit(inline="always")
def acquired(lsu, w, done):
    """Warp w's atomic with acquire semantics, back at `done`: the cycle the warp goes on (the atomic
    acknowledged, plus CCTL.IVALL's `acquire_cycles`); its L1 invalidation ends `invalidate_cycles` later."""
    acq = max(lsu.acked_at[w], done) + lsu.acquire_cycles
    lsu.invalidated_at[w] = acq + lsu.invalidate_cycles
    return acq

