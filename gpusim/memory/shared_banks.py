"""Shared memory banks: 32 banks of 4 bytes. A warp access needs as many wavefronts as the largest
number of distinct 4-byte words any one bank must deliver (lanes reading the same word share it).
The MIO pipe of an SM moves one wavefront per cycle; the data of an access is ready `latency`
cycles after its first wavefront plus one cycle per further wavefront. Warps issue shared accesses into
the SM's MIO instruction queue (`mio_queue` entries); an access leaves it when its first wavefront
begins, and a warp whose access finds it full stalls on mio_throttle. Atomics on shared memory
(ATOMS) also serialise the lanes that hit one word. Requests, wavefronts and bank conflicts are
counted per kind (ld, st, atom) as ncu counts them, and per PTX line."""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.jit import njit
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class SharedMemSpec:
    """Shared memory of one SM (its size is an SM resource: sm.smem)."""
    latency: int = param(12, "cycles", "load latency without conflicts, PTX model (fitted: chase_shared; the PTX "
                                       "address arithmetic of a chase step adds the rest)", (0, MAX_CYCLES))
    latency_sass: int = param(24, "cycles", "the same under the SASS model, whose address arithmetic is ptxas's "
                                            "and waits ptxas's stall cycles (fitted: chase_shared)", (0, MAX_CYCLES))
    banks: int = param(32, "count", "4-byte banks; a wavefront serves one word per bank", (1, 64))
    mio_queue: int = param(64, "instructions", "the MIO instruction queue of an SM: shared accesses issued and not "
                                               "yet begun on the pipe; a warp stalls on mio_throttle while it is "
                                               "full, and an access waits in it (short_scoreboard for its consumer) "
                                               "otherwise. Fitted: bank_s16/s32 (16 and 32 wavefronts an access: no "
                                               "mio_throttle, short_scoreboard 41.1/85.7 cycles per instruction, "
                                               "H100 41.0/85.3), smem_ld32 +10.1% -> +7.3%, smem_ld128 +10.6% -> "
                                               "+9.5%; a bound in cycles of queued wavefronts cannot fit both",
                                 (1, 4096))
    ldsm_latency: int = param(15, "cycles", "ldmatrix's extra latency over a load (its rows are distributed into "
                                            "fragments; fitted: a dependent LDSM.x4 + IADD step takes 34.1 cycles)",
                              (0, MAX_CYCLES))

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.mio_queue < 1:
            raise ConfigError(f"bad value for '{prefix}mio_queue': must be at least 1 instruction")
        if self.banks < 1:
            raise ConfigError(f"bad value for '{prefix}banks': must be at least 1")


@njit
def wavefronts(addrs, mask, size, nbanks, words, banks):
    """Wavefronts for one shared-memory warp access; `words`/`banks` are scratch arrays (>= 128). A 128-bit
    access is served a half-warp at a time (sgemm_tiled's LDS.128 of two rows' words takes 2 on the H100,
    which make 24 wavefronts per 16 k-steps of its 16 LDS and 4 LDS.128)."""
    if size >= 16:
        n = 0
        for half in (mask & 0xFFFF, mask & ~0xFFFF & 0xFFFFFFFF):
            if half != 0:
                n += _wavefronts(addrs, half, size, nbanks, words, banks)
        return max(n, 1)
    return _wavefronts(addrs, mask, size, nbanks, words, banks)


@njit
def _wavefronts(addrs, mask, size, nbanks, words, banks):
    n = 0
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        for k in range((size + 3) // 4):
            wd = (addrs[l] >> 2) + k
            dup = False
            for j in range(n):
                if words[j] == wd:
                    dup = True
                    break
            if not dup:
                words[n] = wd
                n += 1
    for b in range(nbanks):
        banks[b] = 0
    worst = 0
    for j in range(n):
        b = words[j] % nbanks
        banks[b] += 1
        if banks[b] > worst:
            worst = banks[b]
    return max(worst, 1)


SharedMem = namedtuple("SharedMem", "latency banks mio_free counters pc_wavefronts pc_conflicts words "
                                     "bank_load ldsm_latency vector ring head idle sass")
# vector: per pc, the bytes per lane of the vector load ptxas made of it (the SASS model; 0 none; -1 a load
# ptxas merged into another line's vector load); ring: per SM, the cycles the last `mio_queue` shared
# accesses began on the pipe (head: where the next goes, the oldest of them); idle: per pc (the SASS model), at
# a branch over a block ptxas predicated, that block's shared accesses and dependent load steps (sassmap.
# predicated_shared_pcs), which a warp jumping over the block issues with no lane on (`idle_accesses`); sass: 1
# under the SASS model, where an access whose PTX guard is false on every lane still issues (`idle_accesses`)
LD, ST, ATOM, MISC = range(4)                   # access kinds (misc: an access with no lane on, ncu's op_misc)
REQUESTS, WAVEFRONTS, CONFLICTS = range(3)      # counters[kind, ...]
_KIND = ("ld", "st", "atom", "misc")


def make_state(spec: SharedMemSpec, n_sm: int, n_pcs: int, vector=None, sass: bool = False,
               idle=None) -> SharedMem:
    latency = spec.latency_sass if sass else spec.latency
    return SharedMem(np.int64(latency), np.int64(spec.banks),
                     np.zeros(n_sm, np.int64), np.zeros((4, 3), np.int64), np.zeros(n_pcs, np.int64),
                     np.zeros(n_pcs, np.int64), np.zeros(256, np.int64), np.zeros(spec.banks, np.int64),
                     np.int64(spec.ldsm_latency),
                     np.zeros(n_pcs, np.int64) if vector is None else np.ascontiguousarray(vector, np.int64),
                     np.zeros((n_sm, spec.mio_queue), np.int64), np.zeros(n_sm, np.int64),
                     np.zeros((n_pcs, 2), np.int64) if idle is None else np.ascontiguousarray(idle, np.int64),
                     np.int64(sass))


def counters(sm: SharedMem) -> dict:
    m = {}
    for k, name in enumerate(_KIND):
        m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{name}.sum"] = int(sm.counters[k, WAVEFRONTS])
        m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{name}.sum"] = int(sm.counters[k, CONFLICTS])
        m[f"gpusim__shared_requests_op_{name}.sum"] = int(sm.counters[k, REQUESTS])
    return m


@njit
def same_address_ways(addrs, mask):
    """The largest number of active lanes that share one address."""
    worst = 1
    for a in range(32):
        if not (mask >> a) & 1:
            continue
        c = 0
        for b in range(32):
            if (mask >> b) & 1 and addrs[b] == addrs[a]:
                c += 1
        worst = max(worst, c)
    return worst


@njit
def smem_access(sh, addrs, mask, size, kind, sm, pc, now, combined=False):
    """A warp's shared-memory access of `kind` issued at `now` on SM `sm`: the cycle its data is ready.
    combined: an atomic whose lanes on one word are combined into one update (ATOMS.POPC.INC)."""
    wf = wavefronts(addrs, mask, size, sh.banks, sh.words, sh.bank_load)
    if kind == ATOM and not combined:
        wf = max(wf, same_address_ways(addrs, mask))    # lanes on one word serialise
    active = 0
    for l in range(32):
        active += (mask >> l) & 1
    conflicts = max(0, wf - max(1, (active * size + 127) // 128))
    sh.pc_wavefronts[pc] += wf
    sh.pc_conflicts[pc] += conflicts
    sh.counters[kind, REQUESTS] += 1
    sh.counters[kind, WAVEFRONTS] += wf
    sh.counters[kind, CONFLICTS] += conflicts
    start = max(now, sh.mio_free[sm])
    sh.mio_free[sm] = start + wf
    sh.ring[sm, sh.head[sm]] = start        # the access holds its queue entry until its first wavefront
    sh.head[sm] = (sh.head[sm] + 1) % sh.ring.shape[1]
    return start + sh.latency + wf - 1


@njit
def idle_accesses(sh, sm, n, steps, at):
    """`n` shared accesses a warp issues with no lane on (SASS predicated off), the first at cycle `at`: each takes
    one wavefront of the pipe, filed as op_misc, and what follows waits for `steps` dependent loads to come back
    through it (probe predicated_shared: the H200 runs 4,096 trips of a load-add-store 9% faster with every lane
    off than with every lane on). Returns the cycle that wait ends (`at` where n is 0)."""
    if n <= 0:
        return at
    sh.counters[MISC, REQUESTS] += n
    sh.counters[MISC, WAVEFRONTS] += n
    start = max(at, sh.mio_free[sm])
    sh.mio_free[sm] = start + n
    for _ in range(n):
        sh.ring[sm, sh.head[sm]] = start
        sh.head[sm] = (sh.head[sm] + 1) % sh.ring.shape[1]
    return start + steps * sh.latency + n - 1
