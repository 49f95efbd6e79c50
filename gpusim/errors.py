"""User-facing errors. Each carries a one-line message meant to be printed without a traceback."""
from __future__ import annotations


class GpusimError(Exception):
    """Base of every error caused by user input (PTX, arguments, config) rather than a gpusim bug."""


class PTXSyntaxError(GpusimError):
    def __init__(self, msg: str, file: str, line: int, col: int, text: str = ""):
        self.file, self.line, self.col, self.text = file, line, col, text
        where = f"{file}:{line}:{col}"
        super().__init__(f"{where}: {msg}" + (f"\n    {text.strip()}" if text else ""))


class UnsupportedInstruction(GpusimError):
    def __init__(self, opcode: str, file: str, line: int, text: str = "", why: str = ""):
        self.opcode, self.file, self.line = opcode, file, line
        extra = f" ({why})" if why else ""
        super().__init__(f"{file}:{line}: unsupported instruction '{opcode}'{extra}"
                         + (f"\n    {text.strip()}" if text else ""))


class LaunchError(GpusimError):
    """Bad launch parameters or arguments."""


class LaunchBoundsError(LaunchError):
    """A block the kernel's launch bounds (.maxntid / .reqntid) exclude: the driver refuses the launch
    with CUDA_ERROR_INVALID_VALUE."""


class ConfigError(GpusimError):
    """A bad preset or override; the message names the key path."""


class KernelFault(GpusimError):
    """The simulated kernel did something a GPU would fault on (bad address, deadlock, runaway)."""
