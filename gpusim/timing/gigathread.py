"""The GigaThread engine: places CTAs on SMs as resources free up (simpy process).

Placement policy: CTAs are issued in linear order (x fastest); each goes to the SM with the fewest
resident CTAs that has room (lowest SM id on ties), so a partial wave spreads across SMs
breadth-first, as the hardware does. A CTA may start once its SM has a free CTA slot within the
occupancy limit; its warps begin issuing after the CTA launch latency. The engine hands out at most
one CTA per `cta_interval` cycles (fitted on the dispatch_* microbenchmarks: grids of short CTAs are
bound by it); a CTA whose turn comes later takes its slot at once and starts its warps when its turn
comes.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.sm.state import CL_RANK, CL_SIZE, W_BARRIER, W_DONE, W_FREE
from gpusim.spec import MAX_CYCLES, param
from gpusim.timing.core import A_CTA_DONE, A_FAULT, A_IDLE, ISSUED, advance
from gpusim.timing.ctalaunch import dispatch


@dataclass(frozen=True)
class GigaThreadSpec:
    """Kernel launch and CTA dispatch."""
    launch_overhead: int = param(3586, "cycles", "from the launch to the first CTA dispatch (fitted: launch_empty, "
                                                 "the median of its five H100 runs)",
                                 (0, MAX_CYCLES))
    cta_launch_latency: int = param(180, "cycles", "from a CTA's dispatch to its warps' first issue", (0, MAX_CYCLES))
    gpcs: int = param(8, "count", "graphics processing clusters: the SMs are split into this many groups of "
                      "consecutive SMs, and a thread-block cluster's CTAs run on the SMs of one", (1, 1024))
    cta_interval: float = param(1.2, "cycles", "the engine hands out one CTA per this many cycles, GPU-wide (0: any "
                                "number at once; fitted: dispatch_c32, 65,536 one-warp CTAs, and dispatch_c256 within "
                                "0.3%)", (0.0, 1e6))
    max_cluster: int = param(8, "CTAs", "CTAs per thread-block cluster at most (8: sm_90's portable size; 1: no "
                             "clusters, before sm_90)", (1, 16))


class GigaThread:
    def __init__(self, P, M, U, counters, n_sm: int, total_ctas: int, nthreads: int, ctas_per_sm: int,
                 progress=None, cluster=(1, 1, 1), gpcs: int = 1, cta_interval: float = 0.0):
        self.P, self.M, self.U, self.counters = P, M, U, counters
        self.total, self.nthreads, self.limit = total_ctas, nthreads, ctas_per_sm
        self.next_cta = 0
        self.interval, self.turn = cta_interval, 0.0     # the engine's next free dispatch time
        self.resident = [0] * n_sm
        self.heap = [(0, s) for s in range(n_sm)]     # (resident CTAs, sm)
        self.fault = False
        self.end = 0
        self.retired = 0
        self.progress = progress
        self.cluster = cluster
        self.ncl = cluster[0] * cluster[1] * cluster[2]
        bounds = [round(g * n_sm / gpcs) for g in range(gpcs + 1)]
        self.gpc_sms = [range(bounds[g], bounds[g + 1]) for g in range(gpcs)]

    def _fill(self, now: int):
        if self.ncl > 1:
            self._fill_clusters(now)
            return
        while self.next_cta < self.total and self.heap:
            n, sm = self.heap[0]
            if n != self.resident[sm]:
                heapq.heappop(self.heap)     # stale entry
                heapq.heappush(self.heap, (self.resident[sm], sm))
                continue
            if n >= self.limit:
                break
            if dispatch(self.P, self.M, self.U, self.next_cta, sm, now, self.next_cta, self.nthreads,
                        self._turn(now)) < 0:
                break
            self.resident[sm] += 1
            heapq.heapreplace(self.heap, (self.resident[sm], sm))
            self.next_cta += 1

    def _fill_clusters(self, now: int):
        """Whole clusters, in linear cluster order, each on the SMs of the GPC with the most free CTA
        slots (each CTA to the least-loaded SM of that GPC, so a cluster spreads over distinct SMs
        where it can); a cluster waits until one GPC can take all its CTAs."""
        M, g = self.M, self.M.geom
        clx, cly, clz = self.cluster
        qxn, qyn = int(g[3]) // clx, int(g[4]) // cly
        while self.next_cta < self.total:
            free = [sum(self.limit - self.resident[s] for s in sms) for sms in self.gpc_sms]
            best = max(range(len(free)), key=lambda k: (free[k], -k))
            if free[best] < self.ncl:
                return
            q = self.next_cta // self.ncl
            qx, qy, qz = q % qxn, (q // qxn) % qyn, q // (qxn * qyn)
            slots = []
            for r in range(self.ncl):
                sm = min((s for s in self.gpc_sms[best] if self.resident[s] < self.limit),
                         key=lambda s: (self.resident[s], s))
                cx, cy, cz = qx * clx + r % clx, qy * cly + (r // clx) % cly, qz * clz + r // (clx * cly)
                cta = cx + int(g[3]) * (cy + int(g[4]) * cz)
                c = dispatch(self.P, M, self.U, cta, sm, now, self.next_cta, self.nthreads, self._turn(now))
                if c < 0:
                    raise RuntimeError("GigaThread: an SM with room refused a CTA of a cluster")
                self.resident[sm] += 1
                heapq.heappush(self.heap, (self.resident[sm], sm))
                slots.append(c)
                self.next_cta += 1
            for r, c in enumerate(slots):
                M.clslot[c, :self.ncl] = slots
                M.clslot[c, CL_SIZE] = self.ncl
                M.clslot[c, CL_RANK] = r

    def _turn(self, now: int) -> int:
        """Cycles after `now` the engine gets to the next CTA (it then moves on by one interval)."""
        t = max(float(now), self.turn)
        self.turn = t + self.interval
        return int(t) - now

    def _retire(self, now: int = 0):
        res = self.U.residency
        for k in range(int(res.n_done[0])):
            sm = int(res.done_ctas[k]) // self.limit
            self.resident[sm] -= 1
            heapq.heappush(self.heap, (self.resident[sm], sm))
        self.retired += int(res.n_done[0])
        res.n_done[0] = 0
        if self.progress is not None and (self.retired % 64 == 0 or self.retired == self.total):
            self.progress(self.retired, self.total, cycles=now, warp_inst=int(self.counters[ISSUED]))

    def _deadlock(self):
        """No warp can ever issue again while CTAs are resident: some wait at a barrier that the
        others cannot reach (they exited, or wait at another). Record it as the executor does."""
        M = self.M
        self.fault = True
        stuck = np.flatnonzero(M.wstat == W_BARRIER)
        if stuck.size == 0:
            stuck = np.flatnonzero((M.wstat != W_DONE) & (M.wstat != W_FREE))
        w = int(stuck[0])
        c, b = int(M.wcta[w]), int(M.wbar[w])
        M.err[oc.EW_CODE] = oc.E_DEADLOCK
        M.err[oc.EW_WARP] = w
        M.err[oc.EW_PC] = M.spc[w, max(int(M.sp[w]) - 1, 0)]
        M.err[oc.EW_ADDR] = M.bar_arrived[c, b]
        M.err[oc.EW_SIZE] = M.cta_live[c]

    def process(self, env):
        """simpy process: dispatch, let the SM core run until CTAs finish, retire them, repeat."""
        self._fill(int(env.now))
        while True:
            now, why = advance(self.P, self.M, self.U, self.counters, int(env.now))
            if now > env.now:
                yield env.timeout(now - env.now)
            if why == A_FAULT:
                self.fault = True
                return
            if why == A_CTA_DONE:
                self._retire(int(env.now))
                self._fill(int(env.now))
                continue
            if why == A_IDLE and any(self.resident):
                self._deadlock()
                return
            if self.next_cta >= self.total:
                self.end = int(env.now)
                return
            self._fill(int(env.now))     # idle, nothing resident, CTAs remain: dispatch them
