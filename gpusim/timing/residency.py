"""What is resident on each SM: CTA slots and their warps, and the active-warp area behind
occupancy and sm__cycles_active (numba state of the GigaThread engine's placements).

CTA slot c of SM sm is slot `sm * ctas_per_sm + k`; warp slot w of SM sm is `sm * warps_per_sm + j`.
When a CTA's last warp retires, its slot number is queued in `done_ctas` for the engine (Python)
to free and refill.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gpusim.jit import njit

Residency = namedtuple("Residency", "warps_per_sm ctas_per_sm cta_launch_latency sm_warps warp_area last_change "
                                    "active_cycles busy_since sm_ctas cta_warps_left done_ctas n_done counters")
WARPS_LAUNCHED = 0       # counters


def make_state(n_sm: int, warps_per_sm: int, ctas_per_sm: int, cta_launch_latency: int) -> Residency:
    z = lambda n: np.zeros(n, np.int64)  # noqa: E731
    return Residency(np.int64(warps_per_sm), np.int64(ctas_per_sm), np.int64(cta_launch_latency), z(n_sm),
                     z(n_sm), z(n_sm), z(n_sm), z(n_sm), z(n_sm), z(n_sm * ctas_per_sm), z(n_sm * ctas_per_sm),
                     z(1), z(1))


@njit
def warps_change(r, sm, delta, now):
    """SM sm gains (delta > 0) or loses resident warps at `now`."""
    r.warp_area[sm] += r.sm_warps[sm] * (now - r.last_change[sm])
    r.last_change[sm] = now
    if r.sm_warps[sm] == 0 and delta > 0:
        r.busy_since[sm] = now
    r.sm_warps[sm] += delta
    if r.sm_warps[sm] == 0:
        r.active_cycles[sm] += now - r.busy_since[sm]


@njit
def free_cta_slot(r, sm):
    """A free CTA slot of SM sm, or -1."""
    for c in range(sm * r.ctas_per_sm, (sm + 1) * r.ctas_per_sm):
        if r.cta_warps_left[c] == 0:
            return c
    return -1


@njit
def warp_retired(r, c, sm):
    """A warp of CTA slot c retired; True when it was the CTA's last (the slot is queued as done)."""
    r.cta_warps_left[c] -= 1
    if r.cta_warps_left[c] != 0:
        return False
    r.done_ctas[r.n_done[0]] = c
    r.n_done[0] += 1
    r.sm_ctas[sm] -= 1
    return True
