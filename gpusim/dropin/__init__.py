"""Run unchanged numba.cuda programs on gpusim.

One switch, any of:

    import gpusim.dropin.auto                    # first line of a script: every launch runs on gpusim
    GPUSIM_DROPIN=1 PYTHONPATH=$(gpusim dropin-path) python script.py   # an environment variable, as
                                                 # NUMBA_ENABLE_CUDASIM: child Python processes too
    with gpusim.dropin.simulate(gpu="h100"):     # only inside the block
    gpusim python script.py [args]               # a whole script, unchanged
    pytest -p gpusim.dropin.pytest_plugin        # a test suite

numba-cuda still compiles the kernels (its NVVM, on the CPU); gpusim replaces the three things that
need a GPU (see patch.py): the compute capability, the device memory/stream/event API, and the
launch. Each launch's LaunchResult is kept: `gpusim.dropin.last_launch()`, or all of them with
`with gpusim.dropin.recording() as runs:`.

Settings: gpu (a preset name or GPUSpec; $GPUSIM_GPU), mode ("timing" or "functional";
$GPUSIM_MODE). Timing mode is the default, as in gpusim.launch.
"""
from __future__ import annotations

import contextlib
import os

_STATE: dict = {"patcher": None, "last": None, "recorders": []}
SETTINGS: dict = {"gpu": os.environ.get("GPUSIM_GPU", "h100"), "mode": os.environ.get("GPUSIM_MODE", "timing")}


def _record(res):
    _STATE["last"] = res
    for r in _STATE["recorders"]:
        r.append(res)


def enable(gpu=None, mode=None) -> None:
    """Route numba.cuda launches to gpusim until disable()."""
    from gpusim.errors import LaunchError
    if gpu is not None:
        SETTINGS["gpu"] = gpu
    if mode is not None:
        SETTINGS["mode"] = mode
    if SETTINGS["mode"] not in ("timing", "functional"):
        raise LaunchError(f"mode must be 'timing' or 'functional', got {SETTINGS['mode']!r}")
    if _STATE["patcher"] is None:
        from gpusim.dropin.patch import apply
        _STATE["patcher"] = apply(SETTINGS, _record)


def site_dir() -> str:
    """The folder whose sitecustomize.py enables the drop-in in any Python process started with
    GPUSIM_DROPIN=1 and this folder on PYTHONPATH."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "site")


def child_env(env=None) -> dict:
    """An environment in which Python processes run their numba.cuda launches on gpusim, with this
    process's settings."""
    env = dict(os.environ if env is None else env)
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = site_dir() + (os.pathsep + path if path else "")
    env["GPUSIM_DROPIN"] = "1"
    if isinstance(SETTINGS["gpu"], str):
        env["GPUSIM_GPU"] = SETTINGS["gpu"]
    env["GPUSIM_MODE"] = SETTINGS["mode"]
    return env


def disable() -> None:
    if _STATE["patcher"] is not None:
        _STATE["patcher"].undo()
        _STATE["patcher"] = None


def enabled() -> bool:
    return _STATE["patcher"] is not None


@contextlib.contextmanager
def simulate(gpu=None, mode=None):
    """numba.cuda launches inside the block run on gpusim."""
    was, old = enabled(), dict(SETTINGS)
    enable(gpu, mode)
    try:
        yield
    finally:
        SETTINGS.update(old)
        if not was:
            disable()


def last_launch():
    """The LaunchResult of the most recent launch through the drop-in (None before any)."""
    return _STATE["last"]


@contextlib.contextmanager
def recording():
    """Collect the LaunchResult of every launch inside the block, in order."""
    runs: list = []
    _STATE["recorders"].append(runs)
    try:
        yield runs
    finally:
        _STATE["recorders"].remove(runs)
