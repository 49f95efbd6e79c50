"""Array state of the executor: the program (read-only) and the machine (warp/CTA slots, memories).

Everything the numba executor touches is a numpy array in one of two named tuples, so a single
compiled step function serves functional and timing mode alike. A warp slot holds one warp of one
resident CTA; a CTA slot holds one resident CTA's shared memory and barrier state.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.errors import LaunchError
from gpusim.isa import opcodes as oc
from gpusim.isa.spaces import MAX_CLUSTER
from gpusim.isa.types import kind_table

STACK_DEPTH = 64     # SIMT reconvergence stack entries per warp
CALL_DEPTH = 128     # nested .func calls per warp
# bytes of call stack per thread when a kernel recurses. CUDA's default cudaLimitStackSize is 1024, but
# gpusim's frames hold PTX virtual registers (8 bytes each, every one live across the call), typically
# 2-4x what ptxas's frames take, so the default is 4x CUDA's: recursion that fits on the GPU fits here.
STACK_SIZE = 4096
LOCAL_LIMIT = 4 << 30   # bytes of simulated local memory (frames and call stacks of all resident threads)
NBAR = 16            # named barriers per CTA; barrier arrays have one more column, NBAR: the cluster barrier
CL_SIZE, CL_RANK = MAX_CLUSTER, MAX_CLUSTER + 1     # clslot columns after the slots of ranks 0..15

# warp status
W_FREE, W_READY, W_BARRIER, W_DONE = 0, 1, 2, 3

Prog = namedtuple("Prog", "ins opk opv opo calls saves tsize tkind vlist")

Mach = namedtuple("Mach", [
    "R",                                  # int64[W, nregs, 32] register bits
    "spc", "srpc", "smask", "sdepth", "sp",   # SIMT stack per warp (sdepth: call depth of the entry)
    "exited", "valid", "wstat", "wcta", "wlocal", "wbar",
    "wdefer",                             # int64[W]: 1 + the barrier a warp has arrived at and goes on past (0: none)
    "defer",                              # int64[n]: 1 where a warp may issue the pc while its barrier is pending
    "cs_ret", "csp", "csb", "cs_tmp",     # call stack: return points, depth, stack bytes in use, return values
    "cta_id", "cta_live", "cta_nwarps", "cta_sm", "bar_arrived", "bar_expect", "bar_red",
    "clslot",                             # int64[C, 18]: CTA slot of each rank of the slot's cluster, size, own rank
    "wcl",                                # int64[W]: cluster-barrier phase the warp's last arrive waits for
    "smem", "lmem", "gmem", "alo", "ahi", "cmem", "pmem",
    "geom",                               # int64[16]: ntid xyz, nctaid xyz, nsm, dyn smem, total smem
    "clock",                              # int64[2]: [0] current cycle / instruction clock, [1] instr budget
    "cnt", "op_count", "pc_warp", "pc_thread",
    "err",
    "tr_addr", "tr_info",                 # last memory instruction's lane addresses and info (timing)
    "si", "sf",                           # scratch: int64[4, 32] and float64[4, 32] operand vectors
    "sregs",                              # int64[NSLOT, 32]: special registers read by the current instruction
    "mx",                                 # float64[4, 8192]: mma's A, B, C and D matrices (sm/mma.py, first 512);
                                          # wgmma's decoded A rows and B columns (sm/wgmma.py, rows 0 and 1)
    "san",                                # sanitizer state (sm/sanitize.py San; tiny unless a check is on)
])

# What the ALU and warp-wide instructions see of a warp, and what memory instructions see: small
# views of Mach, so each compiled function takes a few arrays instead of all of them.
Lanes = namedtuple("Lanes", "R si sf sregs")
MemLanes = namedtuple("MemLanes", "R si sf sregs tr_addr tr_info gmem alo ahi smem lmem cmem pmem wcta err clslot")

G_NTX, G_NTY, G_NTZ, G_NCX, G_NCY, G_NCZ, G_NSM, G_DYNSMEM, G_TOTSMEM, G_TRACE, G_STACK = range(11)
G_CLX, G_CLY, G_CLZ, G_EXPLICIT = range(11, 15)     # cluster dims (1, 1, 1: clusters of one), launched with them
# TI_PAST_L1: 1 for an access cached in the L2 only (cp.async.cg, ld.global.cg / .cv)
TI_SPACE, TI_SIZE, TI_MASK, TI_STORE, TI_NVEC, TI_ATOM, TI_PAST_L1 = range(7)


def make_prog(k) -> Prog:
    tsize, tkind = kind_table()
    return Prog(k.ins, k.opk, k.opv, k.opo, k.calls, k.saves, tsize, tkind, k.vlist)


def make_mach(k, n_warp_slots: int, n_cta_slots: int, gmem: np.ndarray, alo: np.ndarray, ahi: np.ndarray,
              pmem: np.ndarray, block: tuple, grid: tuple, nsm: int, dyn_smem: int, budget: int,
              stack_size: int | None = None, checks: int = 0, cluster: tuple = (1, 1, 1),
              explicit_cluster: bool = False) -> Mach:
    """stack_size: call-stack bytes per thread after the static local frames (default: STACK_SIZE
    when the kernel recurses, else none); checks: sanitizer flags (sm/sanitize.py F_RACE | F_SYNC),
    0 for none."""
    from gpusim.sm.sanitize import make_san  # sanitize imports the executor's units, which import this
    W, C = n_warp_slots, n_cta_slots
    if stack_size is None:
        stack_size = STACK_SIZE if k.recursive else 0
    stack_base = (k.local_size + 15) // 16 * 16
    smem_bytes = max(_round16(k.shared_static) + dyn_smem, 16)
    geom = np.zeros(16, np.int64)
    geom[G_NTX:G_NTZ + 1] = block
    geom[G_NCX:G_NCZ + 1] = grid
    geom[G_NSM] = nsm
    geom[G_DYNSMEM] = dyn_smem
    geom[G_TOTSMEM] = smem_bytes
    geom[G_STACK] = stack_base
    geom[G_CLX:G_CLZ + 1] = cluster
    geom[G_EXPLICIT] = int(explicit_cluster)
    clslot = np.zeros((C, MAX_CLUSTER + 2), np.int64)
    clslot[:, :MAX_CLUSTER] = np.arange(C)[:, None]     # clusters of one until a launch groups slots
    clslot[:, CL_SIZE] = 1
    clock = np.zeros(2, np.int64)
    clock[1] = budget
    local_bytes = W * 32 * max(stack_base + stack_size, 8)
    if local_bytes > LOCAL_LIMIT:
        raise LaunchError(f"{W} resident warps x 32 threads x {stack_base + stack_size} bytes of local memory "
                          f"(frames {stack_base} + call stack {stack_size}) is {local_bytes >> 20} MiB, more than "
                          f"the {LOCAL_LIMIT >> 30} GiB gpusim allocates for local memory")
    return Mach(
        R=np.zeros((W, k.nregs, 32), np.int64),
        spc=np.zeros((W, STACK_DEPTH), np.int64), srpc=np.zeros((W, STACK_DEPTH), np.int64),
        smask=np.zeros((W, STACK_DEPTH), np.int64), sdepth=np.zeros((W, STACK_DEPTH), np.int64),
        sp=np.zeros(W, np.int64),
        exited=np.zeros(W, np.int64), valid=np.zeros(W, np.int64), wstat=np.zeros(W, np.int64),
        wcta=np.zeros(W, np.int64), wlocal=np.zeros(W, np.int64), wbar=np.zeros(W, np.int64),
        wdefer=np.zeros(W, np.int64), defer=np.zeros(k.n, np.int64),
        cs_ret=np.zeros((W, CALL_DEPTH), np.int64), csp=np.zeros(W, np.int64), csb=np.zeros(W, np.int64),
        cs_tmp=np.zeros((16, 32), np.int64),
        cta_id=np.zeros((C, 3), np.int64), cta_live=np.zeros(C, np.int64), cta_nwarps=np.zeros(C, np.int64),
        cta_sm=np.zeros(C, np.int64),
        bar_arrived=np.zeros((C, NBAR + 1), np.int64), bar_expect=np.zeros((C, NBAR + 1), np.int64),
        bar_red=np.zeros((C, NBAR + 1), np.int64), clslot=clslot, wcl=np.zeros(W, np.int64),
        smem=np.zeros((C, smem_bytes), np.uint8),
        lmem=np.zeros((W, 32, max(stack_base + stack_size, 8)), np.uint8),
        gmem=gmem, alo=alo, ahi=ahi,
        cmem=np.frombuffer(k.const_bytes + b"\0" * 8, np.uint8).copy(),
        pmem=pmem, geom=geom, clock=clock,
        cnt=np.zeros(oc.NCNT, np.int64), op_count=np.zeros(len(oc.OPS), np.int64),
        pc_warp=np.zeros(k.n, np.int64), pc_thread=np.zeros(k.n, np.int64),
        err=np.zeros(8, np.int64),
        tr_addr=np.zeros(32, np.int64), tr_info=np.zeros(8, np.int64),
        si=np.zeros((4, 32), np.int64), sf=np.zeros((4, 32), np.float64),
        sregs=np.zeros((oc.NSLOT, 32), np.int64),
        mx=np.zeros((4, 8192), np.float64),
        san=make_san(checks, W, C, smem_bytes, NBAR, k.texts),
    )


def _round16(x: int) -> int:
    return (x + 15) // 16 * 16
