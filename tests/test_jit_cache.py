"""The compiled-code cache follows an edit to any module of the package (gpusim/jitcache.py), where
numba's own cache, keyed on the defining file, runs stale code."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpusim.jitcache import source_hash

SCRIPT = textwrap.dedent("""
    import sys
    from pathlib import Path
    root, mode = Path(sys.argv[1]), sys.argv[2]
    # "linked": the package imported through a symlinked folder, as from a worktree link
    sys.path.insert(0, str(root / "link" if mode == "linked" else root))
    if mode in ("package", "linked"):
        from numba.core.caching import CacheImpl
        from gpusim.jitcache import make_locator, source_hash
        pkg = (root / "pkg").resolve()
        CacheImpl._locator_classes.insert(0, make_locator(pkg, root / "cache" / f"jit-{source_hash(pkg)}"))
    import pkg.caller
    print(pkg.caller.outer())
""")
CALLER = ("from numba import njit\nfrom pkg.callee import inner\n\n\n@njit(cache=True)\ndef outer():\n"
          "    return inner() * 10\n")
CALLEE = "from numba import njit\n\n\n@njit(cache=True)\ndef inner():\n    return {}\n"


def _tree(tmp_path: Path, value: int) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "caller.py").write_text(CALLER)
    (pkg / "callee.py").write_text(CALLEE.format(value))
    (tmp_path / "run.py").write_text(SCRIPT)
    link = tmp_path / "link"
    if not link.exists():
        link.mkdir()
        (link / "pkg").symlink_to(pkg, target_is_directory=True)
    return tmp_path


def _run(root: Path, mode: str) -> int:
    out = subprocess.run([sys.executable, str(root / "run.py"), str(root), mode], capture_output=True, text=True,
                         check=True)
    return int(out.stdout.split()[-1])


def test_source_hash_changes_with_any_module(tmp_path):
    root = _tree(tmp_path, 1)
    before = source_hash(root / "pkg")
    (root / "pkg" / "callee.py").write_text(CALLEE.format(2))
    assert source_hash(root / "pkg") != before
    (root / "pkg" / "callee.py").write_text(CALLEE.format(1))
    assert source_hash(root / "pkg") == before


@pytest.mark.parametrize("mode, after_edit", [("package", 20), ("linked", 20), ("numba", 10)])
def test_an_edit_to_a_callee_reaches_its_cached_caller(tmp_path, mode, after_edit):
    root = _tree(tmp_path, 1)
    assert _run(root, mode) == 10          # compiled and cached
    assert _run(root, mode) == 10          # loaded from the cache
    (root / "pkg" / "callee.py").write_text(CALLEE.format(2))
    # gpusim's locator recompiles (20), also for a package imported through a symlink; numba's own keeps the
    # caller's stale machine code (10)
    assert _run(root, mode) == after_edit


def test_every_jitted_module_is_in_the_hashed_parts():
    import re

    from gpusim.jitcache import COMPILED, PACKAGE_ROOT
    jitted = [p.relative_to(PACKAGE_ROOT) for p in PACKAGE_ROOT.rglob("*.py")
              if re.search(r"\bnjit\b|@jit\b|numba\.jit\b", p.read_text())]
    assert jitted
    for rel in jitted:
        assert str(rel) in COMPILED or rel.parts[0] in COMPILED, f"{rel} is compiled by numba but not hashed"


def test_the_hashed_parts_are_the_layers_jitted_code_may_import():
    import tomllib

    from gpusim.jitcache import COMPILED, PACKAGE_ROOT
    layers = tomllib.loads((PACKAGE_ROOT.parent / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"][0]["layers"]
    below = [m.strip() for layer in layers[layers.index("gpusim.timing"):] for m in layer.split("|")]
    names = {m.removeprefix("gpusim.") for m in below}
    hashed = {c.removesuffix(".py") for c in COMPILED}
    assert names == hashed


def test_an_edit_outside_the_compiled_parts_keeps_the_hash(tmp_path):
    import shutil

    from gpusim.jitcache import COMPILED, PACKAGE_ROOT
    pkg = tmp_path / "gpusim"
    shutil.copytree(PACKAGE_ROOT, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    before = source_hash(pkg, COMPILED)
    (pkg / "cli.py").write_text((pkg / "cli.py").read_text() + "\n# an edit\n")
    assert source_hash(pkg, COMPILED) == before
    (pkg / "sm" / "executor.py").write_text((pkg / "sm" / "executor.py").read_text() + "\n# an edit\n")
    assert source_hash(pkg, COMPILED) != before
