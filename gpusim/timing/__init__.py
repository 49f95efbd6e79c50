"""Timing mode: GigaThread engine (simpy), the cycle-level SM core (numba), memory hierarchy, metrics."""
