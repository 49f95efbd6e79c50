"""The L1 data cache of one SM: sectored, LRU, loads allocate, stores write through and stay (`store_allocate`).
On the H100 the L1 and shared memory are one 256-KiB array: a launch's L1 holds what the driver's
shared-memory carve-out for that kernel leaves (`L1Spec.size_for`).

A load sector that hits is ready `latency` cycles after the LSU takes the request (or when a fill
already on its way arrives: misses to a pending sector merge). A miss takes a miss-status holding
register (MSHR) for the whole trip to the L2 and back; with all `mshrs` of the SM in use the next
miss waits for the oldest to return, and the LSU stalls behind it (lg_throttle).

A store to a line with a fill still on its way (a load of any warp of the SM asked for one of its sectors) waits
for the fill, and the L1 takes nothing else meanwhile (`store_waits`). Measured on an H200
(validation/probes/rmw_pattern.py, ratios to a store-only sweep): a loop that loads a word and stores to it without
waiting for the load runs 23.8x (gpusim 23.8x), its SM's lines served one after another; l2_rmw_8mb's sweep,
whose slices are not line-aligned (a warp stores to a line the next warp is loading), 2.34x against 1.65x
line-aligned (gpusim 2.69x; 1.78x waiting only for the store's own sectors, `store_waits` 1). Not fitted: on the
H200 that penalty grows with the warps of a CTA (misaligned over aligned 1.00x with 2 warps, 1.42x with 32),
here it is 1.5-1.8x at every size (with 4 warps 17.6x against the H200's 8.8x).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.jit import njit
from gpusim.memory.cache import fill, make_cache, pending, probe
from gpusim.memory.l2 import l2_access
from gpusim.memory.replacement import check_policy
from gpusim.memory.timeline import book, make_timeline
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class L1Spec:
    """The L1 data cache beside shared memory."""
    size: int = param(262144 - 233472 + 65536, "B", "data cache left beside the largest shared-memory carve-out",
                      (128, 1 << 22))
    assoc: int = param(4, "ways", "associativity", (1, 1024))
    latency: int = param(29, "cycles", "hit latency, PTX model (fitted: chase_l1, 42.8 cycles per dependent step)",
                         (0, MAX_CYCLES))
    latency_sass: int = param(32, "cycles", "the same under the SASS model (ptxas's address arithmetic and stall "
                                            "cycles; fitted: chase_l1)", (0, MAX_CYCLES))
    mshrs: int = param(1024, "sectors", "outstanding sector misses per SM (fitted: the smallest count at which "
                                                "coalesce_s08 does not throttle, as the H100 does not)", (1, 65536))
    miss_interval: float = param(1.0, "cycles", "the SM sends the L2 at most one line request (the sectors of one "
                                                "line that one load misses) per this many cycles (probe miss_capacity: "
                                                "past ~600 sectors a round grows one cycle a sector, from the L2 or "
                                                "DRAM alike); 0: no limit", (0.0, 1000.0))
    miss_line_cycles: float = param(2.0, "cycles", "one load's line requests leave this many cycles apart (probe "
                                                   "gather_latency: past 4 lines a warp load that hits the L2 takes "
                                                   "about 2 cycles a line more on the H200, plain or .cg alike)",
                                    (0.0, 1000.0))
    replacement: str = param("lru", "name", "replacement policy: lru | fifo | srrip (gpusim/memory/replacement.py)")
    store_waits: int = param(2, "mode", "a store waits for fills on their way, holding the L1: 2 to any sector "
                                        "of its line (fitted: l2_rmw_8mb/16mb), 1 to its own sectors, 0 none",
                             (0, 2))
    store_allocate: int = param(1, "mode", "1: a global store's sectors stay in the L1, as a local store's do "
                                           "(write-through with write-caching since Volta; on an H200 the global "
                                           "twin of ho_local_hist_mode's kernel hits the L1 as often as the local "
                                           "one, 85 / 80% at 1 CTA an SM, probe local_layout: glob_g132 131.7k -> "
                                           "102.7k cycles, H200 86.5k); 0: only local stores'", (0, 1))
    unified: int = param(262144, "B", "L1 and shared memory share one array of this size: a launch's L1 holds "
                                      "what the shared-memory carve-out leaves (`size` is then unused); 0: a "
                                      "fixed L1 of `size`", (0, 1 << 24))
    carveouts: str = param("8,16,32,64,100,132,164,196,228", "KiB", "the shared-memory carve-outs the driver "
                                                                 "picks from (`carveout_for`; ncu "
                                                                 "launch__shared_mem_config_size on the H100 and "
                                                                 "an H200)")
    roomy_below: int = param(32, "KiB", "for kernels without shared memory of their own (the driver's "
                                        "reservation only): a carve-out below this is taken only if it is the "
                                        "smallest and holds twice what the CTAs need (on the H100, 2 CTAs of 1024 "
                                        "threads get 8 KiB, 8 of 256 threads 32 KiB; probe l1_sweep on an H200: "
                                        "8 KiB and a 248-KiB L1 for 1024 threads)", (0, 1 << 14))
    double_up_to: int = param(132, "KiB", "for kernels with shared memory: the driver's carve-out holds twice the "
                                          "CTAs the kernel's other limits allow (at most 32; once for CTAs of "
                                          "more than 512 threads) where a carve-out of at most this does; "
                                          "otherwise this one, or the smallest that holds the CTAs once where "
                                          "this one does not (probe carveout_sweep on an H200: 79 of 80 kernels; "
                                          "21 of the 21 recorded H100 cases with shared memory)", (0, 1 << 14))
    double_from: int = param(512, "B", "shared memory of its own per CTA from which a kernel takes the rule of "
                                       "`double_up_to`; below it, that of kernels without (the sweep's smallest, "
                                       "512 B, is doubled; Triton's 128-B reduction scratch is not: tri_sum and "
                                       "tri_layernorm get 32 KiB for 16 CTAs; between them not measured)",
                             (0, 1 << 20))

    def carveout_sizes(self) -> list[int]:
        return [int(x) * 1024 for x in self.carveouts.split(",") if x.strip()]

    def size_for(self, shared_needed: int) -> tuple[int, int]:
        """(the carve-out for kernels without shared memory of their own, whose CTAs' reservations need
        `shared_needed` bytes per SM; the L1 data capacity left)."""
        if not self.unified:
            return 0, self.size
        sizes = self.carveout_sizes()
        fits = [c for c in sizes if c >= shared_needed
                and (c >= self.roomy_below * 1024 or (c == sizes[0] and c >= 2 * shared_needed))]
        carve = min(fits) if fits else max(sizes)
        return carve, self.unified - carve

    def carveout_for(self, per_cta: int, ctas: int, threads: int, own_shared: int,
                     max_ctas: int = 32) -> tuple[int, int]:
        """(the driver's carve-out, the L1 data capacity left) for CTAs of `threads` threads and `per_cta` bytes
        of shared memory (the reservation included), `ctas` of which fit on an SM by the kernel's other limits
        (warps, blocks, registers); `own_shared`: the CTA's shared memory without the reservation (bytes)."""
        if not self.unified:
            return 0, self.size
        if own_shared <= 0 or own_shared < self.double_from:
            return self.size_for(ctas * per_cta)
        sizes = self.carveout_sizes()
        want = ctas if threads > 512 else min(2 * ctas, max_ctas)
        cap = self.double_up_to * 1024
        twice = [c for c in sizes if c // per_cta >= want]
        if twice and twice[0] <= cap:
            carve = twice[0]
        else:
            once = [c for c in sizes if c // per_cta >= ctas]
            if once:            # the cap, or the smallest that holds them once where the cap does not
                carve = max([once[0]] + [c for c in sizes if c <= cap])
            else:               # none holds them all: the smallest of those that hold the most
                most = max(c // per_cta for c in sizes)
                carve = min(c for c in sizes if c // per_cta == most)
        return carve, self.unified - carve

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        if self.unified:
            try:
                sizes = self.carveout_sizes()
            except ValueError:
                sizes = []
            if not sizes or min(sizes) < 0 or max(sizes) > self.unified - 128 * self.assoc:
                raise ConfigError(f"bad value for '{prefix}carveouts': comma-separated KiB below '{prefix}unified' "
                                  f"less one set of lines, got {self.carveouts!r}")
        if self.mshrs < 1:
            raise ConfigError(f"bad value for '{prefix}mshrs': must be at least 1")
        if self.assoc < 1:
            raise ConfigError(f"bad value for '{prefix}assoc': must be at least 1 way, got {self.assoc}")
        if self.size < 128 * self.assoc:      # 128-B lines (gpusim/memory/cache.py)
            raise ConfigError(f"bad value for '{prefix}size': must hold at least one set "
                              f"({self.assoc} ways of 128-B lines = {128 * self.assoc} B), got {self.size}")
        check_policy(self.replacement, prefix + "replacement")


L1 = namedtuple("L1", "cache latency mshr_free mshr_next counters store_waits store_allocate miss_interval "
                       "misses miss_line req")
# req: scratch for the load being sent: its line requests so far, the line of the last, the cycle that one left
LOOKUPS, HITS, MSHR_WAIT = range(3)      # counters


def make_state(spec: L1Spec, n_sm: int, sass: bool = False) -> L1:
    return L1(make_cache(n_sm, spec.size, spec.assoc, spec.replacement),
              np.int64(spec.latency_sass if sass else spec.latency),
              np.zeros((n_sm, spec.mshrs), np.int64), np.zeros(n_sm, np.int64), np.zeros(3, np.int64),
              np.int64(spec.store_waits), np.int64(spec.store_allocate), np.float64(spec.miss_interval),
              make_timeline(n_sm if spec.miss_interval > 0 else 1), np.float64(spec.miss_line_cycles),
              np.zeros(3, np.int64))


def counters(l1: L1) -> dict:
    c = l1.counters
    return {"l1tex__t_sector_hit_rate.pct": 100.0 * c[HITS] / c[LOOKUPS] if c[LOOKUPS] else 0.0,
            "gpusim__l1_mshr_wait_cycles.sum": int(c[MSHR_WAIT])}


@njit
def l1_store(l1, sm, sector, start, local):
    """A store sector the LSU took at `start`: the cycle it goes on to the L2, once any fill of its line is in.
    It stays in the L1 (a global store's only with `store_allocate`), so the thread's later loads of it hit; the
    write still goes on to the L2 (write-through)."""
    t = start
    if l1.store_waits > 0:
        t = max(start, pending(l1.cache, sm, sector, start, l1.store_waits == 2))
    if local or l1.store_allocate:
        fill(l1.cache, sm, sector, t, t, False)
    return t


@njit(inline="always")
def begin_request(l1):
    """A new load is about to send its misses."""
    l1.req[0] = 0
    l1.req[1] = -1


@njit(inline="always")
def send_miss(l1, sm, sector, t):
    """The cycle a sector of the current load, ready to leave for the L2 at t, leaves SM `sm`: a line's sectors go
    together, a load's lines `miss_line` cycles apart, the SM's at most one per `miss_interval`."""
    if l1.miss_interval <= 0.0 and l1.miss_line <= 0.0:
        return t
    line = sector >> 2
    if line == l1.req[1]:
        return max(t, l1.req[2])
    l1.req[1] = line
    t = t + np.int64(l1.req[0] * l1.miss_line)
    l1.req[0] += 1
    if l1.miss_interval > 0.0:
        t = np.int64(book(l1.misses, sm, np.float64(t), l1.miss_interval))
    l1.req[2] = t
    return t


@njit
def l1_load(l1, l2, noc, dram, sm, sector, start):
    """A load sector the LSU took at `start`: (cycle its data is ready, cycle the LSU may go on)."""
    l1.counters[LOOKUPS] += 1
    t = start + l1.latency
    r = probe(l1.cache, sm, sector, start)
    if r >= 0:
        l1.counters[HITS] += 1
        return max(r, t), start
    slot = l1.mshr_next[sm] % l1.mshr_free.shape[1]
    l1.mshr_next[sm] += 1
    free = l1.mshr_free[sm, slot]
    if free > start:               # every MSHR busy: wait for the oldest
        l1.counters[MSHR_WAIT] += free - start
        t += free - start
    done = l2_access(l2, noc, dram, sm, sector, send_miss(l1, sm, sector, t), False)
    l1.mshr_free[sm, slot] = done
    fill(l1.cache, sm, sector, done, start, False)
    return done, max(start, free)
