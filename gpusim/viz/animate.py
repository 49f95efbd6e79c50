"""An animated playback of a run's recorded events, for the browser (`gpusim animate PROGRAM --html F`).

The GigaThread engine hands CTAs to SMs; each SM shows its CTA slots and, per sub-partition, its warp
slots coloured by state (issuing, or the stall reason that holds them, in Nsight Compute's names with
plain words from the CUDA documentation); sampled memory requests travel from their SM over the
interconnect to their L2 slice, to DRAM on a miss, and back. Play, pause, speed, scrub; click an SM
for its CTAs, a warp slot for its history.

The page needs no network: the script is vendored (gpusim/viz/static/anim.js) and the data is
embedded as zlib-compressed arrays (base64) that the browser inflates with DecompressionStream.
Long runs are shown at fewer frames (`MAX_FRAMES`; merged as the recorder merges), and the page says so.
"""
from __future__ import annotations

import base64
import html
import json
import zlib
from importlib import resources

import numpy as np

from gpusim.timing.events import ISSUED, Events

MAX_FRAMES = 1000
PLAIN = {   # what each state means, in the words of the CUDA / Nsight Compute documentation
    "empty": "no warp in this slot",
    "issued": "issued an instruction in this interval",
    "long_scoreboard": "waiting for global or local memory (an L1TEX result)",
    "short_scoreboard": "waiting for shared memory or a special-function result (MIO)",
    "barrier": "waiting at __syncthreads (or an mbarrier)",
    "mio_throttle": "the shared-memory (MIO) queue is full",
    "lg_throttle": "the global/local memory (LSU) queue is full",
    "math_pipe_throttle": "its math pipe is busy",
    "wait": "a fixed-latency dependency",
    "not_selected": "ready, but the scheduler picked another warp",
    "selected": "selected by the scheduler",
    "no_instruction": "waiting for an instruction fetch",
    "branch_resolving": "waiting for a branch target to resolve",
    "membar": "waiting at a memory barrier (__threadfence)",
    "dispatch_stall": "being launched onto the SM",
    "drain": "exited; its stores are draining",
    "gmma": "waiting for the other warps of its warpgroup at a wgmma",
    "imc_miss": "waiting for a kernel parameter (constant cache miss)",
}


def _blob(a: np.ndarray) -> dict:
    a = np.ascontiguousarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape),
            "b64": base64.b64encode(zlib.compress(a.tobytes(), 6)).decode("ascii")}


def _frames(ev: Events):
    """Warp states, resident warps and misses in flight at no more than MAX_FRAMES frames; bandwidths
    as bytes per frame. A merged frame shows a warp as issuing if it issued in any of its samples,
    else its state at the end."""
    n = ev.n_samples
    f = max(1, -(-n // MAX_FRAMES))
    if f == 1:
        return 1, ev.warp_state, ev.active, ev.outstanding, ev.l2_bytes, ev.dram_bytes
    idx = np.arange(0, n, f)
    last = np.minimum(idx + f - 1, n - 1)
    ws = ev.warp_state[last].copy()
    any_issued = np.logical_or.reduceat(ev.warp_state == ISSUED, idx, axis=0)
    ws[any_issued] = ISSUED
    return (f, ws, ev.active[last], ev.outstanding[last], np.add.reduceat(ev.l2_bytes, idx),
            np.add.reduceat(ev.dram_bytes, idx))


def payload(ev: Events, kernel: str, gpu: str = "") -> dict:
    """The embedded data: metadata and compressed arrays."""
    f, ws, active, outstanding, l2b, dramb = _frames(ev)
    notes = ev.decimation()
    if f > 1:
        notes.append(f"shown at {ws.shape[0]} frames of {ev.interval * f} cycles ({f} samples each)")
    cta = np.stack([ev.cta[k] for k in ("cta", "sm", "slot", "start", "end")], axis=1).astype(np.int64)
    req = np.stack([ev.requests[k] for k in ("sm", "warp", "where", "slice", "issue", "l2_at", "back")],
                   axis=1).astype(np.int64)
    req = req[np.argsort(req[:, 4], kind="stable")]
    slots = int(ev.cta["slot"].max()) + 1 if len(ev.cta) else ev.n_sm
    meta = {"kernel": kernel, "gpu": gpu, "cycles": ev.cycles, "clock_mhz": ev.clock_mhz, "n_sm": ev.n_sm,
            "warps_per_sm": ev.warps_per_sm, "subpartitions": ev.subpartitions, "l2_slices": ev.l2_slices,
            "ctas_per_sm": max(1, -(-slots // ev.n_sm)), "ctas_total": ev.ctas_total,
            "frame_cycles": ev.interval * f, "frames": int(ws.shape[0]),
            "states": list(ev.state_names), "plain": [PLAIN.get(s, s) for s in ev.state_names],
            "where": list(ev.where_names), "requests_every": ev.requests_every, "requests_seen": ev.requests_seen,
            "notes": notes}
    blobs = {"warp_state": _blob(ws), "active": _blob(active.astype(np.uint16)),
             "outstanding": _blob(outstanding.astype(np.int32)), "l2_bytes": _blob(l2b.astype(np.float64)),
             "dram_bytes": _blob(dramb.astype(np.float64)), "cta": _blob(cta.astype(np.int32)),
             "req": _blob(req.astype(np.int32))}
    return {"meta": meta, "blobs": blobs}


def script() -> str:
    """The player's JavaScript (vendored; no network)."""
    return resources.files("gpusim.viz").joinpath("static/anim.js").read_text()


def fragment(ev: Events, kernel: str, gpu: str = "", element_id: str = "gpusim-anim") -> tuple[str, str]:
    """(HTML fragment, JavaScript): the fragment holds the canvas, the controls and the data; the
    script mounts every `.gpusim-anim` element on the page (include it once, after the fragments)."""
    data = json.dumps(payload(ev, kernel, gpu), separators=(",", ":")).replace("</", "<\\/")
    frag = (f'<div class="gpusim-anim" id="{html.escape(element_id)}">\n'
            f'<script type="application/json" class="gpusim-anim-data">{data}</script>\n</div>\n')
    return frag, script()


def page(ev: Events, kernel: str, gpu: str = "") -> str:
    """A whole, self-contained HTML page."""
    frag, js = fragment(ev, kernel, gpu)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>gpusim: {html.escape(kernel)}</title>\n"
            "<style>body{margin:0;background:#111;color:#ddd;font:13px system-ui,sans-serif}</style></head>\n"
            f"<body>\n{frag}<script>\n{js}\n</script>\n</body></html>\n")


def write(result, path, name: str | None = None) -> None:
    """The animated page of `result` (a LaunchResult recorded with events=True) to `path`; name: the
    kernel's name to show (default: result.kernel)."""
    from pathlib import Path
    if result.events is None:
        raise ValueError(f"{result.kernel} recorded no events: launch it with events=True")
    Path(path).write_text(page(result.events, name or result.kernel, result.gpu))
