"""Streams, events and the simulated clock behind them.

Work runs in issue order (one simulated GPU, no overlap between streams yet). Every timing-mode
launch advances a simulated clock by the kernel's cycles at the preset's clock rate; an event
records that clock, so `start.elapsed_time(end)` gives simulated milliseconds, as on the GPU.
Functional-mode launches take no simulated time.
"""
from __future__ import annotations

import contextlib
import itertools

CLOCK = {"ms": 0.0}
_handles = itertools.count(1)


def advance(result) -> None:
    """Add a launch's simulated duration to the clock."""
    mhz = (result.timing or {}).get("clock_mhz") if isinstance(result.timing, dict) else None
    if result.cycles and mhz:
        CLOCK["ms"] += result.cycles / (mhz * 1e3)


class Stream:
    def __init__(self, handle: int | None = None):
        self.handle = next(_handles) if handle is None else handle

    def __int__(self):
        return int(self.handle)

    def __repr__(self):
        return f"<gpusim stream {self.handle}>"

    def synchronize(self):
        pass

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self

    def add_callback(self, callback, arg=None):
        callback(self, None, arg)

    def async_done(self):
        import asyncio
        fut = asyncio.get_event_loop().create_future()
        fut.set_result(self)
        return fut

    def query(self) -> bool:
        return True


DEFAULT = Stream(0)


def stream():
    return Stream()


def default_stream():
    return DEFAULT


def external_stream(ptr):
    return Stream(int(ptr))


class Event:
    def __init__(self, timing: bool = True):
        self.timing = timing
        self.ms: float | None = None

    def record(self, stream=0):
        self.ms = CLOCK["ms"]

    def synchronize(self):
        pass

    def wait(self, stream=0):
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, evtend) -> float:
        if not (self.timing and evtend.timing):
            raise RuntimeError("events created with timing=False cannot be timed")
        if self.ms is None or evtend.ms is None:
            raise RuntimeError("both events must be recorded before elapsed_time")
        return evtend.ms - self.ms


def event(timing: bool = True):
    return Event(timing)


def event_elapsed_time(evtstart, evtend) -> float:
    return evtstart.elapsed_time(evtend)
