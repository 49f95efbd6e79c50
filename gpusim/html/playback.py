"""The animated playback of a run (gpusim/viz/animate.py) as sections of the report: one per launch that
recorded events, the player's script included once (after the last fragment)."""
from __future__ import annotations

from gpusim.textfmt import short_name

MAX_PLAYERS = 4      # launches with a player on one page (each embeds its own compressed events)


def sections(results) -> list[tuple[str, str]]:
    """[(title, html fragment)] for the launches of `results` that recorded events (none: [])."""
    from gpusim.timing.events import Events
    from gpusim.viz import animate
    results = results if isinstance(results, (list, tuple)) else [results]
    out, script = [], ""
    recorded = [(i, r) for i, r in enumerate(results) if isinstance(getattr(r, "events", None), Events)]
    shown = recorded[:MAX_PLAYERS]
    for i, r in shown:
        frag, script = animate.fragment(r.events, short_name(r.kernel), r.gpu, element_id=f"gpusim-anim-{i}")
        title = "The GPU at work" + (f": launch #{i} {short_name(r.kernel)}" if len(results) > 1 else "")
        out.append((title, frag))
    if out:
        t, frag = out[-1]
        out[-1] = (t, frag + f"<script>\n{script}\n</script>\n")
    if len(recorded) > len(shown):
        t, frag = out[-1]
        out[-1] = (t, frag + f"<p>Players for the first {len(shown)} of {len(recorded)} launches.</p>")
    return out
