"""The CUDA tools the SASS map runs (gpusim/sassmap.py): nvdisasm found, the PTX tagged with its own line numbers,
compiled by ptxas and disassembled with those lines and the control words."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from gpusim import ptxas
from gpusim.errors import LaunchError

FILE_INDEX = 1


def find_nvdisasm() -> str | None:
    """The nvdisasm executable: $GPUSIM_NVDISASM, the nvidia-cuda-nvdisasm wheel's (the `sass` extra),
    the one beside the ptxas in use (Triton bundles both), or PATH."""
    cands = [os.environ.get("GPUSIM_NVDISASM")]
    try:
        import nvidia
        for root in nvidia.__path__:
            cands += [str(Path(root) / "cu13" / "bin" / "nvdisasm"),
                      str(Path(root) / "cuda_nvdisasm" / "bin" / "nvdisasm")]
    except ImportError:
        pass
    exe = ptxas.find()
    if exe:
        cands.append(str(Path(exe).parent / "nvdisasm"))
    cands += [ptxas.triton_tool("nvdisasm"), shutil.which("nvdisasm")]
    return ptxas.first_executable(cands)


def tag_lines(text: str) -> str:
    """The PTX with each instruction line tagged `.loc 1 <its line> 0` and its own .file/.loc removed;
    every line keeps its number."""
    out, filed = [], False
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if re.match(r"\.(file|loc)\s", s):     # not .local
            out.append("")
            continue
        if not filed and (s.startswith(".address_size") or (s.startswith(".target") and ".address_size" not in text)):
            out.append(f'{line} .file {FILE_INDEX} "ptx"')
            filed = True
            continue
        # an instruction, or a scoped block of them on one line (inline asm's `{ .reg .pred p; setp...; }`)
        if s and (s[0].isalpha() or s[0] in "@{") and ";" in s and not s.endswith(":"):
            out.append(f".loc {FILE_INDEX} {i} 0 {line}")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def disassemble(exe: str, dis: str, tagged: str, arch: str, flags: tuple = ()) -> str:
    with tempfile.TemporaryDirectory(prefix="gpusim-sass-") as tmp:
        cubin = Path(tmp) / "k.cubin"
        p = ptxas.compile_to(exe, tagged, arch, cubin, ["-lineinfo", *flags])
        if p.returncode != 0:
            msg = (p.stderr or p.stdout).strip().splitlines()
            raise LaunchError(f"ptxas could not compile the line-tagged kernel for {arch} (model='sass'): "
                              f"{msg[-1] if msg else p.returncode}")
        q = subprocess.run([dis, "-g", "-hex", "-c", str(cubin)], capture_output=True, text=True, timeout=300)
        if q.returncode != 0:
            raise LaunchError(f"nvdisasm failed on the kernel (model='sass'): {q.stderr.strip()[-200:]}")
        return q.stdout
