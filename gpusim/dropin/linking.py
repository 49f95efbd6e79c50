"""The PTX numba.cuda would load for a compiled kernel, linked without a driver.

numba-cuda compiles a kernel to PTX with NVVM and, at load time, links helper code into it: CUDA C
shims (the `cuda.fp16` intrinsics, array reshapes, the NRT), given as `.cu` sources that the driver
path compiles with NVRTC. NVRTC runs on the CPU, so gpusim compiles those sources the same way and
links by PTX text: the helper's function definitions replace the kernel module's `.extern .func`
declarations (gpusim's parser keeps definitions over declarations). Grid-wide cooperative-groups
synchronisation needs libcudadevrt, which is machine code only; it is refused by name.
"""
from __future__ import annotations

import os
import re

from gpusim.errors import GpusimError, UnsupportedInstruction
from gpusim.kernels import PTXModule

CC = (9, 0, "a")
_HEADER = re.compile(r"^\s*\.(version|target|address_size)\b.*$", re.M)
_CU_CACHE: dict = {}


def _source_text(obj) -> tuple[str, str]:
    """(kind, text) of one linking file: a path or a numba LinkableCode object."""
    if isinstance(obj, (str, os.PathLike)):
        path = str(obj)
        ext = os.path.splitext(path)[1].lower()
        with open(path, "rb") as f:
            data = f.read()
        return ext.lstrip("."), data.decode("utf-8", "replace")
    kind = getattr(obj, "kind", "")
    data = obj.data
    if hasattr(data, "getvalue"):
        data = data.getvalue()
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    return str(kind).lstrip("."), data


def _includes() -> list[str]:
    """The include path numba-cuda gives NVRTC (its headers, the toolkit's, CCCL, the NRT)."""
    import numba.cuda as cuda
    from cuda import pathfinder
    from numba.cuda.cuda_paths import get_cuda_paths
    from numba.cuda.cudadrv.nvrtc import _get_nvrtc_version
    root = os.path.dirname(os.path.abspath(cuda.__file__))
    out = [os.path.join(root, "include", str(_get_nvrtc_version()[0])), get_cuda_paths()["include_dir"].info]
    cccl = pathfinder.locate_nvidia_header_directory("cccl")
    if cccl is not None:
        out.append(cccl.abs_path)
    out.append(os.path.join(root, "memory_management"))
    return [d for d in out if d]


def _compile_cu(text: str, name: str) -> str:
    """CUDA C to PTX with NVRTC (the library numba-cuda uses; it needs no GPU or driver)."""
    hit = _CU_CACHE.get(text)
    if hit is not None:
        return hit
    from cuda.bindings import nvrtc
    err, prog = nvrtc.nvrtcCreateProgram(text.encode(), name.encode(), 0, [], [])
    opts = [f"--gpu-architecture=sm_{CC[0]}{CC[1]}{CC[2]}".encode(), b"-rdc=true"]
    opts += [f"-I{d}".encode() for d in _includes()]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise GpusimError(f"NVRTC could not compile the helper library {name} numba-cuda links: "
                          + log.decode(errors="replace").strip()[:2000])
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    buf = b" " * size
    nvrtc.nvrtcGetPTX(prog, buf)
    nvrtc.nvrtcDestroyProgram(prog)
    hit = buf.rstrip(b"\0 ").decode()
    _CU_CACHE[text] = hit
    return hit


# What gpusim links for libcudadevrt's grid synchronisation (cuda.cg.this_grid().sync()): the same
# algorithm, in PTX. Every thread of the CTA meets at a CTA barrier; thread (0,0,0) counts its CTA in
# at a grid-wide counter and spins (atomically re-reading it) until every CTA of the grid has come in
# since the barrier's last generation; a second CTA barrier lets the rest of the CTA go. It needs
# every CTA resident at once: a cooperative launch, which gpusim checks as cudaLaunchCooperativeKernel
# does.
GRID_SYNC_PTX = """
.global .align 4 .u32 __gpusim_grid_barrier;
.visible .func (.param .b64 func_retval0) cudaCGGetIntrinsicHandle(.param .b32 scope)
{
    .reg .b64 %rd<2>;
    mov.u64 %rd1, 1;
    st.param.b64 [func_retval0], %rd1;
    ret;
}
.visible .func (.param .b32 func_retval0) cudaCGSynchronize(.param .b64 handle, .param .b32 flags)
{
    .reg .pred %p<3>;
    .reg .b32 %r<14>;
    .reg .b64 %rd<2>;
    bar.sync 0;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %tid.z;
    or.b32 %r4, %r1, %r2;
    or.b32 %r4, %r4, %r3;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra GS_DONE;
    membar.gl;
    mov.u32 %r5, %nctaid.x;
    mov.u32 %r6, %nctaid.y;
    mov.u32 %r7, %nctaid.z;
    mul.lo.u32 %r8, %r5, %r6;
    mul.lo.u32 %r8, %r8, %r7;
    mov.u64 %rd1, __gpusim_grid_barrier;
    atom.global.add.u32 %r9, [%rd1], 1;
    div.u32 %r10, %r9, %r8;
    add.u32 %r10, %r10, 1;
    mul.lo.u32 %r10, %r10, %r8;
GS_SPIN:
    atom.global.add.u32 %r11, [%rd1], 0;
    setp.lt.u32 %p2, %r11, %r10;
    @%p2 bra GS_SPIN;
    membar.gl;
GS_DONE:
    bar.sync 0;
    mov.u32 %r12, 0;
    st.param.b32 [func_retval0], %r12;
    ret;
}
"""




def kernel_ptx(kernel) -> str:
    """Linked PTX text of a numba-cuda `_Kernel`."""
    lib = kernel._codelibrary
    parts = [lib.get_asm_str(cc=CC)]
    if getattr(lib, "needs_cudadevrt", False) or getattr(kernel, "cooperative", False):
        parts.append(GRID_SYNC_PTX)

    for obj in sorted(lib._linking_files, key=lambda o: str(getattr(o, "name", o))):
        kind, text = _source_text(obj)
        if kind == "cu":
            parts.append(_HEADER.sub("", _compile_cu(text, str(getattr(obj, "name", "shim.cu")))))
        elif kind == "ptx":
            parts.append(_HEADER.sub("", text))
        else:
            raise UnsupportedInstruction("link", f"{kernel.py_func.__name__}.ptx", 0, str(obj),
                                         f"linking a .{kind} file (only CUDA C sources and PTX can be linked "
                                         "without a GPU)")
    return "\n".join(parts)      # malloc/free/vprintf: gpusim.devrt, linked by PTXModule


def ptx_kernel(kernel):
    """The gpusim PTXKernel for a numba-cuda `_Kernel` (cached on it)."""
    k = getattr(kernel, "_gpusim_kernel", None)
    if k is None:
        mod = PTXModule(kernel_ptx(kernel), f"{kernel.py_func.__name__}.ptx")
        k = mod[kernel.entry_name]
        k.signature = tuple(kernel.argument_types)
        kernel._gpusim_kernel = k
    return k
