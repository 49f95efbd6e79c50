"""A strict checker of the Chrome trace-event format (the JSON object form), for what Perfetto's
importer requires: the trace processor itself cannot be installed offline (its package downloads the
trace_processor_shell binary on first use)."""
from __future__ import annotations

import numbers
from collections import defaultdict

PHASES = {"B", "E", "X", "C", "M", "i", "I"}
META = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}


def _num(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and x == x and abs(x) != float("inf")


def problems(trace) -> list[str]:
    """Every way `trace` departs from the format; empty when it conforms."""
    out = []
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["top level must be an object with a traceEvents list"]
    stacks = defaultdict(list)
    spans = defaultdict(list)
    for i, e in enumerate(trace["traceEvents"]):
        where = f"event {i} ({e.get('name')!r})" if isinstance(e, dict) else f"event {i}"
        if not isinstance(e, dict):
            out.append(f"{where}: not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            out.append(f"{where}: bad ph {ph!r}")
            continue
        if not isinstance(e.get("name"), str):
            out.append(f"{where}: name must be a string")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            out.append(f"{where}: pid and tid must be integers")
        if ph == "M":
            if e.get("name") not in META or not isinstance(e.get("args"), dict):
                out.append(f"{where}: metadata event needs a known name and args")
            continue
        if not _num(e.get("ts")) or e["ts"] < 0:
            out.append(f"{where}: ts must be a non-negative number")
            continue
        key = (e.get("pid"), e.get("tid"))
        if ph == "X":
            if not _num(e.get("dur")) or e["dur"] < 0:
                out.append(f"{where}: X needs a non-negative dur")
            else:
                ns = round(e["ts"] * 1000)     # the importer keeps integer nanoseconds
                spans[key].append((ns, ns + round(e["dur"] * 1000), i))
        elif ph == "B":
            stacks[key].append((e["name"], e["ts"]))
        elif ph == "E":
            if not stacks[key]:
                out.append(f"{where}: E without a B on {key}")
            else:
                name, ts = stacks[key].pop()
                if e["ts"] < ts:
                    out.append(f"{where}: E before its B")
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(_num(v) for v in args.values()):
                out.append(f"{where}: counter args must be numbers")
    for key, st in stacks.items():
        if st:
            out.append(f"{len(st)} B events without an E on {key}")
    for key, sp in spans.items():      # slices on one track must nest: no partial overlap
        sp.sort(key=lambda s: (s[0], -s[1]))
        open_ends = []
        for t0, t1, i in sp:
            while open_ends and open_ends[-1] <= t0:
                open_ends.pop()
            if open_ends and t1 > open_ends[-1]:
                out.append(f"event {i}: X slice overlaps another on {key} without nesting")
            open_ends.append(t1)
    return out
