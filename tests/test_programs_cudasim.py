"""Every example program gives its reference result under numba's CUDA simulator at SMALL_SIZE.

Each program runs in its own process (validation/cudasim_run.py --check), because the simulator must
be chosen before numba is imported.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "validation" / "cudasim_run.py"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from programs import all_programs  # noqa: E402


@pytest.mark.parametrize("name", sorted(all_programs()))
def test_program_matches_reference_under_cudasim(name, tmp_path):
    out = tmp_path / f"{name}.npz"
    cmd = [sys.executable, str(SCRIPT), "--program", name, "--check", "--out", str(out)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
    assert out.exists()
