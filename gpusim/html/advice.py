"""Rule-based advice, as Nsight Compute's rules give it: each rule reads a launch's counters and says
what it finds, where (the PTX or source line) and what to try.

A rule is a function (result, ptx rows) -> list[Advice]; RULES lists them in the order the page shows
them. Thresholds are named constants beside their rule, so a reader sees why a rule fired."""
from __future__ import annotations

from dataclasses import dataclass

from gpusim.html.lines import ideal_sectors, ptx_rows, short_text, where

UNCOALESCED_RATIO = 1.5     # sectors/request this many times the ideal
MIN_REQUESTS = 4            # a line with fewer requests is not worth a word
CONFLICT_WAYS = 1.5         # shared wavefronts per ideal wavefront
DOMINANT_SHARE = 0.40       # a stall reason with this share of all stall cycles dominates
DIVERGENCE_DROP = 0.5       # threads per warp lost between a branch and its fall-through
TAIL_FULL = 0.5             # a last wave less full than this is a tail effect
MAX_LINES = 5               # per-line rules name at most this many lines, the costliest first
WHY = {
    "long_scoreboard": "warps wait on global or local memory (L1TEX): improve coalescing and reuse, keep more "
                       "loads in flight (more warps, or independent loads before their use); in a loop of "
                       "stores or atomics, for the LSU to read their registers: fewer same-address lanes, "
                       "fewer such instructions",
    "short_scoreboard": "warps wait on shared memory or the MIO unit (special functions, shuffles): look for bank "
                        "conflicts and long dependency chains on shared loads",
    "barrier": "warps wait at bar.sync for the slowest warp of their block: balance the work between barriers, or "
               "use fewer barriers",
    "mio_throttle": "the MIO queue (shared memory, special functions) is full: fewer or wider shared accesses",
    "lg_throttle": "the local/global queue is full: fewer, wider (vectorised) global or local accesses",
    "math_pipe_throttle": "a math pipe is busy every cycle: the kernel is compute-bound on it; use a lighter "
                          "instruction mix or another pipe",
    "wait": "fixed-latency dependencies: more independent instructions between a result and its use",
    "no_instruction": "the instruction cache misses or warps wait after a branch: smaller loops, less unrolling",
    "branch_resolving": "warps wait for branch targets to resolve: fewer or more uniform branches",
    "membar": "warps wait on memory fences: fewer fences, or narrower scopes",
    "drain": "warps wait at exit for their stores to drain",
    "not_selected": "ready warps lost the scheduler to another warp: the issue slot is the limit",
    "dispatch_stall": "the dispatcher stalled",
    "gmma": "warps of a warpgroup wait for each other at a wgmma",
    "imc_miss": "the first reads of the kernel's parameters miss the constant cache: a short kernel pays this "
                "once per SM; fewer or longer-running CTAs amortise it",
}


@dataclass(frozen=True)
class Advice:
    rule: str               # the rule's name (the page writes it as data-rule)
    title: str
    detail: str
    ptx_line: int | None = None
    severity: str = "warning"     # warning | info


def code(row: dict) -> str:
    return short_text(row["text"])


def _worst(found: list[tuple[float, Advice]], what: str) -> list[Advice]:
    """The MAX_LINES costliest findings of a per-line rule, and one line saying how many more there are."""
    found.sort(key=lambda fa: -fa[0])
    out = [a for _, a in found[:MAX_LINES]]
    if len(found) > MAX_LINES:
        rule = found[0][1].rule
        out.append(Advice(rule, f"... and {len(found) - MAX_LINES} more lines with {what}",
                          "See the PTX view's columns for all of them.", severity="info"))
    return out


def uncoalesced(r, rows) -> list[Advice]:
    out = []
    for row in rows:
        req = row.get("requests", 0)
        if req < MIN_REQUESTS or not row.get("sectors") or ".global" not in row["text"]:
            continue
        ideal = ideal_sectors(row)
        spr = row["sectors"] / req
        if spr >= UNCOALESCED_RATIO * ideal:
            kind = "stores" if row["text"].startswith(("st.", "red.", "atom.")) else "loads"
            a = Advice("uncoalesced", f"uncoalesced global {kind} at {where(row)}: {spr:.1f} sectors per request, "
                       f"ideal {ideal:.0f}",
                       f"`{code(row)}` moves {spr / ideal:.1f}x the sectors a coalesced access would: "
                       "neighbouring threads should touch neighbouring addresses.", row["ptx_line"])
            out.append((row["sectors"] - ideal * req, a))
    return _worst(out, "uncoalesced accesses")


def bank_conflicts(r, rows) -> list[Advice]:
    out = []
    for row in rows:
        ways = row.get("conflict_ways")
        if ways and ways >= CONFLICT_WAYS and row.get("bank_conflicts", 0) >= MIN_REQUESTS:
            a = Advice("bank_conflicts", f"shared-memory bank conflicts at {where(row)}: {ways:.1f}-way",
                       f"`{code(row)}` takes {row['wavefronts']:,} wavefronts, {row['bank_conflicts']:,} of them "
                       "conflicts: pad the array or change the index so a warp's lanes hit 32 different banks.",
                       row["ptx_line"])
            out.append((row["bank_conflicts"], a))
    return _worst(out, "bank conflicts")


def occupancy_limit(r, rows) -> list[Advice]:
    m = r.metrics
    limiter, theo = m.get("launch__occupancy_limiter"), m.get("sm__maximum_warps_per_active_cycle_pct", 100.0)
    if limiter not in ("registers", "shared_mem", "blocks") or theo >= 100.0:
        return []
    what = {"registers": f"registers ({m.get('launch__registers_per_thread')} per thread)",
            "shared_mem": "shared memory per block", "blocks": "the resident-blocks limit (blocks are small)"}[limiter]
    return [Advice("occupancy", f"occupancy limited by {what}: theoretical {theo:.0f}%",
                   f"{m.get(f'launch__occupancy_limit_{limiter}')} blocks fit per SM by {limiter}. Achieved "
                   f"occupancy {m.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):.0f}%.")]


def divergence(r, rows) -> list[Advice]:
    if not r.metrics.get("sm__sass_branch_divergent.sum"):
        return []
    by_pc = {row["pc"]: row for row in rows}
    out = []
    for row in rows:
        nxt = by_pc.get(row["pc"] + 1)
        if " bra" not in f" {row['text']}" or not row["text"].startswith("@") or nxt is None or not nxt["warp"]:
            continue
        before, after = row["thread"] / row["warp"], nxt["thread"] / nxt["warp"]
        if before - after >= DIVERGENCE_DROP:
            a = Advice("divergence", f"divergent branches at {where(row)}",
                       f"`{code(row)}`: {before:.1f} active threads per warp at the branch, {after:.1f} on its "
                       f"fall-through path ({r.metrics['sm__sass_branch_divergent.sum']:,} divergent branches in "
                       "the kernel). Make the condition uniform across a warp.", row["ptx_line"])
            out.append(((before - after) * row["warp"], a))
    return _worst(out, "divergent branches")


def dominant_stall(r, rows) -> list[Advice]:
    totals: dict = {}
    for row in rows:
        for k, v in row.get("stalls", {}).items():
            if k != "selected":
                totals[k] = totals.get(k, 0) + v
    n = sum(totals.values())
    if not n:
        return []
    reason, cycles = max(totals.items(), key=lambda kv: kv[1])
    if cycles < DOMINANT_SHARE * n:
        return []
    top = max(rows, key=lambda row: row.get("stalls", {}).get(reason, 0))
    return [Advice("stall", f"{reason} dominates: {100 * cycles / n:.0f}% of stall cycles, most at {where(top)}",
                   f"{WHY.get(reason, '')}. Line: `{code(top)}`.", top["ptx_line"])]


def tail_effect(r, rows) -> list[Advice]:
    waves = r.metrics.get("launch__waves_per_multiprocessor", 0)
    full, last = int(waves), waves - int(waves)
    if full < 1 or last <= 1e-9 or last >= TAIL_FULL:
        return []
    return [Advice("tail", f"tail effect: last wave {100 * last:.0f}% full",
                   f"{waves:.2f} waves of blocks per SM: during the last one most SMs idle. Size the grid to a "
                   "whole number of waves, or give each block more work.")]


RULES = [uncoalesced, bank_conflicts, divergence, dominant_stall, occupancy_limit, tail_effect]


def advise(r, rows: list[dict] | None = None) -> list[Advice]:
    """Every rule's findings for one timing-mode launch (functional mode: none of these counters)."""
    if r.mode != "timing":
        return []
    rows = ptx_rows(r) if rows is None else rows
    return [a for rule in RULES for a in rule(r, rows)]
