"""Every example program gives its reference result under numba's CUDA simulator at SMALL_SIZE, and
gpusim's functional results agree with the simulator's on the same inputs.

Each program runs in its own process (validation/cudasim_run.py --check), because the simulator must
be chosen before numba is imported.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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
    _gpusim_agrees_with_cudasim(name, out)


def _gpusim_agrees_with_cudasim(name, npz_path):
    """gpusim's functional results equal numba's CUDA simulator's on the same inputs (integers and
    bit-exact programs exactly, float programs within the program's tolerance)."""
    import numpy as np

    import gpusim
    mod = all_programs()[name]
    data = np.load(npz_path)
    inp = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
    inp = {k: (v[()] if v.shape == () else v) for k, v in inp.items()}
    full = mod.inputs(mod.SMALL_SIZE)
    for k, v in full.items():     # scalars keep their numpy type; arrays come from the npz
        if k in inp and not isinstance(v, np.ndarray):
            inp[k] = type(v)(inp[k]) if isinstance(v, np.generic) else v
        inp.setdefault(k, v)
    ours = mod.run(lambda *a: gpusim.launch(*a, mode="functional"), inp)
    for key in ours:
        theirs = data[f"out:{key}"]
        if mod.RTOL == 0 and mod.ATOL == 0:
            np.testing.assert_array_equal(ours[key], theirs, err_msg=f"{name}:{key}")
        else:
            np.testing.assert_allclose(ours[key], theirs, rtol=2 * mod.RTOL, atol=2 * mod.ATOL, err_msg=f"{name}:{key}")
