"""Numeric encoding of decoded instructions: opcodes, field indices, operand kinds, modifiers.

Every decoded instruction is one row of `ins` (int64, NF fields) plus operand rows
`opk` (kind), `opv` (register index / immediate bits / special register id) and
`opo` (address offset), NSLOT slots each: slots 0..3 destinations, 4..9 sources.
"""
from __future__ import annotations

OPS = [
    # integer / bit / float arithmetic (type decides integer vs float semantics)
    "add", "sub", "mul", "mad", "fma", "mul24", "mad24", "div", "rem", "abs", "neg", "min", "max",
    "and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "prmt", "bfind",
    "sqrt", "rcp", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp",
    "mov", "setp", "selp", "slct", "cvt", "cvta", "set",
    "ld", "ldu", "st", "atom", "red", "prefetch",
    "bar", "membar", "bra", "call", "ret", "exit", "trap", "brkpt", "nanosleep",
    "shfl", "vote", "activemask", "redux",
    "addc", "subc", "madc",   # carry-in forms of add/sub/mad (the carry flag CC.CF: see gpusim/sm/alu_int.py)
    "match", "shf",
    "cp", "ldmatrix", "stmatrix", "mma", "elect",   # cp.async, warp-wide matrix loads/stores and MMA (tensorops.py)
    "retf",   # synthetic: return from a .func once all its lanes reconverge
    "nop",    # synthetic: accepted hint instructions (prefetch, fence, pmevent)
    # Hopper asynchronous instructions (gpusim/isa/hopper.py); cp.async.bulk.* decodes as "cpbulk"
    "mbarrier", "wgmma", "cpbulk",
    "dp4a", "dp2a",   # integer dot products of packed 8-/16-bit elements (sm/alu_int.py exec_dot)
    "mapa", "getctarank",   # distributed shared memory addresses of a thread-block cluster (sm/cluster.py)
]
OP = {name: i for i, name in enumerate(OPS)}
OP_ALIASES = {"barrier": "bar", "fence": "membar", "fma": "fma", "ld": "ld", "pmevent": "nop",
              "discard": "nop", "applypriority": "nop", "createpolicy": None,
              "setmaxnreg": "nop", "griddepcontrol": "nop"}

# ------------------------------------------------------------------ instruction fields
F_OP, F_TYPE, F_TYPE2, F_MOD, F_MOD2, F_FLAGS, F_GUARD, F_GNEG, F_SPACE, F_VEC = range(10)
F_TARGET, F_RECONV, F_LINE, F_SRCLINE, F_CLASS, F_NDST, F_NSRC, F_FUNC = range(10, 18)
NF = 18
NSLOT = 14     # 4 destinations, 10 sources (mma.m16n8k16.f32: A 4 + B 2 + C 4 registers)
D0, S0 = 0, 4

# carry flag CC.CF: a hidden per-thread register in source slot S_CC / destination slot D_CC (ccflag.py)
S_CC, D_CC = NSLOT - 1, S0 - 1
CC_REG = "%%cc"

# ------------------------------------------------------------------ operand kinds
OK_NONE, OK_REG, OK_IMM, OK_SREG, OK_ADDR, OK_SINK, OK_REGNEG = range(7)

# ------------------------------------------------------------------ flags
FL_FTZ, FL_SAT, FL_APPROX, FL_HI, FL_WIDE, FL_LO, FL_FULL, FL_CC, FL_UNI, FL_VOLATILE, FL_NAN = (
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
FL_RELU = 2048
FL_SHIFTAMT = 4096    # bfind.shiftamt
FL_CLAMP = 8192       # shf.clamp (shf.wrap when clear)
FL_SATFINITE = 16384  # cvt/mma .satfinite
FL_TRANS = 32768      # ldmatrix/stmatrix .trans
FL_L2ONLY = 65536     # ld.global .cg / .cv: cached in the L2 only, past the L1

# ------------------------------------------------------------------ rounding modes (F_MOD2 for float ops)
RND = {"rn": 0, "rz": 1, "rm": 2, "rp": 3, "rni": 4, "rzi": 5, "rmi": 6, "rpi": 7, "rna": 8}
R_RN, R_RZ, R_RM, R_RP, R_RNI, R_RZI, R_RMI, R_RPI = range(8)

# ------------------------------------------------------------------ comparisons (setp/set/slct F_MOD)
CMP = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5, "lo": 6, "ls": 7, "hi": 8, "hs": 9,
       "equ": 10, "neu": 11, "ltu": 12, "leu": 13, "gtu": 14, "geu": 15, "num": 16, "nan": 17}
BOOL = {"and": 1, "or": 2, "xor": 3}

# ------------------------------------------------------------------ atomics (F_MOD)
ATOM = {"add": 0, "min": 1, "max": 2, "inc": 3, "dec": 4, "exch": 5, "cas": 6, "and": 7, "or": 8, "xor": 9}
A_ADD, A_MIN, A_MAX, A_INC, A_DEC, A_EXCH, A_CAS, A_AND, A_OR, A_XOR = range(10)

# ------------------------------------------------------------------ shfl / vote / bar / testp / redux
SHFL = {"up": 0, "down": 1, "bfly": 2, "idx": 3}
VOTE = {"all": 0, "any": 1, "uni": 2, "ballot": 3}
BAR = {"sync": 0, "arrive": 1, "red": 2}
# barrier.cluster.arrive / .wait (F_MOD; 3 is bar.warp.sync): sm/cluster.py
BAR_CLUSTER_ARRIVE, BAR_CLUSTER_WAIT = 4, 5
BARRED = {"popc": 0, "and": 1, "or": 2}
TESTP = {"finite": 0, "infinite": 1, "number": 2, "notanumber": 3, "normal": 4, "subnormal": 5}
REDUX = {"add": 0, "min": 1, "max": 2, "and": 3, "or": 4, "xor": 5}
MATCH = {"any": 0, "all": 1}
SHF = {"l": 0, "r": 1}
# cp.async sub-operations (F_MOD); F_MOD2: 0 .ca, 1 .cg (bypasses L1)
CP = {"copy": 0, "commit_group": 1, "wait_group": 2, "wait_all": 3}
CP_COPY, CP_COMMIT, CP_WAIT, CP_WAIT_ALL = range(4)
PRMT = {"f4e": 1, "b4e": 2, "rc8": 3, "ecl": 4, "ecr": 5, "rc16": 6}   # F_MOD (0: the default selector mode)
# mma shapes (F_MOD); F_MOD2: the C type; F_TYPE: D type; F_TYPE2: A type; F_VEC: B type
MMA_SHAPES = {"m16n8k8": 0, "m16n8k16": 1, "m16n8k32": 2, "m8n8k4": 3}
MMA_M16N8K8, MMA_M16N8K16, MMA_M16N8K32, MMA_M8N8K4 = range(4)
# mbarrier sub-operations (F_MOD; 0: none given); cparrive is cp.async.mbarrier.arrive
MBAR = {"init": 1, "arrive": 2, "arrive_drop": 3, "expect_tx": 4, "complete_tx": 5, "try_wait": 6,
        "test_wait": 7, "pending_count": 8, "inval": 9, "cparrive": 10}
MB_EXPECT_TX, MB_PARITY, MB_NOINC = 1, 2, 4          # F_MOD2 bits of mbarrier
CB_MULTICAST = 8        # F_MOD2 bit of cpbulk: .multicast::cluster (a ctaMask operand follows the mbarrier)
WGMMA = {"fence": 1, "commit_group": 2, "wait_group": 3, "mma_async": 4}
# F_MOD2 of wgmma.mma_async: N in bits 0..9, A from registers, negated A (imm-scale-a -1), negated B,
# .satfinite (integer), transposed A / B, A's element kind in bits 16..19, B's in bits 20..23 (WG_KINDS)
WG_N_MASK, WG_A_REGS, WG_NEG_A, WG_NEG_B, WG_SATFINITE = 0x3FF, 1 << 10, 1 << 11, 1 << 12, 1 << 13
WG_TRANS_A, WG_TRANS_B = 1 << 14, 1 << 15      # imm-trans-a/b = 1: M-/N-major shared-memory operand
WG_KINDS = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 3, "e5m2": 4, "s8": 5, "u8": 6}
WG_A_SHIFT, WG_B_SHIFT = 16, 20
CPBULK = {"g2s": 1, "s2g": 2, "commit_group": 3, "wait_group": 4, "tensor_g2s": 5, "tensor_s2g": 6, "s2s": 7}

# ------------------------------------------------------------------ state spaces (F_SPACE)
SPACE = {"generic": 0, "global": 1, "shared": 2, "local": 3, "const": 4, "param": 5}
SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM = range(6)

# ------------------------------------------------------------------ pipeline classes (F_CLASS), for timing
# int64: 64-bit integer arithmetic and compares, which the 32-bit INT datapath runs as two dependent
# operations (IADD3 + IADD3.X, ISETP + ISETP.EX); it issues to the INT pipe.
# tensor: mma.sync on the sub-partition's tensor core (its interval depends on shape and type: pipelines.py);
# gmma: wgmma.mma_async (the warpgroup's tensor core, asynchronous); tma: cp.async.bulk copies (the SM's
# TMA unit, asynchronous); sync: mbarrier operations and the wgmma/bulk fences, commits and waits.
CLASSES = ["int", "fp32", "fp64", "sfu", "ldst", "branch", "barrier", "misc", "atomic", "int64", "tensor", "gmma",
           "tma", "sync"]
(C_INT, C_FP32, C_FP64, C_SFU, C_LDST, C_BRANCH, C_BARRIER, C_MISC, C_ATOMIC, C_INT64, C_TENSOR, C_GMMA, C_TMA,
 C_SYNC) = range(len(CLASSES))

# ------------------------------------------------------------------ special registers
SREGS = ["tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y", "ctaid.z",
         "nctaid.x", "nctaid.y", "nctaid.z", "laneid", "warpid", "nwarpid", "smid", "nsmid", "gridid",
         "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt",
         "clock", "clock64", "globaltimer", "globaltimer_lo", "globaltimer_hi", "dynamic_smem_size",
         "total_smem_size", "clock_hi",
         # thread-block clusters (sm/operands.py; 1 x 1 x 1 when launched without clusters)
         "clusterid.x", "clusterid.y", "clusterid.z", "nclusterid.x", "nclusterid.y", "nclusterid.z",
         "cluster_ctaid.x", "cluster_ctaid.y", "cluster_ctaid.z", "cluster_nctaid.x", "cluster_nctaid.y",
         "cluster_nctaid.z", "cluster_ctarank", "cluster_nctarank", "is_explicit_cluster"]
SREG = {"%" + name: i for i, name in enumerate(SREGS)}
for _i, _c in enumerate("xyz"):
    SREG[f"%tid{_c}"] = SREG[f"%tid.{_c}"]
SR = {name: i for i, name in enumerate(SREGS)}

# ------------------------------------------------------------------ error codes (executor -> Python)
E_NONE, E_OOB, E_MISALIGNED, E_DEADLOCK, E_WATCHDOG, E_TRAP, E_STACK, E_BADCALL, E_CALLSTACK = range(9)
EW_CODE, EW_WARP, EW_LANE, EW_PC, EW_ADDR, EW_SIZE, EW_SPACE, EW_CTA = range(8)

# ------------------------------------------------------------------ counters (cnt array)
CNT_WARP_INST, CNT_THREAD_INST, CNT_BRANCH, CNT_DIVERGENT, CNT_BAR, CNT_LD, CNT_ST, CNT_ATOM = range(8)
CNT_PRED_OFF, CNT_ACTIVE_LANES = 8, 9
CNT_LDGSTS, CNT_LDSM, CNT_STSM, CNT_HMMA, CNT_IMMA, CNT_DMMA = range(10, 16)   # cp.async, ldmatrix, stmatrix, mma
CNT_MBAR_FAIL, CNT_GMMA = 16, 17       # try_wait/test_wait that found the phase incomplete; wgmma.mma_async
CNT_MBAR_PHASE = 18     # mbarrier phases completed by an arrive (the timing model delays their visibility)
NCNT = 19
