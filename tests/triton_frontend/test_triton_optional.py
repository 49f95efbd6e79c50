"""gpusim.triton is optional: the core never imports Triton, and without it a launch says how to install it."""
import subprocess
import sys

import pytest

import gpusim.triton as gt
from gpusim.errors import GpusimError


def test_importing_gpusim_and_its_triton_front_end_does_not_import_triton():
    code = "import sys, gpusim, gpusim.launch, gpusim.triton; assert 'triton' not in sys.modules, 'imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_launch_without_triton_installed_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", None)        # import triton now raises ImportError
    with pytest.raises(GpusimError, match=r"pip install gpusim\[triton\]"):
        gt.jit_launch(lambda x: x, (1,), 1)
