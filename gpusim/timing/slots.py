"""The SASS model's share of an issue (timing/core.py `issue`): the SASS issue slots of the instruction, and the
SASS a warp issues with no lane on: a block ptxas predicated that the warp's PTX branch jumped over, and a shared
access whose PTX guard is false on every lane. The PTX model has one slot per instruction and no such SASS."""
from __future__ import annotations

from gpusim.jit import njit
from gpusim.memory.shared_banks import idle_accesses
from gpusim.sm.lsu import KIND_SHORT
from gpusim.sm.pipelines import SLOT, take_slots
from gpusim.sm.scheduler import note_mio
from gpusim.sm.stalls import SELECTED, SHORT_SCOREBOARD


@njit(no_cpython_wrapper=True, inline="always")
def skipped_block(U, w, pc, sm, now):
    """Warp w's branch at pc (issued at `now`) jumped over a block ptxas predicated: the block's SASS issue slots,
    which the warp issues anyway; its shared accesses take the pipe with no lane on and the warp waits for their
    loads (sasslisting.predicated_blocks / predicated_shared)."""
    s = U.sched
    back = idle_accesses(U.smem, sm, U.smem.idle[pc, 0], U.smem.idle[pc, 1], now + 1)
    if back > s.ready_at[w]:
        s.ready_at[w] = back
        s.reason[w] = SHORT_SCOREBOARD
    return U.pipes.predicated[pc]


@njit(no_cpython_wrapper=True, inline="always")
def guard_off_shared(U, sp, sm, is_load, now):
    """A shared load or store whose PTX guard is false on every lane, issued at `now` (SASS model: `@P LDS` with
    no lane on): a wavefront of the pipe and an MIO entry; a load's register waits for it to come back.
    Returns (latency, scoreboard kind)."""
    note_mio(U.sched, sp, now)
    if is_load:
        return idle_accesses(U.smem, sm, 1, 1, now) - now, KIND_SHORT
    idle_accesses(U.smem, sm, 1, 0, now)
    return 1, 0


@njit(no_cpython_wrapper=True, inline="always")
def charge_slots(U, sp, w, pc, more, now):
    """The instruction's SASS issue slots (and `more` of a skipped predicated block) on sub-partition sp: its own
    SASS instructions issue one after another, sampled as selected. Returns take_slots's extra cycles."""
    s = U.sched
    extra = take_slots(U.pipes, sp, pc, more)
    if extra > 0:
        if s.next_event[sp] < now + 1 + extra:
            s.next_event[sp] = now + 1 + extra
        k = (U.pipes.slots[pc] + more + SLOT - 1) // SLOT
        if s.ready_at[w] < now + k:
            s.ready_at[w] = now + k
        if k > 1:       # the warp issues in those cycles: ncu samples it as selected, not stalled
            s.accounted_until[w] = now + k
            s.stall[SELECTED] += k - 1
            s.pc_stall[pc, SELECTED] += k - 1
    elif extra < 0 and s.next_event[sp] == now + 1:
        s.next_event[sp] = now
    return extra
