"""ptxas as an oracle for what the GPU runs (the SASS model's first part, no GPU needed).

gpusim times PTX; the GPU runs what ptxas makes of it. `launch(..., model="sass")` asks ptxas for each
kernel's resources and times the launch with them: registers per thread (so occupancy is the
hardware's), the bytes of spill stores and loads (their traffic: gpusim/sm/lsu.py) and the stack frame.
What ptxas made of each PTX line is gpusim/sassmap.py's. The module is compiled as a whole program, as
the driver loads a launched one: on the 109 recorded H100 kernels this gives the launched function's
registers every time (validation/probes/register_paths.py); relocatable code (-c) differed on 14.

ptxas is looked for, in order: $GPUSIM_PTXAS, the `nvidia-cuda-nvcc` wheel's (the `sass` extra: CUDA
13.0's, the compiler the recorded H100's driver used), the one Triton bundles (the `triton` extra:
triton/backends/nvidia/bin/ptxas, CUDA 12.9's), and `ptxas` on PATH.
Results are cached per PTX text, architecture and ptxas version under the gpusim cache folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from gpusim.errors import LaunchError
from gpusim.jitcache import cache_root, write_atomic

MODELS = ("ptx", "sass")
_INFO = re.compile(r"Function properties for (\S+)|Compiling entry function '([^']+)'|"
                   r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads|"
                   r"Used (\d+) registers")


@dataclass(frozen=True)
class KernelResources:
    """What ptxas reports for one entry function."""
    registers: int
    spill_stores: int       # bytes per thread
    spill_loads: int        # bytes per thread
    stack: int              # bytes per thread


def find() -> str | None:
    """The ptxas executable to use, or None."""
    cands = [os.environ.get("GPUSIM_PTXAS")]
    try:
        import nvidia  # the nvidia-cuda-nvcc wheel: nvidia/cu13/bin (cu12: nvidia/cuda_nvcc/bin)
        for root in nvidia.__path__:
            cands += [str(Path(root) / "cu13" / "bin" / "ptxas"), str(Path(root) / "cuda_nvcc" / "bin" / "ptxas")]
    except ImportError:
        pass
    cands += [triton_tool("ptxas"), shutil.which("ptxas")]
    return first_executable(cands)


def triton_tool(name: str) -> str | None:
    """Where the Triton wheel keeps its copy of a CUDA tool (ptxas, nvdisasm), or None without Triton."""
    try:
        import triton
    except ImportError:
        return None
    return str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name)


def first_executable(cands: list) -> str | None:
    """The first of `cands` (paths, or None) that is an executable file."""
    return next((c for c in cands if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


def arch_for(cc: int, text: str) -> str:
    """ptxas's -arch for compute capability cc; sm_90a where the PTX targets it (wgmma, setmaxnreg)."""
    target = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
    if target and target.group(1).endswith("a") and target.group(1) == f"sm_{cc}a":
        return f"sm_{cc}a"
    return f"sm_{cc}"


def resources(text: str, arch: str, flags: tuple = ()) -> dict[str, KernelResources]:
    """{entry name: KernelResources} of a PTX module's kernels compiled for `arch` (cached); `flags`: more
    ptxas options (`register_limit`)."""
    exe = find()
    if exe is None:
        raise LaunchError("model='sass' needs ptxas: install gpusim[triton] (Triton bundles it) or the "
                          "nvidia-cuda-nvcc wheel, or set GPUSIM_PTXAS; model='ptx' needs nothing")
    version = tool_version(exe)
    key = hashlib.sha256(f"whole\0{version}\0{arch}\0{' '.join(flags)}\0{text}".encode()).hexdigest()[:24]
    path = cache_root() / "ptxas" / f"{key}.json"
    if path.exists():
        return {k: KernelResources(**v) for k, v in json.loads(path.read_text()).items()}
    with tempfile.TemporaryDirectory(prefix="gpusim-ptxas-") as tmp:
        p = compile_to(exe, text, arch, Path(tmp) / "k.cubin", ["-v", *flags])
    if p.returncode != 0:
        msg = (p.stderr or p.stdout).strip().splitlines()
        raise LaunchError(f"ptxas could not compile the kernel for {arch} (model='sass'): "
                          f"{msg[-1] if msg else p.returncode}")
    out = parse(p.stdout + p.stderr)
    write_atomic(path, json.dumps({k: asdict(v) for k, v in out.items()}))
    return out


def register_limit(n: int | None) -> tuple:
    """ptxas's options for a per-thread register limit (numba's `max_registers`, the driver JIT's
    CU_JIT_MAX_REGISTERS): none for None."""
    return () if not n else (f"-maxrregcount={int(n)}",)


def compile_to(exe: str, text: str, arch: str, cubin: Path, flags: list):
    """Run ptxas on `text` for `arch` into `cubin` (the CompletedProcess), as a whole program, as the
    driver loads a launched module: relocatable code (`-c`) follows the call ABI at every function
    boundary and gets other registers (bank_s01: 26 relocatable, 22 whole, as the H100 ran). A module
    that calls a function it does not define cannot be a whole program; it is compiled relocatable.
    A PTX ISA newer than this ptxas (e.g. CUDA 13's 9.0 against Triton's 12.9 ptxas) is compiled as
    the newest it knows: the kernels gpusim runs use nothing past the older ISA."""
    p = _compile_any(exe, text, arch, cubin, flags)
    newest = re.search(r"Unsupported \.version \S+; current version is '([\d.]+)'", p.stdout + p.stderr)
    if p.returncode != 0 and newest:
        p = _compile_any(exe, re.sub(r"^\s*\.version\s+\S+", f".version {newest.group(1)}", text, count=1,
                                     flags=re.M), arch, cubin, flags)
    return p


def _compile_any(exe: str, text: str, arch: str, cubin: Path, flags: list):
    p = _compile(exe, text, arch, cubin, flags)
    if p.returncode != 0 and "Unresolved extern" in p.stdout + p.stderr:
        p = _compile(exe, text, arch, cubin, [*flags, "-c"])
    return p


def _compile(exe: str, text: str, arch: str, cubin: Path, flags: list):
    src = cubin.with_suffix(".ptx")
    src.write_text(text)
    return subprocess.run([exe, f"-arch={arch}", *flags, str(src), "-o", str(cubin)],
                          capture_output=True, text=True, timeout=300)


def parse(info: str) -> dict[str, KernelResources]:
    """ptxas -v's report, per entry function."""
    out, name, frame = {}, None, (0, 0, 0)
    for m in _INFO.finditer(info):
        if m.group(1) or m.group(2):
            name = m.group(1) or m.group(2)
        elif m.group(3) is not None:
            frame = (int(m.group(3)), int(m.group(4)), int(m.group(5)))
        elif m.group(6) is not None and name is not None:
            out[name] = KernelResources(int(m.group(6)), frame[1], frame[2], frame[0])
            frame = (0, 0, 0)
    return out


def tool_version(exe: str) -> str:
    """The tail of `exe --version` (ptxas, nvdisasm): part of the cache keys."""
    try:
        return subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()[-80:]
    except (OSError, subprocess.SubprocessError):
        return exe
