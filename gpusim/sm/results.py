"""The executor's results in user terms: instruction counters as Nsight Compute names them, and a
fault (M.err) as one line naming the block, thread, PTX line and source line."""
from __future__ import annotations

from gpusim.isa import opcodes as oc


def functional_metrics(M, d) -> dict:
    c = M.cnt
    warp, thread = int(c[oc.CNT_WARP_INST]), int(c[oc.CNT_THREAD_INST])
    m = {
        "smsp__inst_executed.sum": warp,
        "smsp__thread_inst_executed.sum": thread,
        "smsp__thread_inst_executed_pred_on.sum": thread - int(c[oc.CNT_PRED_OFF]),
        "smsp__thread_inst_executed_per_inst_executed.ratio": thread / warp if warp else 0.0,
        "smsp__sass_average_branch_targets_threads_uniform.pct": 0.0,
        "sm__sass_branch_divergent.sum": int(c[oc.CNT_DIVERGENT]),
        "gpusim__branches.sum": int(c[oc.CNT_BRANCH]),
        "gpusim__simt_efficiency.pct": 100.0 * thread / (32 * warp) if warp else 0.0,
        "gpusim__barriers.sum": int(c[oc.CNT_BAR]),
        "smsp__inst_executed_op_ldgsts.sum": int(c[oc.CNT_LDGSTS]),
        "smsp__inst_executed_op_ldsm.sum": int(c[oc.CNT_LDSM]),
        "smsp__inst_executed_op_stsm.sum": int(c[oc.CNT_STSM]),
        "sm__inst_executed_pipe_tensor_op_hmma.sum": int(c[oc.CNT_HMMA]),
        "sm__inst_executed_pipe_tensor_op_imma.sum": int(c[oc.CNT_IMMA]),
        "sm__inst_executed_pipe_tensor_op_dmma.sum": int(c[oc.CNT_DMMA]),
        # wgmma.mma_async, counted once per warp (four per warpgroup instruction)
        "sm__inst_executed_pipe_tensor_op_gmma.sum": int(c[oc.CNT_GMMA]),
        "gpusim__mbarrier_waits_incomplete.sum": int(c[oc.CNT_MBAR_FAIL]),
    }
    br = int(c[oc.CNT_BRANCH])
    m["smsp__sass_average_branch_targets_threads_uniform.pct"] = (
        100.0 * (br - int(c[oc.CNT_DIVERGENT])) / br if br else 100.0)
    m["opcodes"] = {oc.OPS[i]: int(n) for i, n in enumerate(M.op_count) if n}
    return m


_ERR = {oc.E_OOB: "out-of-bounds", oc.E_MISALIGNED: "misaligned"}
_SPACE_NAME = {v: k for k, v in oc.SPACE.items()}


def fault_message(d, M, g, b) -> str:
    e = M.err
    code, w, lane, pc = int(e[oc.EW_CODE]), int(e[oc.EW_WARP]), int(e[oc.EW_LANE]), int(e[oc.EW_PC])
    c = int(M.wcta[w]) if w < len(M.wcta) else 0
    cta = tuple(int(x) for x in M.cta_id[c])
    lin = int(M.wlocal[w]) * 32 + lane
    tid = (lin % b[0], (lin // b[0]) % b[1], lin // (b[0] * b[1]))
    where = _where(d, pc)
    if code in _ERR:
        op = oc.OPS[int(d.ins[pc, oc.F_OP])]
        kind = {"ld": "load", "ldu": "load", "st": "store", "ldmatrix": "ldmatrix", "stmatrix": "stmatrix",
                "cp": "cp.async"}.get(op, "atomic")
        space = _SPACE_NAME.get(int(e[oc.EW_SPACE]), "?")
        return (f"{_ERR[code]} {space} {kind} of {int(e[oc.EW_SIZE])} bytes at address {int(e[oc.EW_ADDR]):#x} "
                f"by block {cta} thread {tid} {where}")
    if code == oc.E_DEADLOCK:
        return (f"deadlock: block {cta} waits at a barrier that can never complete "
                f"({int(e[oc.EW_ADDR])} of {int(e[oc.EW_SIZE])} live threads arrived) {where}")
    if code == oc.E_WATCHDOG:
        return f"watchdog: the kernel exceeded its budget of {int(M.clock[1])} warp instructions {where}"
    if code == oc.E_TRAP:
        return f"trap executed by block {cta} thread {tid} {where}"
    if code == oc.E_CALLSTACK:
        return (f"call stack overflow in block {cta} thread {tid}: a recursive call needs {int(e[oc.EW_SIZE])} more "
                f"bytes but the stack holds {int(e[oc.EW_ADDR])} per thread (launch(..., stack_size=N) sets it, as "
                f"cudaDeviceSetLimit(cudaLimitStackSize) does) {where}")
    if code == oc.E_STACK:
        return f"SIMT or call stack overflow in block {cta} {where}"
    return f"invalid call or return in block {cta} {where}"


def _where(d, pc: int) -> str:
    if not 0 <= pc < d.n:
        return ""
    s = f"at {d.file}:{d.ptx_lines[pc]} `{d.texts[pc]}`"
    if d.src_lines[pc]:
        f, line = d.src_lines[pc]
        s += f" (source {f}:{line})"
    return s
