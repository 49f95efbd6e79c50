"""Execution pipelines of a sub-partition, one per instruction class.

A pipeline accepts a warp instruction every `ii_*` cycles (its issue interval: a 16-lane FP32 unit
takes a 32-lane warp in 1 cycle on Hopper's dual datapaths, the INT unit in 2) and delivers its
result `lat_*` cycles after issue. The core keeps, per sub-partition and class, the cycle the
pipeline accepts its next instruction (`pipe_free`); a warp whose pipeline is busy stalls on
math_pipe_throttle. Memory instructions go to the LSU/MIO queues instead (gpusim/sm/lsu.py).

Each pipeline remembers its last `BUSY_RING` busy stretches (the cycles after an issue in which it
takes nothing): a warp that waited for its pipe spent only those cycles on math_pipe_throttle; in
the others the pipe was free and went to another warp (not_selected), as ncu samples them
(`busy_cycles`; a wait longer than the remembered stretches is busy in the share they were).

The tensor pipe (class "tensor": mma.sync) takes a warp instruction every 2*M*N*K / rate cycles,
where the rate (FLOP or integer op per cycle per SM, shared by its sub-partitions) depends on the
input type, and delivers D `lat_tensor` cycles after the pipe has taken the whole instruction
(latency = lat_tensor + its interval; f64 and the emulated fp8 have their own) and holds the
sub-partition's dispatch `tensor_dispatch` cycles (`fp8_dispatch` for fp8, the instructions ptxas
emulates it with: `dispatch_hold`). Its busy cycles are counted per family as ncu names them
(`sm__pipe_tensor_op_{hmma,imma,dmma}_cycles_active`: f16/bf16/tf32/fp8, integer, f64).

PTX is not what the SM runs: a 64-bit integer add, compare, min/max or multiply is two or more
dependent SASS operations on the 32-bit INT datapath, so it has its own class ("int64": longer
latency, two issue slots) that shares the INT pipe (`pipe_of`).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from gpusim.isa import opcodes as oc
from gpusim.jit import njit
from gpusim.spec import MAX_CYCLES, param


@dataclass(frozen=True)
class PipelineSpec:
    """Latency (issue to result) and issue interval (cycles between warp instructions) per class."""
    lat_int: int = param(4, "cycles", "integer ALU result latency", (1, MAX_CYCLES))
    ii_int: int = param(2, "cycles", "integer ALU issue interval per sub-partition", (1, 10_000))
    lat_int64: int = param(8, "cycles", "64-bit integer add/sub/compare/min/max/mul: two dependent 32-bit "
                                        "operations on the INT pipe (IADD3 + IADD3.X, ISETP + ISETP.EX)",
                                        (1, MAX_CYCLES))
    ii_int64: int = param(4, "cycles", "their issue interval: two INT-pipe slots", (1, 10_000))
    lat_fp32: int = param(4, "cycles", "FP32 add/mul/fma latency", (1, MAX_CYCLES))
    ii_fp32: int = param(1, "cycles", "FP32 issue interval", (1, 10_000))
    lat_fp64: int = param(8, "cycles", "FP64 latency", (1, MAX_CYCLES))
    ii_fp64: int = param(2, "cycles", "FP64 issue interval", (1, 10_000))
    lat_sfu: int = param(18, "cycles", "special-function unit latency (rcp, sqrt, ex2, sin...)", (1, MAX_CYCLES))
    ii_sfu: int = param(8, "cycles", "SFU issue interval (4 lanes per cycle per sub-partition)", (1, 10_000))
    uniform_queue: int = param(6, "cycles", "the SASS model: uniform-pipe work a sub-partition's uniform datapath "
                                            "takes in while it is busy (a line's UIADD3/UIMAD/USEL... wait only "
                                            "while more than this is ahead of them; their cycles per instruction "
                                            "are the SASS map's, `sasslisting.uniform_cycles`). Fitted: probe "
                                            "uniform_rate's four uniform loops at 8 warps a sub-partition, +0.1 / "
                                            "-2.9 / +3.8 / +8.0% with 6 cycles, +13.9 / +0.5 / +6.9 / +12.0% with "
                                            "none (gpusim's PTX-line bundles then leave the pipe idle)",
                               (0, MAX_CYCLES))
    lat_branch: int = param(6, "cycles", "branch resolution: a warp issues again this long after a branch",
                            (1, MAX_CYCLES))
    lat_misc: int = param(12, "cycles", "conversions, shuffles, votes and other MIO-side operations", (1, MAX_CYCLES))
    ii_misc: int = param(2, "cycles", "their issue interval", (1, 10_000))
    lat_shfl: int = param(24, "cycles", "a warp shuffle (SHFL; also MATCH, REDUX) to its consumer, through the MIO "
                                        "(fitted: probe shfl_chain, a dependent SHFL.BFLY chain takes 24.3 cycles a "
                                        "step on the H200 at one warp per sub-partition)", (1, MAX_CYCLES))
    lat_s2r: int = param(31, "cycles", "a special-register read (S2R: %tid, %ctaid, %laneid...) to its result "
                                       "(fitted: the short_scoreboard cycles per instruction of launch_empty, "
                                       "dispatch_c32 and dispatch_c256, 1.89 / 0.64 / 1.25 on the H100: 30, 31 "
                                       "and 34 cycles fit them one by one)", (1, MAX_CYCLES))
    lat_barrier: int = param(20, "cycles", "from the last arrival at bar.sync to the waiting warps' next issue",
                             (1, MAX_CYCLES))
    barrier_defer: int = param(1, "flag", "the SASS model: a warp that arrives at bar.sync (BAR.SYNC.DEFER_BLOCKING) "
                                          "goes on with the PTX lines whose SASS is all ALU, FMA-pipe or uniform-pipe "
                                          "work and waits at the first other one (sasslisting.passes_barrier); 0: "
                                          "it waits at the bar.sync", (0, 1))
    bar_arrive: float = param(1.25, "cycles", "the SASS model with barrier_defer: the SM's barrier unit takes one "
                                              "warp's bar.sync arrival this often, and a barrier completes (then "
                                              "lat_barrier) once its last arrival is taken (fitted on probe "
                                              "barrier_release: 64 to 1,024 threads a round within 13%, 6.3% mean)",
                              (0, 1000))
    # Fitted on the H100 (validation/tensor, data/h100/tensor): mma.sync does not reach the whitepaper's
    # tensor peak (989 dense FP16 TFLOPS = 4096 FLOP/cycle/SM, which wgmma reaches): one HMMA.16816,
    # HMMA.1688.TF32 or IMMA.16832 per 6 cycles per sub-partition (0.66 inst/cycle/SM measured), one DMMA.884
    # per 16 (0.246). sm_90 has no fp8 mma.sync: ptxas builds m16n8k32.e4m3 from F2FP conversions and two
    # HMMA.16816, so its rate here is half an f16 instruction's (the conversions are not modelled).
    tensor_f16: int = param(2731, "FLOP/cycle/SM", "dense mma.sync rate with f16/bf16 inputs", (1, 1 << 20))
    tensor_tf32: int = param(1366, "FLOP/cycle/SM", "dense mma.sync rate with tf32 inputs", (1, 1 << 20))
    tensor_fp8: int = param(2731, "FLOP/cycle/SM", "dense mma.sync rate with e4m3/e5m2 inputs", (1, 1 << 20))
    tensor_int8: int = param(5462, "op/cycle/SM", "dense mma.sync rate with s8/u8 inputs", (1, 1 << 20))
    tensor_f64: int = param(128, "FLOP/cycle/SM", "mma.sync rate with f64 inputs (DMMA)", (1, 1 << 20))
    lat_tensor: int = param(16, "cycles", "mma.sync result latency after the tensor pipe took the instruction "
                                          "(fitted: a dependent HMMA.16816 chain takes 24.1 cycles per mma)",
                            (1, MAX_CYCLES))
    lat_tensor_f64: int = param(10, "cycles", "the same for f64 (DMMA.884: 26.0 cycles per dependent mma)",
                                (1, MAX_CYCLES))
    lat_tensor_fp8: int = param(34, "cycles", "the same for e4m3/e5m2, which ptxas emulates (F2FP conversions, two "
                                              "dependent HMMA.16816, FADDs; fitted between a dependent chain, "
                                              "54.8 cycles per mma, and 4-8 warps of independent ones)",
                                (1, MAX_CYCLES))
    tensor_dispatch: int = param(4, "cycles", "an mma.sync holds its sub-partition's dispatch this long, reading "
                                              "its A, B and C registers (fitted: with six IADDs per mma the H100 "
                                              "issues 0.395 mma/cycle/SM, not the pipe's 0.66)", (1, 10_000))
    fp8_dispatch: int = param(18, "cycles", "issue slots of an e4m3/e5m2 mma.sync: the ~18 SASS instructions "
                                            "ptxas emulates it with (fitted: 0.164 inst/cycle/SM at 16 warps)",
                              (1, 10_000))
    lat_bsync: int = param(17, "cycles", "the SASS model: a warp reaching ptxas's convergence barrier (BSYNC, the "
                                        "join of a branch it may diverge on) issues the next instruction this long "
                                        "after its last one, diverged or not (branch_resolving; fitted: probe "
                                        "bsync_cost, 52.5 / 92.4 cycles a trip against the H200's 53.3 / 92.3)",
                           (0, MAX_CYCLES))
    join_wait_head: int = param(5, "cycles", "the SASS model: a join's `lat_bsync` hold is sampled as wait for "
                                             "its first cycles (at least those the warp's last instruction held it "
                                             "anyway), then as branch_resolving, then as wait for the last "
                                             "`join_wait_tail`. Measured, not fitted: probe join_stalls, per-SASS "
                                             "sampling on the H200, taken form: 5.3 cycles of wait on the BSYNC, "
                                             "then 7.6 of branch_resolving and 4.4 of wait on the instruction after "
                                             "it (skipped form: 6.8 and 3.7)", (0, MAX_CYCLES))
    join_wait_tail: int = param(4, "cycles", "the SASS model: the last cycles of a join's hold, sampled as wait "
                                             "(see join_wait_head)", (0, MAX_CYCLES))
    divergence_cycles: int = param(17, "cycles", "extra delay after a divergent branch: pushing the reconvergence "
                                                 "point (BSSY) and later re-joining the paths (BSYNC) (fitted: probe "
                                                 "bsync_cost's divergent form, 109.0 cycles a trip against the H200's "
                                                 "109.3; 6 until the twenty-ninth pass, not fitted)", (0, MAX_CYCLES))

    def class_timing(self, lsu_latency: int, atomic_latency: int) -> np.ndarray:
        """(latency, issue interval) per instruction class, in the order of isa.opcodes.CLASSES."""
        t = {"int": (self.lat_int, self.ii_int), "fp32": (self.lat_fp32, self.ii_fp32),
             "fp64": (self.lat_fp64, self.ii_fp64), "sfu": (self.lat_sfu, self.ii_sfu),
             "ldst": (lsu_latency, 1), "branch": (self.lat_branch, 1), "barrier": (self.lat_barrier, 1),
             "misc": (self.lat_misc, self.ii_misc), "atomic": (atomic_latency, 1),
             "int64": (self.lat_int64, self.ii_int64), "tensor": (self.lat_tensor, 1),
             # issue slots only: wgmma and bulk copies run on their own units (asyncops.py)
             "gmma": (self.lat_misc, 1), "tma": (self.lat_misc, 1), "sync": (self.lat_misc, self.ii_misc)}
        return np.array([t[c] for c in oc.CLASSES], np.int64)

    def validate(self, prefix: str = "") -> None:
        from gpusim.errors import ConfigError
        for name in ("ii_int", "ii_int64", "lat_int64", "ii_fp32", "ii_fp64", "ii_sfu", "ii_misc",
                     "lat_int", "lat_fp32", "lat_fp64", "lat_sfu", "lat_branch", "lat_misc", "lat_shfl", "lat_tensor",
                     "lat_tensor_f64", "lat_tensor_fp8", "tensor_dispatch", "fp8_dispatch", "tensor_f16",
                     "tensor_tf32", "tensor_fp8", "tensor_int8", "tensor_f64"):
            if getattr(self, name) < 1:
                raise ConfigError(f"bad value for '{prefix}{name}': must be at least 1 cycle")


    def mma_timing(self, shape: str, atype: str, subpartitions: int) -> tuple:
        """(latency, issue interval, dispatch hold) of one mma.sync of this shape and input type on a
        sub-partition."""
        m, n, k = (int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split())
        rate = {"f16": self.tensor_f16, "bf16": self.tensor_f16, "tf32": self.tensor_tf32, "e4m3": self.tensor_fp8,
                "e5m2": self.tensor_fp8, "s8": self.tensor_int8, "u8": self.tensor_int8, "f64": self.tensor_f64}[atype]
        ii = max(1, -(-2 * m * n * k * subpartitions // rate))
        fp8 = atype in ("e4m3", "e5m2")
        lat = self.lat_tensor_f64 if atype == "f64" else (self.lat_tensor_fp8 if fp8 else self.lat_tensor)
        return lat + ii, ii, (self.fp8_dispatch if fp8 else self.tensor_dispatch)

    def warp_block(self, shape: str, atype: str, subpartitions: int) -> int:
        """Cycles an mma.sync keeps its own warp from issuing: an emulated fp8 mma is a dependent sequence
        of SASS instructions, so the in-order warp finishes it before issuing anything else; 0 otherwise."""
        return self.mma_timing(shape, atype, subpartitions)[0] if atype in ("e4m3", "e5m2") else 0


Pipes = namedtuple("Pipes", "latency interval divergence_delay free_at tensor_lat tensor_ii tensor_family "
                             "tensor_hold tensor_block counters slots debt alu fma xu busy_lo busy_hi busy_n busy_head "
                             "join lat_join xu_chain join_wait disp_hold disp_sampled predicated uni uni_slack bank "
                             "bar_arrive bar_free")
BUSY_RING = 32      # busy stretches remembered per pipeline (a longer wait takes their busy share)
SLOT = 16           # `slots` is fixed point: SLOT = one SASS issue slot
SLOTS_ISSUED = 2 * 3    # counters[SLOTS_ISSUED]: SASS issue slots taken (x SLOT), after the tensor families
TENSOR_FAMILIES = ("hmma", "imma", "dmma")      # counters: busy cycles per family, then instructions per family
UNI = len(oc.CLASSES)   # free_at's and the busy rings' column of the uniform datapath's pipe (the SASS model's)
UNI_ISSUE = 3           # the map gives a line's uniform-pipe cycles, not its instructions: the busy ring counts one
                        # issue per 3 of them (an add's, logic op's or multiply-add's, sasslisting.UNIFORM_CYCLES)


def _tensor_tables(spec, d, subpartitions):
    """Per pc: the latency, issue interval, counter family and dispatch hold of each mma (zeros elsewhere)."""
    from gpusim.isa.tensorops import mma_signature
    n = d.n if d is not None else 1
    lat, ii, fam, hold, block = (np.zeros(n, np.int64) for _ in range(5))
    for pc in range(n if d is not None else 0):
        if d.ins[pc, oc.F_OP] == oc.OP["mma"]:
            shape, atype, _ = mma_signature(d.ins[pc])
            lat[pc], ii[pc], hold[pc] = spec.mma_timing(shape, atype, subpartitions)
            block[pc] = spec.warp_block(shape, atype, subpartitions)
            fam[pc] = 2 if atype == "f64" else (1 if atype in ("s8", "u8") else 0)
    return lat, ii, fam, hold, block


def make_state(spec: PipelineSpec, n_subpartitions: int, lsu_latency: int, atomic_latency: int, d=None,
               subpartitions_per_sm: int = 4, slots=None) -> Pipes:
    """slots: per pc, the SASS instructions, ALU-pipe instructions, FMA-pipe cycles and MUFU instructions (x SLOT),
    a BSYNC flag, the cycles its SASS waits on its own xu results and the cycles it holds the sub-partition's
    dispatch after it, the cycles such a hold is only sampled, at a branch the SASS instructions of the block
    ptxas predicated instead, its uniform-datapath pipe cycles (x SLOT) and the cycles its register reads hold the other
    warps' dispatch (`bank`; shape (n, 4) to (n, 11)) of the PTX
    instruction (the SASS model, gpusim/sassmap.py); None: one instruction on its
    class's pipe each (the PTX model)."""
    t = spec.class_timing(lsu_latency, atomic_latency)
    lat, ii, fam, hold, block = _tensor_tables(spec, d, subpartitions_per_sm)
    n = d.n if d is not None else 1
    # `hold` is the mma.sync's dispatch hold (tensor_hold); `disp` the SASS map's IMAD.HI hold (disp_hold)
    join, chain, disp, sampled, pred, uni, bank = (np.zeros(n, np.int64) for _ in range(7))
    if slots is None:
        sl, alu, fma, xu = (np.full(n, SLOT, np.int64), np.full(n, -1, np.int64), np.full(n, -1, np.int64),
                            np.full(n, -1, np.int64))
    else:
        a = np.asarray(slots, np.int64)
        sl, alu, fma = (np.ascontiguousarray(a[:, i]) for i in range(3))
        # without the MUFU column the SFU lines keep the PTX class's pipe
        xu = np.ascontiguousarray(a[:, 3]) if a.shape[1] > 3 else np.full(a.shape[0], -1, np.int64)
        if a.shape[1] > 4:
            join = np.ascontiguousarray(a[:, 4])
        if a.shape[1] > 5:
            chain = np.ascontiguousarray(a[:, 5])
        if a.shape[1] > 6:
            disp = np.ascontiguousarray(a[:, 6])
        if a.shape[1] > 7:
            sampled = np.ascontiguousarray(a[:, 7])
        if a.shape[1] > 8:
            pred = np.ascontiguousarray(a[:, 8])
        if a.shape[1] > 9:
            uni = np.ascontiguousarray(a[:, 9])
        if a.shape[1] > 10:
            bank = np.ascontiguousarray(a[:, 10])
    if slots is not None:
        # the SASS map carries the expansion of 64-bit integer work: its pipe slots are INT slots
        t[oc.CLASSES.index("int64"), 1] = t[oc.CLASSES.index("int"), 1]
    pipes = len(oc.CLASSES) + 1     # the classes' pipes and the uniform datapath's (UNI)
    return Pipes(t[:, 0].copy(), t[:, 1].copy(), np.int64(spec.divergence_cycles),
                 np.zeros((n_subpartitions, pipes), np.int64), lat, ii, fam, hold, block,
                 np.zeros(2 * len(TENSOR_FAMILIES) + 1, np.int64), sl, np.zeros(n_subpartitions, np.int64), alu, fma,
                 xu,
                 np.zeros((n_subpartitions, pipes, BUSY_RING), np.int64),
                 np.zeros((n_subpartitions, pipes, BUSY_RING), np.int64),
                 np.zeros((n_subpartitions, pipes, BUSY_RING), np.int64),
                 np.zeros((n_subpartitions, pipes), np.int64), join,
                 np.int64(spec.lat_bsync if join.any() else 0),     # no joins: the core skips the check
                 chain, np.array([spec.join_wait_head, spec.join_wait_tail], np.int64), disp, sampled,
                 pred, uni, np.int64(spec.uniform_queue), bank,
                 np.int64(round(spec.bar_arrive * SLOT) if slots is not None and spec.barrier_defer else 0),
                 np.zeros(max(n_subpartitions // subpartitions_per_sm, 1), np.int64))


def counters(p: Pipes) -> dict:
    m = {}
    for f, name in enumerate(TENSOR_FAMILIES):
        m[f"sm__pipe_tensor_op_{name}_cycles_active.sum"] = int(p.counters[f])
    m["gpusim__issue_slots.sum"] = int(p.counters[SLOTS_ISSUED]) // SLOT
    return m


@njit(inline="always")
def take_slots(p, sp, pc, more=0):
    """The instruction at pc issued on sub-partition sp takes its SASS issue slots (and `more`, x SLOT): >0 the
    scheduler's extra busy cycles, -1 it may issue once more this cycle (the instructions before it had fewer SASS
    instructions than PTX), 0 neither. Fractions carry over in `debt`."""
    w = p.slots[pc] + more
    p.counters[SLOTS_ISSUED] += w
    if w == SLOT:
        return 0
    d = p.debt[sp] + w - SLOT
    if d >= SLOT:
        extra = d // SLOT
        p.debt[sp] = d - extra * SLOT
        return extra
    if d <= -SLOT:
        p.debt[sp] = d + SLOT
        return -1
    p.debt[sp] = d
    return 0


@njit(inline="always")
def join_hold(p, pc):
    """Cycles after its last issue a warp whose next instruction is at pc may issue it: `lat_bsync` where ptxas
    put a BSYNC before the line's SASS (the join after a branch the warp may diverge on; the H100 samples it as
    branch_resolving and wait on the instruction after the BSYNC, about 16 cycles, diverged or not), else 0."""
    return p.lat_join if p.join[pc] != 0 else 0


@njit(inline="always")
def pipe_of(cls):
    """The pipeline an instruction class issues to (int64 runs on the INT pipe)."""
    return oc.C_INT if cls == oc.C_INT64 else cls


@njit(inline="always")
def sass_pipes(p, cls, pc):
    """The SASS model, for integer and FP32 work: the pipes come from the instruction's SASS (ALU, FMA). A line
    whose SASS has neither (S2R, CS2R, LDC, the uniform datapath's UIADD3/UMOV/S2UR, a branch) takes neither
    pipe: the H100 samples no math_pipe_throttle on such instructions (its S2R and LDC wait on the MIO), and a
    spin loop counting on the uniform datapath makes 1.20x the trips of one counting on the ALU (probe
    spin_counter). A special function's line takes the SFU pipe for its MUFUs only (an ex2.approx.f32 is an
    FSETP, two FMULs and one MUFU; divisions by one value share one MUFU.RCP, the others being FMULs): the
    H100's xu pipe takes a Triton-style ex2 every 8.8 cycles, as a bare MUFU (probe sfu_rate)."""
    return p.alu[pc] >= 0 and (
        cls == oc.C_INT or cls == oc.C_INT64 or cls == oc.C_FP32 or (cls == oc.C_SFU and p.xu[pc] >= 0))


@njit(inline="always")
def xu_only(p, pc):
    """The SASS model: the line's SASS is xu-pipe work alone (a conversion, F2I or I2F: probe conv_rate). Its
    result is a variable-latency one, as a MUFU's (short scoreboard, `lat_sfu`), and a warp held for the busy
    pipe samples mio_throttle."""
    return p.xu[pc] > 0 and p.alu[pc] <= 0 and p.fma[pc] <= 0


@njit(inline="always")
def accepts_at(p, sp, cls, pc):
    """The cycle sub-partition sp's pipeline for the instruction at pc, of class `cls`, takes it."""
    if sass_pipes(p, cls, pc):
        t = np.int64(0)
        if p.alu[pc] > 0:
            t = p.free_at[sp, oc.C_INT]
        if p.fma[pc] > 0 and p.free_at[sp, oc.C_FP32] > t:
            t = p.free_at[sp, oc.C_FP32]
        if p.xu[pc] > 0 and p.free_at[sp, oc.C_SFU] > t:
            t = p.free_at[sp, oc.C_SFU]
        if p.uni[pc] > 0 and p.free_at[sp, UNI] - p.uni_slack > t:
            t = p.free_at[sp, UNI] - p.uni_slack
        return t
    return p.free_at[sp, pipe_of(cls)]


@njit(inline="always")
def binding_pipe(p, sp, cls, pc):
    """The pipeline whose free cycle `accepts_at` returns for the instruction at pc."""
    if sass_pipes(p, cls, pc):
        if p.uni[pc] > 0 and p.free_at[sp, UNI] - p.uni_slack >= accepts_at(p, sp, cls, pc):
            return UNI
        if p.xu[pc] > 0 and (p.alu[pc] <= 0 or p.free_at[sp, oc.C_SFU] >= p.free_at[sp, oc.C_INT]) and (
                p.fma[pc] <= 0 or p.free_at[sp, oc.C_SFU] >= p.free_at[sp, oc.C_FP32]):
            return oc.C_SFU
        if p.alu[pc] > 0 and (p.fma[pc] <= 0 or p.free_at[sp, oc.C_INT] >= p.free_at[sp, oc.C_FP32]):
            return oc.C_INT
        return oc.C_FP32
    return pipe_of(cls)


@njit(inline="always")
def _busy(p, sp, pipe, now, until, sass):
    """Pipeline `pipe` of sub-partition sp took an instruction at `now` and takes nothing else
    before `until`: `sass` SASS instructions (x SLOT), which issue one after another in that
    stretch; the cycles one of them issues the pipe is not idle-busy but taken (by this warp)."""
    p.free_at[sp, pipe] = until
    if until > now + 1:
        h = (p.busy_head[sp, pipe] + 1) % BUSY_RING
        p.busy_head[sp, pipe] = h
        p.busy_lo[sp, pipe, h] = now + 1
        p.busy_hi[sp, pipe, h] = until
        p.busy_n[sp, pipe, h] = max(np.int64(0), until - now - (sass + SLOT - 1) // SLOT)


@njit(inline="always")
def busy_cycles(p, sp, cls, pc, lo, hi):
    """Cycles in [lo, hi) in which the pipeline the instruction at pc waits for took nothing
    (busy with an earlier instruction); the other cycles it was free and issued another warp's."""
    pipe = binding_pipe(p, sp, cls, pc)
    h = p.busy_head[sp, pipe]
    n = np.int64(0)
    seen = hi           # the remembered stretches cover [seen, hi)
    for k in range(BUSY_RING):
        i = (h - k) % BUSY_RING
        b_hi = p.busy_hi[sp, pipe, i]
        if b_hi <= lo:
            return n
        b_lo = p.busy_lo[sp, pipe, i]
        a = max(lo, b_lo)
        b = min(hi, b_hi)
        if b > a:       # the stretch's busy cycles, spread evenly over it
            n += ((b - a) * p.busy_n[sp, pipe, i] + (b_hi - b_lo) // 2) // (b_hi - b_lo)
        seen = min(seen, b_lo)
    if seen <= lo:
        return n
    # waited behind more stretches than are remembered: the cycles before them were busy in the share
    # the remembered ones were
    return n + (seen - lo) * n // max(np.int64(1), hi - seen)


@njit(inline="always")
def dispatch_hold(p, cls, pc):
    """Cycles the instruction at pc keeps its sub-partition from issuing anything else (1: none)."""
    if cls == oc.C_TENSOR:
        return p.tensor_hold[pc]
    return 1


@njit(inline="always")
def warp_block(p, cls, pc):
    """Cycles the instruction at pc keeps its own warp from issuing again (0: the usual 1)."""
    if cls == oc.C_TENSOR:
        return p.tensor_block[pc]
    return 0


@njit(inline="always")
def occupy(p, sp, cls, pc, now):
    """The instruction at `pc`, of class `cls`, issued at `now`: busy for its issue interval; its latency."""
    if cls == oc.C_TENSOR:
        ii = p.tensor_ii[pc]
        _busy(p, sp, cls, now, now + ii, SLOT)
        f = p.tensor_family[pc]
        p.counters[f] += ii
        p.counters[3 + f] += 1
        return p.tensor_lat[pc]
    w = p.slots[pc]
    if w == 0:                  # folded by ptxas into other instructions: no pipe, no latency of its own
        return 0
    if sass_pipes(p, cls, pc):  # its SASS on the ALU pipe (every ii_int cycles) and the FMA pipe (the pipes
        # `accepts_at` waits for: an IMAD on the FMA pipe, an FSETP on the ALU, whatever the PTX class)
        if p.alu[pc] > 0:
            _busy(p, sp, oc.C_INT, now, now + (p.interval[oc.C_INT] * p.alu[pc] + SLOT - 1) // SLOT, p.alu[pc])
        if p.fma[pc] > 0:
            # the stretch's issue cycles are its FMA-pipe instructions, not its cycles (an IMAD issues in one of
            # its 2): at most the line's SASS that is not on the ALU
            fma_ins = min(p.fma[pc], max(p.slots[pc] - p.alu[pc], np.int64(SLOT)))
            _busy(p, sp, oc.C_FP32, now, now + (p.interval[oc.C_FP32] * p.fma[pc] + SLOT - 1) // SLOT, fma_ins)
        if p.xu[pc] > 0:
            _busy(p, sp, oc.C_SFU, now, now + (p.interval[oc.C_SFU] * p.xu[pc] + SLOT - 1) // SLOT, p.xu[pc])
        if p.uni[pc] > 0:   # behind what its input holds (`uniform_queue`)
            _busy(p, sp, UNI, now, max(now, p.free_at[sp, UNI]) + (p.uni[pc] + SLOT - 1) // SLOT,
                  p.uni[pc] // UNI_ISSUE)
        if cls == oc.C_SFU and p.xu[pc] == 0:
            return p.latency[oc.C_FP32]     # no MUFU of its own (it shares another line's): its FMULs
        if xu_only(p, pc):
            return p.latency[oc.C_SFU]
        return p.latency[cls]
    if w == SLOT:
        _busy(p, sp, pipe_of(cls), now, now + p.interval[cls], SLOT)
        return p.latency[cls]
    # expanded by ptxas into several SASS instructions: the pipe takes each. The result latency stays the
    # class's: the extra SASS is mostly independent of the result (address and sign-extension work), and
    # 64-bit integer work has its own class latency (int64)
    _busy(p, sp, pipe_of(cls), now, now + (p.interval[cls] * w + SLOT - 1) // SLOT, w)
    return p.latency[cls]


@njit(inline="always")
def barrier_arrival(p, sm, now):
    """SM sm's barrier unit takes a warp's bar.sync arrival issued at `now`, after the arrivals before it (`bar_arrive`
    cycles each): the cycles from `now` until it has."""
    t = max(now * SLOT, p.bar_free[sm]) + p.bar_arrive
    p.bar_free[sm] = t
    return (t + SLOT - 1) // SLOT - now
