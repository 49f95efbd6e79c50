"""Load/store unit: coalescing, then the L1 (gpusim/memory/l1.py) and the L2 behind it for global
and local memory, the shared-memory banks over the MIO pipe, atomics at the L2.

Called after the functional executor ran a memory instruction (its lane addresses are in the
executor's tr_addr, its shape in tr_info). Returns the cycle the destination registers become ready and updates the
LSU/MIO pipes. The LSU takes one request per `issue_interval` cycles per 128-byte line it touches; a
global load of several lines instead costs the larger of its tag lookups (`tag_lines` lines a cycle)
and its data wavefronts in the L1's 32 banks. The SM's LSU queue holds `queue_instructions` global and
local instructions, each until the LSU begins it: a warp whose instruction finds it full stalls on
lg_throttle, however long the queued ones keep the LSU busy; a global atomic finds it full sooner, when the
instruction `atomic_queue` places back has not begun. A store's or atomic's registers are read when it moves
from the MIO into the L1's queue (`store_read`), a load's when the LSU begins it. A store keeps the LSU until its
L2 slice has taken it; an atomic does not (its slice queues it), unless the SM has used up its credits for the
atomic unit it goes to (`atomic_credits` operations in flight per unit): then the LSU holds it until enough of
the earlier ones are performed, so a backed-up unit keeps the SM's warps waiting in the SM, as the H100's do
(gpusim/sm/atomics.py sends them).
(Until 2026-11-27 the queue held `queue` = 64 cycles of LSU work; validation/DEVIATIONS.md, twelfth pass.)

The MIO queue of a sub-partition is in order: its global/local stores and atomics, whose data goes through
it, leave it for the L1's queue of `mio_lg_queue` instructions, and a special-register read (S2R) or
shuffle behind them leaves it only once they are in (`mio_behind_lg`). A new CTA's S2R behind a backlog of
stores or reductions therefore waits, and its consumer stalls on short_scoreboard: the H100 samples those
stalls on the first consumer of `S2R SR_TID.X` in the store and atomic microbenchmarks
(validation/data/h100/ncu/sass_stalls_atomics_2026-11-27/), and hardly any in load-streaming kernels
(prog_vecadd 0.8 cycles per instruction, tri_vecadd 0.4), so loads do not hold it.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.memory.coalescer import coalesce, count_lines
from gpusim.memory.l1 import begin_request, l1_load, l1_store, send_miss
from gpusim.memory.l2 import l2_access
from gpusim.memory.shared_banks import ATOM, LD, ST, smem_access, wavefronts
from gpusim.sm.atomics import global_atomic
from gpusim.sm.copygroups import make_state as copy_groups
from gpusim.sm.copygroups import warp_reset as copies_reset
from gpusim.sm.state import TI_ATOM, TI_MASK, TI_PAST_L1, TI_SIZE, TI_SPACE, TI_STORE
from gpusim.sm.storepath import line_request, lowest, sector_partial, write_combines
from gpusim.spec import MAX_CYCLES, param

LOCAL_BASE = np.int64(1) << 44


@dataclass(frozen=True)
class LSUSpec:
    """The load/store unit of one SM (global, local and atomic traffic)."""
    issue_interval: int = param(2, "cycles", "per memory instruction and 128-B line it touches", (1, 10_000))
    tag_lines: int = param(4, "lines", "128-B lines per cycle the L1's tag stage looks up for one global load; "
                                       "a load of several lines costs the larger of its lookups and its data "
                                       "wavefronts (the most words one of the 32 4-byte banks delivers). "
                                       "Measured: 32 lines in 32 banks take 9.0 cycles (probe lg_queue), 32 "
                                       "lines in one bank 33 (probe lsu_lines)", (1, 32))
    queue_instructions: int = param(128, "instructions", "global/local instructions per SM that may wait for the "
                                                       "LSU to begin them before a warp stalls on lg_throttle",
                                    (1, 4096))
    atomic_same_address_cycles: int = param(10, "cycles", "serialisation per extra lane on one address in a warp "
                                                          "(fitted under the SASS model on atomic_per_warp, with "
                                                          "ptxas's read barriers holding each warp's loop until "
                                                          "its REDs have begun and the SMs' atomic credits: "
                                                          "+0.7%; 12 before the credits)",
                                            (0, 10_000))
    atomic_line_cycles: int = param(3, "cycles", "LSU cycles per 128-B line past the first that a global atomic "
                                                 "touches, each line its own request to the L2 (fitted: "
                                                 "gatomic_strided)", (0, 10_000))
    store_line_cycles: int = param(1, "cycles", "LSU cycles per 128-B line a store writes. Not fitted: 8 fits "
                                                "store_s01..s32 but sends the held-out transpose_naive from -48% to "
                                                "+82%; their cost is partial writes to new lines at the L2 "
                                                "(l2.write_miss_cycles)", (1, 10_000))
    combine_lines: int = param(4, "lines", "write combining in the L1: a warp's global store merges into its "
                                           "previous one, sending nothing more to the L2, when it writes only lines "
                                           "that one wrote, that one wrote at most this many 128-B lines, and "
                                           "it comes within `combine_window` cycles (fitted: store_rows2 and 4 "
                                           "merge, store_rows8's 8 lines per store do not; 0 turns it off)",
                               (0, 32))
    mio_lg_queue: int = param(32, "instructions", "the L1's queue of global/local instructions behind the in-order "
                                                 "MIO: a special-register read or shuffle leaves the MIO once the "
                                                 "global/local stores and atomics its sub-partition queued before "
                                                 "it got into that queue (the LSU began all but this many of the "
                                                 "instructions the SM queued before the newest of them); 0: it "
                                                 "passes them (fitted on the store and atomic microbenchmarks' "
                                                 "short_scoreboard, eighteenth pass)", (0, 4096))
    atomic_credits: int = param(256, "operations", "global atomic operations an SM may have in flight to one of "
                                                   "the L2's atomic units, as the unit counts them (one per sector "
                                                   "and address round: a one-lane or warp-aggregated atomic one, a "
                                                   "coalesced line four, 32 lanes on one address 32), taken by a "
                                                   "request at its busiest unit: one that finds them taken waits "
                                                   "in the LSU until enough are performed, so a backed-up unit "
                                                   "holds the SMs' warps instead of letting them finish (0: no "
                                                   "limit). 256: gatomic_lane0_one's SMs send all their 256 "
                                                   "one-lane REDs at once (active 2.1k of 53k cycles, as on the "
                                                   "H100), atomic_one_address's stay active 710k of 807k (H100 "
                                                   "704k of 787k)", (0, 1 << 20))
    store_read: int = param(1, "flag", "1: a global/local store's or atomic's registers are read when it moves "
                                       "from the MIO into the L1's queue of `mio_lg_queue` (ptxas's read barriers "
                                       "release then), 0: when the LSU begins it. Chosen on the strided-store and "
                                       "atomic microbenchmarks' stall mix (store_s32: long_scoreboard / drain "
                                       "11.5 / 21.0 on the H100, 31.6 / 0.4 with 0, 6.7 / 19.1 with 1); cycles "
                                       "within 1% on most, gatomic_per_warp8 +7.6% -> +13.3%", (0, 1))
    atomic_queue: int = param(80, "instructions", "a global atomic or reduction finds the LSU queue full (lg_throttle) "
                                                 "until the SM's instruction this many places back in it has "
                                                 "begun (0, or more than queue_instructions: the whole queue, as "
                                                 "other instructions). Fitted on "
                                                 "the atomic microbenchmarks' stall mix: the H100 has lg_throttle "
                                                 "in the top 3 of 9 of them and gpusim had none; with 80, 55 of "
                                                 "the 94 microbenchmarks' top-3 sets are ncu's (51 before; 64: "
                                                 "57, but gatomic_per_cta -13.6% -> +19.4%)", (0, 4096))
    combine_window: int = param(90, "cycles", "the most cycles between a warp's stores that merge. Fitted on the "
                                              "lds_after_bar probe's bar_sts_stg form (a warp's 4-line partial "
                                              "store every scan step, 1 / 4 / 8 CTAs per SM, H200 45.1k / 178.1k / "
                                              "340.6k cycles, its L1 merging 27% / 2% / 1% of the sectors): "
                                              "+8% / -1% / +2%; with 1000 (until 2026-11-29) -40% / -67% / -70%, "
                                              "every store merged; 150 until BAR.SYNC.DEFER_BLOCKING (2026-11-30) "
                                              "brought its steps to ~100 cycles, under it: -59% at one CTA. "
                                              "store_rows2 +2.7%, store_rows4 +12.9%; with 32 +30% and +151% (at "
                                              "150 before)", (0, MAX_CYCLES))
    combine_ascending: int = param(1, "flag", "a store merges only if it does not start below the warp's previous "
                                              "one (its lowest lane address): four stores of a 16-B row a "
                                              "thread, +4, +0, +8, +12, merge as two (ncu: ho_scan_exclusive's "
                                              "L2 gets 0.755 write sectors per L1 store sector, store_rows4's "
                                              "+0, +4, +8, +12 0.425, 1.51 where nothing merges); 0: any order",
                                   (0, 1))
    # memory order at gpu scope (probe atomic_order: 64 uncontended atomics a thread, one warp a sub-partition;
    # H200 cycles a step relaxed 128, release 837, acquire 615, acq_rel 1,182; a lone warp's release 427, and
    # 1,052 with the CTA's other warps streaming stores: a fence waits for its SM's writes, not only its warp's)
    fence_after_ack: int = param(85, "cycles", "a gpu-scope release fence (MEMBAR.ALL.GPU, ERRBAR) ends this long "
                                               "after the writes and atomics its SM had sent when the warp came to "
                                               "it are acknowledged (fitted: atomic_order's lone-warp release, 427 "
                                               "cycles a step)", (0, MAX_CYCLES))
    acquire_cycles: int = param(185, "cycles", "after an atomic with acquire semantics the warp waits until it is "
                                               "performed and acknowledged and this long more (CCTL.IVALL, "
                                               "long_scoreboard; fitted: atomic_order's acquire kernel)",
                                (0, MAX_CYCLES))
    invalidate_cycles: int = param(567, "cycles", "the L1 invalidation that follows (CCTL.IVALL): a later fence "
                                                  "waits for it (membar; fitted: atomic_order's acq_rel kernel, "
                                                  "1,182 - 615 cycles a step)", (0, MAX_CYCLES))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.issue_interval < 1:
            raise ConfigError(f"bad value for '{prefix}issue_interval': must be at least 1")


LSU = namedtuple("LSU", "issue_interval tag_lines atomic_same_address free_at drain_at last_drain counters "
                       "pc_sectors pc_requests addrs sectors groups store_line aggregated atomic_line "
                       "float_atomic spill spill_bytes spill_debt spill_next spill_addr wc_lines wc_n wc_time "
                       "combine_lines combine_window partial qring qhead qcount mio_lg_queue sp_queued "
                       "credits credit_head credit_unit credit_ops acked_at release fence_after acquire_cycles "
                       "invalidate_cycles invalidated_at sm_acked seen_acked wc_addr combine_ascending store_read "
                       "atomic_queue")
# spill: per pc, the spill loads and stores (LDL/STL ptxas added) per execution (x SLOT, the SASS model);
# spill_bytes: each thread's spill area, after its PTX local frame; spill_debt: per warp, the fractions
# not yet issued; spill_next: per warp, the next 4-byte slot of the area; spill_addr: the lanes' offsets
# partial: scratch, per sector of the store being sent, 1 if its bytes are not all written
# wc_lines, wc_n, wc_time: per warp, the lines of its store that later ones may merge into (wc_n of them;
# 0: none) and the cycle of its last global store
# qring, qhead, qcount: per SM, the cycle the LSU begins each of its last queue_instructions global/local
# instructions (a ring), the next slot, and how many it has queued; sp_queued: per sub-partition (at most 4
# per SM), the queue position (qcount) of its newest store or atomic, which its S2Rs wait behind
# acked_at: per warp, the cycle the last of its global stores and atomics so far is performed and acknowledged;
# release: per pc, bit 0 for an instruction that first waits for that (a gpu- or system-scope fence, an atomic
# with release semantics: ptxas puts a MEMBAR before it), bit 1 for one with acquire semantics after which the
# warp waits (ptxas's CCTL.IVALL: the atomic performed, then the L1 invalidated); invalidated_at: per warp, the
# cycle its last such invalidation is done (the next fence waits for it); sm_acked: per SM, the cycle the last
# of the global stores and atomics its warps sent so far is acknowledged; seen_acked: per warp, that cycle when
# the warp issued its last instruction (a fence after it waits for all of those)
# credits, credit_head: per SM and atomic unit, the cycle each of the last `atomic_credits` operations it sent
# there is performed and back (a ring, in the order sent: one SM's requests to one unit are served in order),
# and the oldest of them; credit_unit, credit_ops: scratch, the units of the request being sent and its operations
# at each
LD_REQUESTS, LD_SECTORS, ST_REQUESTS, ST_SECTORS, LOCAL_SECTORS, ATOM_REQUESTS = range(6)     # counters
KIND_NONE, KIND_SHORT, KIND_LONG, KIND_SPLIT = 0, 1, 2, 3      # scoreboard producer kinds (sm/scoreboard.py)


def make_state(spec: LSUSpec, n_sm: int, n_warps: int, n_pcs: int, aggregated=None, float_atomic=None,
               spill=None, spill_bytes: int = 0, atomic_units: int = 0, release=None) -> LSU:
    """aggregated: per pc, 1 where ptxas made a global atomic warp-aggregated (the SASS model: one lane
    performs the warp's update, VOTEU/POPC/SHFL spread the result; gpusim/sassmap.py). float_atomic: per
    pc, 1 for a floating-point atomic (`atomics.float_atomics`). spill: per pc, (spill loads, spill stores) per
    execution x SLOT, and spill_bytes the area per thread they use (ptxas's spill stores; the SASS model).
    atomic_units: the L2's atomic units, for the credits of a kernel with global atomics (0: none kept).
    release: per pc, bit 0 where the instruction waits for the warp's earlier writes to be performed, bit 1
    where the warp waits after it for its acquire (`atomics.release_pcs`)."""
    if spec.atomic_credits == 0:
        atomic_units = 0
    return LSU(np.int64(spec.issue_interval), np.int64(spec.tag_lines),
               np.int64(spec.atomic_same_address_cycles),
               np.zeros(n_sm, np.int64), np.zeros(n_warps, np.int64), np.zeros(1, np.int64), np.zeros(6, np.int64),
               np.zeros(n_pcs, np.int64), np.zeros(n_pcs, np.int64), np.zeros(32, np.int64), np.zeros(512, np.int64),
               copy_groups(n_warps),
               np.int64(spec.store_line_cycles),
               np.zeros(n_pcs, np.int64) if aggregated is None else np.ascontiguousarray(aggregated, np.int64),
               np.int64(spec.atomic_line_cycles),
               np.zeros(n_pcs, np.int64) if float_atomic is None else np.ascontiguousarray(float_atomic, np.int64),
               np.zeros((n_pcs, 2), np.int64) if spill is None else np.ascontiguousarray(spill, np.int64),
               np.int64(0 if spill is None else max(4, (int(spill_bytes) + 3) // 4 * 4)),
               np.zeros((n_warps, 2), np.int64), np.zeros(n_warps, np.int64), np.zeros(32, np.int64),
               np.full((n_warps, max(1, spec.combine_lines)), -1, np.int64), np.zeros(n_warps, np.int64),
               np.zeros(n_warps, np.int64),
               np.int64(spec.combine_lines), np.int64(spec.combine_window), np.zeros(512, np.int64),
               np.zeros((n_sm, spec.queue_instructions), np.int64), np.zeros(n_sm, np.int64), np.zeros(n_sm, np.int64),
               np.int64(spec.mio_lg_queue), np.zeros(n_sm * 4, np.int64),
               np.zeros((n_sm, atomic_units, spec.atomic_credits), np.int64),
               np.zeros((n_sm, atomic_units), np.int64), np.zeros(64, np.int64), np.zeros(64, np.int64),
               np.zeros(n_warps, np.int64), np.zeros(n_pcs, np.int64) if release is None else release,
               np.int64(spec.fence_after_ack), np.int64(spec.acquire_cycles), np.int64(spec.invalidate_cycles),
               np.zeros(n_warps, np.int64), np.zeros(n_sm, np.int64), np.zeros(n_warps, np.int64),
               np.zeros(n_warps, np.int64), np.int64(spec.combine_ascending), np.int64(spec.store_read),
               np.int64(min(spec.atomic_queue, spec.queue_instructions)))


def counters(lsu: LSU) -> dict:
    c = lsu.counters
    m = {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": int(c[LD_REQUESTS]),
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": int(c[LD_SECTORS]),
         "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": int(c[ST_REQUESTS]),
         "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": int(c[ST_SECTORS]),
         "l1tex__t_sectors_pipe_lsu_mem_local_op.sum": int(c[LOCAL_SECTORS])}
    for k, req, sect in (("ld", LD_REQUESTS, LD_SECTORS), ("st", ST_REQUESTS, ST_SECTORS)):
        m[f"gpusim__sectors_per_request_global_{k}"] = c[sect] / c[req] if c[req] else 0.0
    return m


@njit
def global_access(lsu, l1, l2, noc, dram, tr_addr, mask, size, local_bytes, sm, pc, now, is_store, is_local, w,
                  bypass_l1, banks, words, bank_load):
    """banks > 0: a load whose data comes through the L1's `banks` data banks (words, bank_load: scratch)."""
    addrs = lsu.addrs
    for l in range(32):
        a = tr_addr[l]
        if is_local:    # per-thread local memory is interleaved across lanes, as the hardware does
            a = LOCAL_BASE + ((w * local_bytes + a) * 32 + l * size)
        addrs[l] = a
    ns = coalesce(addrs, mask, size, lsu.sectors)
    nl = count_lines(lsu.sectors, ns)
    lsu.pc_sectors[pc] += ns
    lsu.pc_requests[pc] += 1
    if is_local:
        lsu.counters[LOCAL_SECTORS] += ns
    elif is_store:
        lsu.counters[ST_REQUESTS] += 1
        lsu.counters[ST_SECTORS] += ns
    else:
        lsu.counters[LD_REQUESTS] += 1
        lsu.counters[LD_SECTORS] += ns
    start = max(now, lsu.free_at[sm])
    busy = max(nl, 1) * lsu.issue_interval // 2 + (lsu.issue_interval % 2)
    if banks > 0 and nl > 1:     # a load of several lines: its tag lookups or its wavefronts in the L1's data banks
        wf = wavefronts(tr_addr, mask, size, banks, words, bank_load)
        busy = max((nl + lsu.tag_lines - 1) // lsu.tag_lines, wf) * lsu.issue_interval // 2 + (lsu.issue_interval % 2)
    if is_store:      # each line a store writes is its own write request to the L2
        busy = max(nl, 1) * lsu.store_line
    done = start + l1.latency
    go_on = start
    # a store of few lines that the warp's next stores may complete in the L1 (write_combines) is not charged
    # as a partial write at the L2
    base = lsu.combine_lines > 0 and nl <= lsu.combine_lines
    if is_store and not is_local and write_combines(lsu, w, ns, nl, now, lowest(addrs, mask)):
        ns = 0            # merged into the warp's previous store: nothing more goes to the L2
    sent = start + busy + l1.latency
    whole = True        # a store that writes only whole sectors
    if is_store:
        for k in range(ns):
            lsu.partial[k] = sector_partial(addrs, mask, size, lsu.sectors[k])
            if lsu.partial[k] != 0:
                whole = False
    begin_request(l1)
    for k in range(ns):
        sec = lsu.sectors[k]
        if is_store:      # write-through to the L2 once its line's fills are in: only the warp's exit waits (drain)
            at = l1_store(l1, sm, sec, start, is_local)
            merge = 0
            if not base and (k == 0 or lsu.sectors[k - 1] >> 2 != sec >> 2):    # sectors are in address order
                merge = line_request(lsu.sectors, lsu.partial, ns, k)
            acked = l2_access(l2, noc, dram, sm, sec, at + l1.latency, True, lsu.partial[k], merge)
            lsu.last_drain[0] = max(lsu.last_drain[0], acked)
            lsu.acked_at[w] = max(lsu.acked_at[w], acked)
            lsu.sm_acked[sm] = max(lsu.sm_acked[sm], acked)
            sent = max(sent, np.int64(l2.accepted[0]), at + l1.latency)     # a slice's full queue holds it
            continue
        if bypass_l1:     # cp.async.cg, ld.global.cg / .cv: cached in the L2 only
            t, free = l2_access(l2, noc, dram, sm, sec, send_miss(l1, sm, sec, start + l1.latency), False), start
        else:
            t, free = l1_load(l1, l2, noc, dram, sm, sec, start)
        go_on = max(go_on, free)
        if t > done:
            done = t
    lsu.free_at[sm] = go_on + busy
    if is_store:          # the LSU is held until the slice has taken it
        lsu.free_at[sm] = max(lsu.free_at[sm], sent - l1.latency)
        # an exiting warp waits until a store of whole sectors is in the L1 (its data out of the registers),
        # and until the slice has taken one with partial sectors
        lsu.drain_at[w] = max(lsu.drain_at[w], now + l1.latency if whole else sent)
    return done


@njit
def spill_traffic(lsu, l1, l2, noc, dram, frame, mask, sm, pc, now, w, slot):
    """The spill loads and stores ptxas put at pc (the SASS model), as 4-byte local accesses of the active
    lanes to the thread's spill area after its PTX local frame (`frame` bytes): through the L1 and L2
    as any local access. Fractions per execution (an unrolled loop's share) add up per warp. Returns the
    cycle the last spill load's data is back (`now` if none)."""
    done = now
    words = lsu.spill_bytes // 4
    for kind in range(2):
        lsu.spill_debt[w, kind] += lsu.spill[pc, kind]
        while lsu.spill_debt[w, kind] >= slot:
            lsu.spill_debt[w, kind] -= slot
            off = frame + 4 * (lsu.spill_next[w] % words)
            lsu.spill_next[w] += 1
            for lane in range(32):
                lsu.spill_addr[lane] = off
            t = global_access(lsu, l1, l2, noc, dram, lsu.spill_addr, mask, 4, frame + lsu.spill_bytes, sm, pc,
                              now, kind == 1, True, w, False, 0, lsu.addrs, lsu.addrs)
            if kind == 0 and t > done:
                done = t
    return done


@njit(inline="always")
def last_begun(lsu, sm):
    """The cycle the LSU begins the global/local instruction SM `sm` queued last (memory_timing)."""
    return lsu.qring[sm, (lsu.qhead[sm] - 1) % lsu.qring.shape[1]]


@njit
def mio_behind_lg(lsu, sm, sp, now):
    """The cycle an MIO operation of sub-partition sp issued at `now` (S2R, SHFL) leaves its in-order MIO
    queue: once the global/local stores and atomics the sub-partition queued before it got into the L1's
    queue of `mio_lg_queue` (the LSU began the instruction that many places ahead of the newest of them in
    the SM's queue; `sp_queued` holds that one's position)."""
    if lsu.mio_lg_queue == 0:
        return now
    q = lsu.qring.shape[1]
    n = lsu.sp_queued[sp] - lsu.mio_lg_queue        # the SM's queue position that must have begun
    if n <= 0 or n <= lsu.qcount[sm] - q:
        return now
    return max(now, lsu.qring[sm, (n - 1) % q])


@njit
def memory_timing(lsu, smem, l1, l2, noc, dram, tr_addr, tr_info, local_bytes, sm, pc, now, w):
    """Completion cycle of the memory instruction the executor just ran, and its scoreboard kind."""
    sp = tr_info[TI_SPACE]
    is_store = tr_info[TI_STORE] != 0
    mask = tr_info[TI_MASK]
    size = tr_info[TI_SIZE]
    if sp == oc.SP_SHARED:
        kind = ATOM if tr_info[TI_ATOM] != 0 else (ST if is_store else LD)
        if kind == LD and smem.vector[pc] != 0:      # the SASS model: ptxas's vector shared loads
            if smem.vector[pc] < 0:     # merged into another line's: no request, its data comes with that one's
                return now + smem.latency, KIND_SHORT
            size = max(size, smem.vector[pc])       # the next lines' loads merged into this one
        return smem_access(smem, tr_addr, mask, size, kind, sm, pc, now, tr_info[TI_ATOM] == 2), KIND_SHORT
    if sp != oc.SP_GLOBAL and sp != oc.SP_LOCAL:
        return now + l1.latency, KIND_NONE         # param / const: the constant cache
    h = lsu.qhead[sm]       # the LSU queue: this one holds its entry until the LSU begins it
    lsu.qring[sm, h] = max(now, lsu.free_at[sm])
    lsu.qhead[sm] = (h + 1) % lsu.qring.shape[1]
    lsu.qcount[sm] += 1
    if sp == oc.SP_GLOBAL and tr_info[TI_ATOM] != 0:
        lsu.counters[ATOM_REQUESTS] += 1
        lsu.pc_requests[pc] += 1
        return global_atomic(lsu, l1, l2, noc, dram, tr_addr, mask, size, sm, pc, now, w), KIND_LONG
    bypass = tr_info[TI_PAST_L1] != 0
    # a global load's data comes through the L1's banks, counted as shared memory's
    banks = smem.banks if sp == oc.SP_GLOBAL and not is_store and not bypass else 0
    return global_access(lsu, l1, l2, noc, dram, tr_addr, mask, size, local_bytes, sm, pc, now, is_store,
                         sp == oc.SP_LOCAL, w, bypass, banks, smem.words, smem.bank_load), KIND_LONG


@njit
def warp_reset(lsu, w):
    """A new warp in slot w: no stores to drain, no copies in flight, nothing to write-combine with."""
    lsu.drain_at[w] = 0
    lsu.acked_at[w] = 0
    lsu.invalidated_at[w] = 0
    lsu.wc_n[w] = 0
    copies_reset(lsu.groups, w)
