"""Sanitizer options and results in user terms: which checks a launch runs, and its racecheck and
synccheck reports (block, threads, PTX and source lines), read from the tracking state of
sm/sanitize.py after the run. Also the fault a kernel ends on, with the reports found before it."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpusim.errors import KernelFault, LaunchError
from gpusim.isa import opcodes as oc
from gpusim.sm import sanitize as sz
from gpusim.sm.results import _where, fault_message
from gpusim.sm.state import W_BARRIER

CHECKS = {"memcheck": 0, "racecheck": sz.F_RACE, "synccheck": sz.F_SYNC}
KIND = {sz.K_RAW: "RAW", sz.K_WAR: "WAR", sz.K_WAW: "WAW", sz.K_DIV_WARP: "divergent-warp",
        sz.K_DIV_BLOCK: "divergent-block", sz.K_COUNT_MISMATCH: "count-mismatch", sz.K_BAD_COUNT: "invalid-count",
        sz.K_SYNCWARP_MASK: "invalid-syncwarp-mask", sz.K_ID_MISMATCH: "barrier-id-mismatch"}


def parse_checks(check) -> tuple[int, tuple]:
    """`check=` of launch: None, a name, "a,b", or a list of names -> (flags, names in canonical order).
    memcheck is always on; naming it is allowed."""
    if check is None:
        return 0, ()
    if isinstance(check, str):
        names = [c.strip().lower() for c in check.split(",") if c.strip()]
    elif isinstance(check, (list, tuple, set, frozenset)) and all(isinstance(c, str) for c in check):
        names = [c.strip().lower() for c in check]
    else:
        raise LaunchError(f"check must be a name or a list of names ({', '.join(CHECKS)}), got {check!r}")
    if "all" in names:
        names = list(CHECKS)
    bad = [n for n in names if n not in CHECKS]
    if bad:
        raise LaunchError(f"unknown check '{bad[0]}': choose from {', '.join(CHECKS)} (or all)")
    flags = 0
    for n in names:
        flags |= CHECKS[n]
    return flags, tuple(n for n in CHECKS if n in names)


@dataclass
class SanitizerReport:
    """One distinct hazard or barrier error (the first occurrence's details), and how often it occurred."""
    tool: str                   # "racecheck" or "synccheck"
    kind: str                   # RAW, WAR, WAW, divergent-warp, divergent-block, count-mismatch, ...
    count: int                  # occurrences (racecheck: thread accesses; synccheck: warp arrivals)
    block: tuple
    threads: tuple              # (first thread, second thread) as (x, y, z)
    pcs: tuple                  # instruction indices: the earlier access / arrival first
    ptx_lines: tuple
    source_lines: tuple         # ((file, line) or None) per pc
    address: int | None         # racecheck: the shared-memory offset of the first byte found
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass
class SanitizerResult:
    """What the checks of one launch found. `reports`: distinct ones (by kind and instruction pair,
    the first NREP); the totals count every occurrence."""
    checks: tuple
    reports: list = field(default_factory=list)
    race_total: int = 0
    sync_total: int = 0
    dropped: int = 0            # distinct reports beyond the first NREP (counted in the totals)
    untracked: list = field(default_factory=list)   # PTX lines of shared accesses racecheck does not see

    @property
    def hazards(self) -> list:
        return [r for r in self.reports if r.tool == "racecheck"]

    @property
    def errors(self) -> list:
        return [r for r in self.reports if r.tool == "synccheck"]

    def lines(self) -> list[str]:
        out = []
        if "memcheck" in self.checks:
            out.append("memcheck: always on: an out-of-bounds, misaligned or null access stops the kernel "
                       "with its address, block, thread and line")
        if "racecheck" in self.checks:
            out.append(f"racecheck: {self.race_total} hazards ({len(self.hazards)} distinct)")
            out += ["  " + r.message for r in self.hazards]
            if self.untracked:
                out.append("  not checked: the shared-memory accesses of ldmatrix/stmatrix/cp.async (PTX lines "
                           + ", ".join(str(x) for x in self.untracked) + ")")
        if "synccheck" in self.checks:
            out.append(f"synccheck: {self.sync_total} errors ({len(self.errors)} distinct)")
            out += ["  " + r.message for r in self.errors]
        if self.dropped:
            out.append(f"({self.dropped} more distinct reports not kept)")
        return out


def _thread(lin: int, b) -> tuple:
    return (lin % b[0], (lin // b[0]) % b[1], lin // (b[0] * b[1]))


def _verb(d, pc: int) -> str:
    op = oc.OPS[int(d.ins[pc, oc.F_OP])]
    return {"ld": "read", "ldu": "read", "st": "write"}.get(op, "atomic")


def _message(d, kind: int, row, b) -> str:
    k = KIND[kind]
    pc1, pc2 = int(row[sz.R_PC1]), int(row[sz.R_PC2])
    t1, t2 = _thread(int(row[sz.R_TID1]), b), _thread(int(row[sz.R_TID2]), b)
    blk = (int(row[sz.R_CX]), int(row[sz.R_CY]), int(row[sz.R_CZ]))
    n, addr, x1, x2 = int(row[sz.R_COUNT]), int(row[sz.R_ADDR]), int(row[sz.R_X1]), int(row[sz.R_X2])
    times = f" [{n} times]" if n > 1 else ""
    if kind <= sz.K_WAW:
        return (f"{k} hazard at shared offset {addr:#x} in block {blk}: {_verb(d, pc1)} by thread {t1} "
                f"{_where(d, pc1)}, then {_verb(d, pc2)} by thread {t2} {_where(d, pc2)}, with no barrier "
                f"between them{times}")
    if kind == sz.K_DIV_WARP:
        return (f"barrier error: divergent thread(s) in warp: {bin(x1).count('1')} of the {bin(x2).count('1')} "
                f"live threads of warp {int(row[sz.R_TID1]) // 32} of block {blk} reach barrier {addr} "
                f"{_where(d, pc1)}; thread {t2} does not arrive with them{times}")
    if kind == sz.K_DIV_BLOCK:
        return (f"barrier error: divergent thread(s) in block {blk}: thread {t1} waits at barrier {addr} "
                f"{_where(d, pc1)}, thread {t2} at another instruction for it {_where(d, pc2)}{times}")
    if kind == sz.K_COUNT_MISMATCH:
        c1, c2 = (x if x else "all threads" for x in (x1, x2))
        return (f"barrier error: mismatched thread counts at barrier {addr} in block {blk}: thread {t1} "
                f"arrives counting {c1} {_where(d, pc1)}, thread {t2} counting {c2} {_where(d, pc2)}{times}")
    if kind == sz.K_BAD_COUNT:
        return (f"invalid arguments: barrier {addr} thread count {x1} is not a multiple of the warp size (32), "
                f"thread {t1} of block {blk} {_where(d, pc1)}{times}")
    if kind == sz.K_SYNCWARP_MASK:
        return (f"invalid arguments: bar.warp.sync (__syncwarp) mask {x1 & 0xFFFFFFFF:#010x} leaves out thread "
                f"{t1} (lane {int(row[sz.R_TID1]) % 32}) that executes it, block {blk} {_where(d, pc1)}{times}")
    return (f"barrier error: mismatched barrier ids in block {blk}: warps wait at barrier {x1} {_where(d, pc1)} "
            f"and at barrier {x2} {_where(d, pc2)}; neither can complete")


def _report(d, row, b) -> SanitizerReport:
    kind = int(row[sz.R_KIND])
    pcs = (int(row[sz.R_PC1]), int(row[sz.R_PC2]))
    return SanitizerReport(
        tool="racecheck" if kind <= sz.K_WAW else "synccheck", kind=KIND[kind], count=int(row[sz.R_COUNT]),
        block=(int(row[sz.R_CX]), int(row[sz.R_CY]), int(row[sz.R_CZ])),
        threads=(_thread(int(row[sz.R_TID1]), b), _thread(int(row[sz.R_TID2]), b)), pcs=pcs,
        ptx_lines=tuple(int(d.ptx_lines[p]) for p in pcs), source_lines=tuple(d.src_lines[p] for p in pcs),
        address=int(row[sz.R_ADDR]) if kind <= sz.K_WAW else None, message=_message(d, kind, row, b))


def _deadlock_ids(d, M, b) -> list:
    """A deadlock whose stuck warps wait at different barrier ids: synccheck names both barriers."""
    if M.err[oc.EW_CODE] != oc.E_DEADLOCK:
        return []
    w0 = int(M.err[oc.EW_WARP])
    c = int(M.wcta[w0])
    stuck = [w for w in np.flatnonzero(M.wstat == W_BARRIER) if int(M.wcta[w]) == c]
    first = {}
    for w in stuck:
        first.setdefault(int(M.wbar[w]), w)
    if len(first) < 2:
        return []
    (b1, w1), (b2, w2) = sorted(first.items())[:2]
    row = np.zeros(12, np.int64)
    row[sz.R_KIND] = sz.K_ID_MISMATCH
    row[sz.R_PC1], row[sz.R_PC2] = M.spc[w1, M.sp[w1] - 1], M.spc[w2, M.sp[w2] - 1]
    row[sz.R_TID1], row[sz.R_TID2] = int(M.wlocal[w1]) * 32, int(M.wlocal[w2]) * 32
    row[sz.R_CX:sz.R_CZ + 1] = M.cta_id[c]
    row[sz.R_COUNT], row[sz.R_X1], row[sz.R_X2] = 1, b1, b2
    return [_report(d, row, b)]


def _untracked_lines(d) -> list:
    """PTX lines of the shared-memory accesses racecheck does not track (ldmatrix, stmatrix, cp.async copies)."""
    op = d.ins[:, oc.F_OP]
    mask = (op == oc.OP["ldmatrix"]) | (op == oc.OP["stmatrix"]) | ((op == oc.OP["cp"]) & (d.ins[:, oc.F_MOD] == 0))
    return sorted({int(d.ptx_lines[pc]) for pc in range(d.n) if mask[pc]})


def collect(d, M, b, names: tuple) -> SanitizerResult | None:
    """The reports of a launch that ran with checks `names` (None when it ran without any)."""
    if not names:
        return None
    S = M.san
    n = int(S.ctl[sz.CT_NREP])
    res = SanitizerResult(checks=names, reports=[_report(d, S.rep[r], b) for r in range(n)],
                          race_total=int(S.ctl[sz.CT_RACE]), sync_total=int(S.ctl[sz.CT_SYNC]),
                          dropped=int(S.ctl[sz.CT_DROPPED]))
    if "racecheck" in names:
        res.untracked = _untracked_lines(d)
    if "synccheck" in names:
        extra = _deadlock_ids(d, M, b)
        res.reports += extra
        res.sync_total += len(extra)
    res.reports.sort(key=lambda r: (r.tool, r.pcs))
    return res


def kernel_fault(d, M, g, b, names: tuple = ()) -> KernelFault:
    """The fault a kernel stopped on; with checks on, the reports found up to it follow the fault's line
    (and ride on the exception as `.sanitizer`)."""
    msg = fault_message(d, M, g, b)
    res = collect(d, M, b, names)
    found = [r for r in res.reports] if res else []
    if found:
        msg += "\n" + "\n".join("  " + r.tool + ": " + r.message for r in found)
    e = KernelFault(msg)
    e.sanitizer = res
    return e
