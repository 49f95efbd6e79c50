"""Array state of the timing model, allocated from a GPUSpec (specs separate from state)."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.memory.cache import make_cache

STALLS = ["long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle",
          "math_pipe_throttle", "wait", "not_selected", "selected", "no_instruction", "branch_resolving",
          "membar", "dispatch_stall", "drain"]
(R_LONG, R_SHORT, R_BARRIER, R_MIO, R_LG, R_MATH, R_WAIT, R_NOTSEL, R_SELECTED, R_NOINST, R_BRANCH,
 R_MEMBAR, R_DISPATCH, R_DRAIN) = range(len(STALLS))
NSTALL = len(STALLS)
POLICIES = {"lrr": 0, "gto": 1, "oldest": 2}

# cfg indices (int64 scalars of the spec the core reads)
(C_NSM, C_MAXW, C_MAXC, C_POLICY, C_LAT0) = range(5)          # C_LAT0..+8: latency per class
C_II0 = C_LAT0 + len(oc.CLASSES)                               # issue interval per class
(C_SMEM_LAT, C_L1_LAT, C_L2_LAT, C_DRAM_LAT, C_ATOM_LAT, C_LSU_II, C_BAR_LAT, C_CTA_LAT,
 C_NBANKS, C_LSU_QUEUE, C_MIO_QUEUE, C_ATOM_SAME, C_DRAM_PAIR) = range(C_II0 + len(oc.CLASSES),
                                                                  C_II0 + len(oc.CLASSES) + 13)
NCFG = C_DRAM_PAIR + 1
(F_L2_BW_SLICE, F_DRAM_BW_CH, F_L2_ATOM) = range(3)

# counters
(K_LD_REQ, K_LD_SECT, K_ST_REQ, K_ST_SECT, K_SH_LD_WF, K_SH_ST_WF, K_SH_LD_CONF, K_SH_ST_CONF,
 K_L1_LOOK, K_L1_HIT, K_L2_LOOK, K_L2_HIT, K_DRAM_RD, K_DRAM_WR, K_ISSUED, K_ATOM_REQ, K_SH_LD_REQ,
 K_SH_ST_REQ, K_LOCAL_SECT) = range(19)
NK = 24

Timing = namedtuple("Timing", [
    "cfg", "cfgf",
    "ready_at", "t_last", "rreason", "wage", "wbar_wait", "wstart", "wnext",
    "reg_ready", "reg_kind",
    "sp_next", "sp_last", "pipe_free",
    "lsu_free", "mio_free",
    "sm_warps", "sm_area", "sm_tchange", "sm_active", "sm_busy_since", "sm_ctas",
    "cta_warps_left", "done_ctas", "ndone", "drain",
    "l1_tag", "l1_valid", "l1_dirty", "l1_rdy", "l1_lru",
    "l2_tag", "l2_valid", "l2_dirty", "l2_rdy", "l2_lru",
    "slice_free", "ch_free",
    "srcregs", "dstregs",
    "cnt", "stall", "pc_stall", "pc_sectors", "pc_requests",
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
    nsm = spec.n_sm
    nsp = nsm * spec.subpartitions
    cfg = np.zeros(NCFG, np.int64)
    cfg[C_NSM] = nsm
    cfg[C_MAXW] = n_warps // nsm
    cfg[C_MAXC] = n_ctas // nsm
    cfg[C_POLICY] = POLICIES[spec.warp_scheduler]
    lat = {"int": (spec.lat_int, spec.ii_int), "fp32": (spec.lat_fp32, spec.ii_fp32),
           "fp64": (spec.lat_fp64, spec.ii_fp64), "sfu": (spec.lat_sfu, spec.ii_sfu),
           "ldst": (spec.l1_latency, 1), "branch": (spec.lat_branch, 1), "barrier": (spec.lat_barrier, 1),
           "misc": (spec.lat_misc, spec.ii_misc), "atomic": (spec.atomic_latency, 1)}
    for i, name in enumerate(oc.CLASSES):
        cfg[C_LAT0 + i], cfg[C_II0 + i] = lat[name]
    cfg[C_SMEM_LAT], cfg[C_L1_LAT], cfg[C_L2_LAT] = spec.smem_latency, spec.l1_latency, spec.l2_latency
    cfg[C_DRAM_LAT], cfg[C_ATOM_LAT], cfg[C_LSU_II] = spec.dram_latency, spec.atomic_latency, spec.lsu_issue_interval
    cfg[C_BAR_LAT], cfg[C_CTA_LAT], cfg[C_NBANKS] = spec.lat_barrier, spec.cta_launch_latency, spec.smem_banks
    cfg[C_LSU_QUEUE], cfg[C_MIO_QUEUE] = 64, 32
    cfg[C_ATOM_SAME] = spec.atomic_same_address_cycles
    cfg[C_DRAM_PAIR] = 1 if spec.dram_fetch_bytes >= 64 else 0
    cfgf = np.zeros(4, np.float64)
    cfgf[F_L2_BW_SLICE] = spec.l2_bandwidth / spec.l2_slices
    cfgf[F_DRAM_BW_CH] = spec.dram_bandwidth / spec.dram_channels
    cfgf[F_L2_ATOM] = spec.l2_atomic_interval
    src, dst = reg_lists(d)
    W, C = n_warps, n_ctas
    l1 = make_cache(nsm, spec.l1_size, spec.l1_assoc)
    l2 = make_cache(1, spec.l2_size, spec.l2_assoc)
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    return Timing(
        cfg=cfg, cfgf=cfgf,
        ready_at=z(W), t_last=z(W), rreason=np.full(W, R_DISPATCH, np.int64), wage=z(W), wbar_wait=z(W),
        wstart=z(W), wnext=z(W),
        reg_ready=z(W, d.nregs), reg_kind=z(W, d.nregs),
        sp_next=np.full(nsp, 1 << 62, np.int64), sp_last=z(nsp), pipe_free=z(nsp, len(oc.CLASSES)),
        lsu_free=z(nsm), mio_free=z(nsm),
        sm_warps=z(nsm), sm_area=z(nsm), sm_tchange=z(nsm), sm_active=z(nsm), sm_busy_since=z(nsm),
        sm_ctas=z(nsm),
        cta_warps_left=z(C), done_ctas=z(C), ndone=z(1), drain=z(1),
        l1_tag=l1[0], l1_valid=l1[1], l1_dirty=l1[2], l1_rdy=l1[3], l1_lru=l1[4],
        l2_tag=l2[0], l2_valid=l2[1], l2_dirty=l2[2], l2_rdy=l2[3], l2_lru=l2[4],
        slice_free=np.zeros(spec.l2_slices, np.float64), ch_free=np.zeros(spec.dram_channels, np.float64),
        srcregs=src, dstregs=dst,
        cnt=z(NK), stall=z(NSTALL), pc_stall=z(d.n, NSTALL), pc_sectors=z(d.n), pc_requests=z(d.n),
        buf=z(512), buf2=z(512),
    )
