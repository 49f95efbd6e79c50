"""gpusim: a cycle-approximate GPU simulator for PTX kernels, numba.cuda-style API."""
from gpusim.errors import GpusimError, KernelFault, LaunchError, PTXSyntaxError, UnsupportedInstruction
from gpusim.kernels import load_cuda, load_ptx
from gpusim.launch import LaunchResult, launch
from gpusim.presets import PRESETS, GPUSpec, get_preset

__all__ = ["launch", "load_ptx", "load_cuda", "LaunchResult", "GPUSpec", "PRESETS", "get_preset",
           "GpusimError", "KernelFault", "LaunchError", "PTXSyntaxError", "UnsupportedInstruction"]
__version__ = "0.1.0"
