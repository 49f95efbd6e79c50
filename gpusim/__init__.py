"""gpusim: a cycle-approximate GPU simulator for PTX kernels, numba.cuda-style API."""
from gpusim import jitcache

jitcache.install()      # before any jitted module: compiled code is cached per version of the sources

from gpusim import launch as _launch_module  # noqa: E402
from gpusim.errors import GpusimError, KernelFault, LaunchError, PTXSyntaxError, UnsupportedInstruction  # noqa: E402
from gpusim.kernels import load_cuda, load_ptx  # noqa: E402
from gpusim.launch import LaunchResult, launch  # noqa: E402
from gpusim.presets import PRESETS, GPUSpec, get_preset  # noqa: E402


def _notebook_html(result) -> str:
    """LaunchResult._repr_html_ (Jupyter): the HTML report, imported on first use (bokeh, jinja2)."""
    from gpusim.html import notebook
    return notebook(result)


_launch_module.HTML_RENDERER.append(_notebook_html)

__all__ = ["launch", "load_ptx", "load_cuda", "LaunchResult", "GPUSpec", "PRESETS", "get_preset",
           "GpusimError", "KernelFault", "LaunchError", "PTXSyntaxError", "UnsupportedInstruction"]
__version__ = "0.1.0"
