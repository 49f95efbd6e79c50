"""Array state of the timing model, allocated from a GPUSpec (specs separate from state)."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.timing.state_index import (
    C_BAR_LAT,
    C_CTA_LAT,
    C_DIV_LAT,
    C_II0,
    C_LAT0,
    C_MAXC,
    C_MAXW,
    C_NSM,
    C_POLICY,
    NCFG,
    NCFGF,
    NK,
    NSTALL,
    R_DISPATCH,
)

Timing = namedtuple("Timing", [
    "cfg", "cfgf",
    "ready_at", "t_last", "rreason", "wage", "wbar_wait", "wstart", "wnext",
    "reg_ready", "reg_kind",
    "sp_next", "sp_last", "pipe_free",
    "lsu_free", "mio_free", "wdrain",
    "sm_warps", "sm_area", "sm_tchange", "sm_active", "sm_busy_since", "sm_ctas",
    "cta_warps_left", "done_ctas", "ndone", "drain",
    "l1_tag", "l1_valid", "l1_dirty", "l1_rdy", "l1_lru",
    "l2_tag", "l2_valid", "l2_dirty", "l2_rdy", "l2_lru",
    "mshr_free", "mshr_next", "port_free",
    "slice_free", "ch_free",
    "ic_tag", "ic_valid", "ic_dirty", "ic_rdy", "ic_lru", "wline", "wfetched", "ic_head",
    "srcregs", "dstregs",
    "cnt", "stall", "pc_stall", "pc_sectors", "pc_requests", "pc_wavefronts", "pc_conflicts",
    "buf", "buf2",
])


def reg_lists(d):
    """Per pc: registers read (guard, sources, address bases) and written."""
    src = np.full((d.n, 10), -1, np.int64)
    dst = np.full((d.n, 4), -1, np.int64)
    for pc in range(d.n):
        k = 0
        g = d.ins[pc, oc.F_GUARD]
        if g >= 0:
            src[pc, k] = g
            k += 1
        for s in range(oc.S0, oc.NSLOT):
            kind = d.opk[pc, s]
            if kind in (oc.OK_REG, oc.OK_REGNEG) or (kind == oc.OK_ADDR and d.opv[pc, s] >= 0):
                src[pc, k] = d.opv[pc, s]
                k += 1
        for s in range(oc.D0, oc.S0):
            if d.opk[pc, s] == oc.OK_REG:
                dst[pc, s] = d.opv[pc, s]
    return src, dst


def make_timing(spec, d, n_warps: int, n_ctas: int) -> Timing:
    """The timing state of one launch: each unit's arrays, allocated from its spec."""
    from gpusim.memory import dram, interconnect, l1, l2
    from gpusim.sm import fetch, lsu
    from gpusim.sm.scheduler import POLICIES
    nsm = spec.n_sm
    nsp = nsm * spec.scheduler.subpartitions
    cfg = np.zeros(NCFG, np.int64)
    cfgf = np.zeros(NCFGF, np.float64)
    cfg[C_NSM] = nsm
    cfg[C_MAXW] = n_warps // nsm
    cfg[C_MAXC] = n_ctas // nsm
    cfg[C_POLICY] = POLICIES[spec.scheduler.policy]
    timing = spec.pipes.class_timing(spec.l1.latency, spec.l2.atomic_latency)
    cfg[C_LAT0:C_LAT0 + len(oc.CLASSES)] = timing[:, 0]
    cfg[C_II0:C_II0 + len(oc.CLASSES)] = timing[:, 1]
    cfg[C_BAR_LAT], cfg[C_DIV_LAT] = spec.pipes.lat_barrier, spec.pipes.divergence_cycles
    cfg[C_CTA_LAT] = spec.gigathread.cta_launch_latency
    for ints, floats in ((lsu.config(spec.lsu, spec.smem), {}), (l1.config(spec.l1), {}), l2.config(spec.l2),
                         interconnect.config(spec.noc), dram.config(spec.dram), (fetch.config(spec.fetch), {})):
        for k, v in ints.items():
            cfg[k] = v
        for k, v in floats.items():
            cfgf[k] = v
    src, dst = reg_lists(d)
    W, C = n_warps, n_ctas
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    units = {}
    units.update(lsu.make_state(nsm, W))
    units.update(l1.make_state(spec.l1, nsm))
    units.update(interconnect.make_state(spec.noc, nsm))
    units.update(l2.make_state(spec.l2))
    units.update(dram.make_state(spec.dram))
    units.update(fetch.make_state(spec.fetch, nsm, W))
    return Timing(
        cfg=cfg, cfgf=cfgf,
        ready_at=z(W), t_last=z(W), rreason=np.full(W, R_DISPATCH, np.int64), wage=z(W), wbar_wait=z(W),
        wstart=z(W), wnext=z(W),
        reg_ready=z(W, d.nregs), reg_kind=z(W, d.nregs),
        sp_next=np.full(nsp, 1 << 62, np.int64), sp_last=z(nsp), pipe_free=z(nsp, len(oc.CLASSES)),
        sm_warps=z(nsm), sm_area=z(nsm), sm_tchange=z(nsm), sm_active=z(nsm), sm_busy_since=z(nsm),
        sm_ctas=z(nsm),
        cta_warps_left=z(C), done_ctas=z(C), ndone=z(1), drain=z(1),
        srcregs=src, dstregs=dst,
        cnt=z(NK), stall=z(NSTALL), pc_stall=z(d.n, NSTALL), pc_sectors=z(d.n), pc_requests=z(d.n),
        pc_wavefronts=z(d.n), pc_conflicts=z(d.n),
        buf=z(512), buf2=z(512),
        **units,
    )
