"""A run's recorded events as a Chrome trace-event JSON file, which Perfetto (ui.perfetto.dev) and
chrome://tracing open.

One process per SM, with a thread per CTA slot (a slice per CTA, so CTAs that overlap in time sit on
different tracks) and a thread per sub-partition (its warps' state per sampling interval: "issue" when
it issued, else the stall reason that held most of its resident warps; runs of equal state are one
slice). A "GPU" process carries counter tracks: L2 and DRAM bandwidth, L1 misses in flight, resident
warps. Timestamps are microseconds: cycles / the preset's clock in MHz (recorded in the metadata).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gpusim.timing.events import EMPTY, ISSUED, STATE_NAMES, Events

GPU_PID = 0
SP_TID0 = 1000          # sub-partition threads come after the CTA slots
MAX_SP_SLICES = 200_000  # above this the sub-partition tracks group samples (said in the metadata)


def _us(cycles, clock_mhz):
    return round(float(cycles) / clock_mhz, 3)      # whole nanoseconds, as the importer keeps them


def _span(t0, t1, clock_mhz):
    """ts and dur of cycles [t0, t1), rounded so that slices that touch still touch."""
    a, b = _us(t0, clock_mhz), _us(t1, clock_mhz)
    return {"ts": a, "dur": round(b - a, 3)}


def _meta(pid, name, tid=None, sort=None):
    out = [{"name": "process_name" if tid is None else "thread_name", "ph": "M", "pid": pid,
            "tid": 0 if tid is None else tid, "args": {"name": name}}]
    if sort is not None:
        out.append({"name": "process_sort_index" if tid is None else "thread_sort_index", "ph": "M", "pid": pid,
                    "tid": 0 if tid is None else tid, "args": {"sort_index": sort}})
    return out


def _sp_states(ev: Events, group: int) -> np.ndarray:
    """[groups, n_sm * subpartitions] state index per sub-partition: ISSUED if it issued, else the
    commonest non-empty state of its warps (EMPTY when none is resident)."""
    n, nsm, wps = ev.warp_state.shape
    nsub = ev.subpartitions
    g = -(-n // group)
    states = ev.warp_state.reshape(n, nsm, wps // nsub, nsub)          # warp slot j is in sub-partition j % nsub
    nstate = len(STATE_NAMES)
    out = np.zeros((g, nsm * nsub), np.int64)
    issue = np.add.reduceat(ev.sp_issue, np.arange(0, n, group), axis=0)
    for k in range(g):
        block = states[k * group:(k + 1) * group]                        # [group, nsm, wps/nsub, nsub]
        counts = np.zeros((nsm, nsub, nstate), np.int64)
        for s in range(2, nstate):
            counts[:, :, s] = (block == s).sum(axis=(0, 2))
        best = counts.argmax(axis=2)
        best[counts.max(axis=2) == 0] = EMPTY
        out[k] = best.reshape(-1)
    out[issue > 0] = ISSUED
    return out


def chrome_trace(ev: Events, kernel: str = "kernel") -> dict:
    """The trace-event JSON object (a dict) of the recorded events."""
    clk = ev.clock_mhz
    evs = _meta(GPU_PID, f"GPU ({kernel})", sort=0)
    slots = int(ev.cta["slot"].max()) + 1 if len(ev.cta) else 1
    per_sm = max(1, -(-slots // ev.n_sm))
    for sm in range(ev.n_sm):
        pid = sm + 1
        evs += _meta(pid, f"SM {sm}", sort=pid)
        for k in range(per_sm):
            evs += _meta(pid, f"CTA slot {k}", tid=k, sort=k)
        for j in range(ev.subpartitions):
            evs += _meta(pid, f"SMSP {j} warps", tid=SP_TID0 + j, sort=SP_TID0 + j)
    for c in ev.cta:
        end = c["end"] if c["end"] >= 0 else ev.cycles
        evs.append({"name": f"CTA {c['cta']}", "ph": "X", "pid": int(c["sm"]) + 1, "tid": int(c["slot"]) % per_sm,
                    **_span(c["start"], end, clk),
                    "args": {"cta": int(c["cta"]), "start_cycle": int(c["start"]), "end_cycle": int(end)}})
    n = ev.n_samples
    group = max(1, -(-n * ev.n_sm * ev.subpartitions // MAX_SP_SLICES))
    states = _sp_states(ev, group)
    step = ev.interval * group
    for sp in range(states.shape[1]):
        col = states[:, sp]
        cuts = np.flatnonzero(np.diff(col)) + 1
        for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(col)]):
            s = int(col[a])
            if s == EMPTY:
                continue
            t0, t1 = a * step, min(b * step, max(ev.cycles, a * step))
            evs.append({"name": "issue" if s == ISSUED else STATE_NAMES[s], "ph": "X",
                        "pid": sp // ev.subpartitions + 1, "tid": SP_TID0 + sp % ev.subpartitions,
                        **_span(t0, t1, clk),
                        "args": {"instructions": int(ev.sp_issue[a * group:b * group, sp].sum())}})
    secs = ev.interval / (clk * 1e6)
    tracks = {"L2 bandwidth": ("GB/s", ev.l2_bytes / secs / 1e9),
              "DRAM bandwidth": ("GB/s", ev.dram_bytes / secs / 1e9),
              "L1 misses in flight": ("sectors", ev.outstanding.sum(axis=1)),
              "resident warps": ("warps", ev.active.sum(axis=1))}
    for name, (unit, values) in tracks.items():
        for k, v in enumerate(values):
            evs.append({"name": name, "ph": "C", "pid": GPU_PID, "tid": 0, "ts": _us(k * ev.interval, clk),
                        "args": {unit: round(float(v), 3)}})
    return {"traceEvents": evs, "displayTimeUnit": "ns",
            "otherData": {"generator": "gpusim", "kernel": kernel, "clock_mhz": clk,
                          "time_unit": f"microseconds = simulated cycles / {clk:g} MHz", "cycles": ev.cycles,
                          "sample_interval_cycles": ev.interval, "sp_track_samples_per_slice": group,
                          "decimation": ev.decimation(),
                          "bandwidth": "bytes requested in each interval (counted when the request is issued)"}}


def write(result, path, name=lambda kernel: kernel) -> Path:
    """Write the Chrome trace of `result` (a LaunchResult with events, or a list of them: one file per
    launch after the first, suffixed .1, .2, ...) to `path`; name: kernel name -> name to show."""
    results = result if isinstance(result, list | tuple) else [result]
    p = Path(path)
    for i, r in enumerate(results):
        if r.events is None:
            raise ValueError(f"launch {i} ({r.kernel}) recorded no events: launch it with events=True")
        out = p if i == 0 else p.with_suffix(f".{i}{p.suffix}")
        out.write_text(json.dumps(chrome_trace(r.events, name(r.kernel)), separators=(",", ":")))
    return p
