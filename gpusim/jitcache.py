"""Where numba keeps gpusim's compiled machine code, keyed on the sources it is compiled from.

numba's own cache is keyed on the file that defines a function: an edit to a callee in another
module would leave the caller's cached machine code stale. gpusim's jitted functions call each
other across modules, so their cache lives in a directory named by a hash of every ``.py`` file of
the parts of the package numba compiles (`COMPILED`; and the numba and Python versions): any edit
there gives a fresh directory, and the old one is never read again. Edits elsewhere (front ends,
launch, drop-in, reports, CLI) cannot change compiled code and keep the cache. The directory is
``$GPUSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/gpusim``, else ``~/.cache/gpusim``; the eight most
recently used trees are kept.

`install()` registers the locator with numba; gpusim/__init__.py calls it before any jitted module
is imported (numba picks a function's cache location when the decorator runs).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
KEEP = 8


# The parts of the package numba compiles from: the layers at and below gpusim.timing (pyproject's
# import-linter contract keeps jitted code from importing anything above them). An edit to a front
# end, the launch API, the drop-in, reports or the CLI leaves the compiled core's cache valid.
COMPILED = ("isa", "sm", "memory", "timing", "spec.py", "tma.py", "errors.py", "jit.py", "jitcache.py")


def source_hash(root: Path = PACKAGE_ROOT, parts: tuple | None = None) -> str:
    """sha256 over the .py files under `root` (relative path and bytes; only those under `parts`, files
    or folders relative to root, when given), numba's and Python's versions."""
    import numba
    h = hashlib.sha256(f"{numba.__version__} {sys.version_info[:3]}".encode())
    files = root.rglob("*.py") if parts is None else (
        p for part in parts for p in ([root / part] if part.endswith(".py") else (root / part).rglob("*.py")))
    for p in sorted(files):
        h.update(str(p.relative_to(root)).encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cache_root() -> Path:
    env = os.environ.get("GPUSIM_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpusim"


def write_atomic(path: Path, text: str) -> None:
    """Write a cache file whole or not at all: test workers, threads and parallel runs share the cache, and a
    reader must never see half a file (written beside it under a name of its own, then renamed over it)."""
    import tempfile
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _prune(root: Path, current: Path) -> None:
    trees = sorted((p for p in root.glob("jit-*") if p.is_dir() and p != current),
                   key=lambda p: p.stat().st_mtime, reverse=True)
    for old in trees[KEEP - 1:]:
        shutil.rmtree(old, ignore_errors=True)


def make_locator(package_root: Path, cache_dir: Path):
    """A numba cache locator for functions defined under `package_root`, caching into `cache_dir`
    with the package's source hash as every function's freshness stamp."""
    from numba.core.caching import _CacheLocator

    stamp = cache_dir.name
    root = str(package_root)

    class PackageLocator(_CacheLocator):
        def __init__(self, py_func, py_file):
            self._lineno = py_func.__code__.co_firstlineno
            rel = os.path.relpath(os.path.dirname(os.path.realpath(py_file)), root)
            self._path = str(cache_dir / rel)

        def get_cache_path(self):
            return self._path

        def get_source_stamp(self):
            return stamp

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            # the real path: a package imported through a symlinked folder is still this package, and
            # left to numba's own locator its cache would be keyed on one file's stamp (stale callees)
            if not os.path.realpath(py_file).startswith(root + os.sep):
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None          # not writable: numba's own locators decide
            return self

    return PackageLocator


_installed = None


def install(package_root: Path = PACKAGE_ROOT) -> Path:
    """Register the locator for `package_root` (once per process); returns its cache directory."""
    global _installed
    if _installed is not None and package_root == PACKAGE_ROOT:
        return _installed
    from numba.core.caching import CacheImpl
    root = cache_root()
    cache_dir = root / f"jit-{source_hash(package_root, COMPILED if package_root == PACKAGE_ROOT else None)}"
    locator = make_locator(package_root, cache_dir)
    CacheImpl._locator_classes.insert(0, locator)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        os.utime(cache_dir)
        _prune(root, cache_dir)
    except OSError:
        pass
    if package_root == PACKAGE_ROOT:
        _installed = cache_dir
    return cache_dir


QUIET = {"on": False}       # set while `gpusim warmup` compiles: it says so itself


def is_warm(mode: str) -> bool:
    """Whether `mode`'s compiled core is in the current cache tree (a run or `gpusim warmup` put it there)."""
    return (install() / f"warm-{mode}").exists()


def mark_warm(mode: str) -> None:
    try:
        (install() / f"warm-{mode}").touch()
    except OSError:
        pass
