"""Indices into the timing model's flat arrays: stall reasons, the int64 config vector the numba core
reads (cfg), its float companion (cfgf) and the counters (cnt). Kept apart from the state so that
every unit module can import them without importing the others."""
from __future__ import annotations

from gpusim.isa import opcodes as oc

STALLS = ["long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle",
          "math_pipe_throttle", "wait", "not_selected", "selected", "no_instruction", "branch_resolving",
          "membar", "dispatch_stall", "drain"]
(R_LONG, R_SHORT, R_BARRIER, R_MIO, R_LG, R_MATH, R_WAIT, R_NOTSEL, R_SELECTED, R_NOINST, R_BRANCH,
 R_MEMBAR, R_DISPATCH, R_DRAIN) = range(len(STALLS))
NSTALL = len(STALLS)

# cfg: int64 scalars of the spec
(C_NSM, C_MAXW, C_MAXC, C_POLICY, C_LAT0) = range(5)          # C_LAT0..: latency per class
C_II0 = C_LAT0 + len(oc.CLASSES)                               # issue interval per class
(C_SMEM_LAT, C_L1_LAT, C_L2_LAT, C_DRAM_LAT, C_ATOM_LAT, C_LSU_II, C_BAR_LAT, C_CTA_LAT,
 C_NBANKS, C_LSU_QUEUE, C_MIO_QUEUE, C_ATOM_SAME, C_DRAM_PAIR, C_FETCH_LAT, C_FETCH_PREF, C_INST_SHIFT,
 C_DIV_LAT, C_MSHRS, C_NOC_FAR, C_L2_PARTS) = range(C_II0 + len(oc.CLASSES), C_II0 + len(oc.CLASSES) + 20)
NCFG = C_L2_PARTS + 1
# cfgf: float64 scalars
(F_L2_BW_SLICE, F_DRAM_BW_CH, F_L2_ATOM, F_NOC_PORT_BW) = range(4)
NCFGF = 4

# counters
(K_LD_REQ, K_LD_SECT, K_ST_REQ, K_ST_SECT, K_SH_LD_WF, K_SH_ST_WF, K_SH_LD_CONF, K_SH_ST_CONF,
 K_L1_LOOK, K_L1_HIT, K_L2_LOOK, K_L2_HIT, K_DRAM_RD, K_DRAM_WR, K_ISSUED, K_ATOM_REQ, K_SH_LD_REQ,
 K_SH_ST_REQ, K_LOCAL_SECT, K_WARPS, K_L2_FAR, K_MSHR_WAIT, K_IC_MISS, K_DIVERGED, K_SH_AT_REQ, K_SH_AT_WF,
 K_SH_AT_CONF) = range(27)
NK = 27
