"""Registers per thread of each recorded validation PTX (validation/data/h100/ptx) under several compile
paths, read back with cuFuncGetAttribute(NUM_REGS) on the H100: the driver's JIT (cuModuleLoadData on the
PTX), ptxas -O3 for sm_90 and sm_90a (whole program), and nvJitLink (-arch=sm_90; with -O3; with -lineinfo).
The numba linker entry failed in the recorded run (cuda.core ObjectCode is not bytes); numba's own count
is in each case's record (kernel.regs_per_thread). Run on the device from the repository root:
    python3 validation/probes/register_paths.py   (writes $OUT/regs.json)
"""
import glob
import json
import os
import re
import subprocess
import tempfile
import traceback

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
out = {"versions": {}, "cases": {}}
def sh(c):
    return subprocess.run(c, shell=True, capture_output=True, text=True).stdout
out["versions"]["pip"] = sh("python3 -m pip list 2>/dev/null | grep -i -E 'cuda|nvjit|numba|nvidia'")
out["versions"]["ptxas"] = sh("ptxas --version")
from cuda.bindings import driver as drv  # noqa: E402  (after numpy's row_stack alias, which numba needs)

try:
    from cuda.bindings import nvjitlink
    out["versions"]["nvjitlink"] = str(nvjitlink.version())
except Exception as e:
    nvjitlink = None
    out["versions"]["nvjitlink"] = repr(e)
drv.cuInit(0)
err, dev = drv.cuDeviceGet(0)
err, ctx = drv.cuDevicePrimaryCtxRetain(dev)
drv.cuCtxSetCurrent(ctx)
ATTR = drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS
def regs_of(image, names):
    err, mod = drv.cuModuleLoadData(image)
    if err != drv.CUresult.CUDA_SUCCESS:
        return {"error": str(err)}
    res = {}
    for n in names:
        e, fn = drv.cuModuleGetFunction(mod, n.encode())
        if e != drv.CUresult.CUDA_SUCCESS:
            res[n] = str(e)
            continue
        e, v = drv.cuFuncGetAttribute(ATTR, fn)
        res[n] = v
    drv.cuModuleUnload(mod)
    return res
def nvj(ptx, opts):
    h = nvjitlink.create(len(opts), opts)
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), "k.ptx")
    nvjitlink.complete(h)
    size = nvjitlink.get_linked_cubin_size(h)
    buf = bytearray(size)
    nvjitlink.get_linked_cubin(h, buf)
    nvjitlink.destroy(h)
    return bytes(buf)
numba_linker = None
try:
    from numba.cuda.cudadrv import driver as nd
    numba_linker = nd
    out["versions"]["numba_linker"] = repr(getattr(nd, "_Linker", None) or getattr(nd, "Linker", None))
except Exception as e:
    out["versions"]["numba_linker"] = repr(e)
for f in sorted(glob.glob("validation/data/h100/ptx/*.ptx")):
    case = os.path.basename(f)[:-4]
    text = open(f).read()
    names = re.findall(r"^\s*\.(?:visible\s+)?\.entry\s+(\S+?)\s*\(", text, re.M)
    ptx = text.encode() + b"\0"
    r = {}
    try:
        r["driver_jit"] = regs_of(ptx, names)
    except Exception as e:
        r["driver_jit"] = repr(e)
    for arch in ("sm_90", "sm_90a"):
        with tempfile.TemporaryDirectory() as t:
            p = subprocess.run(["ptxas", f"-arch={arch}", "-O3", f, "-o", f"{t}/k.cubin"],
                               capture_output=True, text=True)
            try:
                r[f"ptxas_{arch}"] = regs_of(open(f"{t}/k.cubin", "rb").read(), names)
            except Exception as e:
                r[f"ptxas_{arch}"] = repr(e) + p.stderr[-300:]
    if nvjitlink is not None:
        for key, opts in (("nvjitlink_sm90", ["-arch=sm_90"]), ("nvjitlink_sm90_O3", ["-arch=sm_90", "-O3"]),
                          ("nvjitlink_sm90_lineinfo", ["-arch=sm_90", "-lineinfo"])):
            try:
                r[key] = regs_of(nvj(text.encode(), opts), names)
            except Exception as e:
                r[key] = repr(e)[:300]
    if numba_linker is not None:
        try:
            L = getattr(numba_linker, "_Linker", None) or numba_linker.Linker
            lk = L.new(cc=(9, 0)) if hasattr(L, "new") else L(cc=(9, 0))
            lk.add_ptx(text.encode())
            cub = lk.complete()
            r["numba_linker"] = regs_of(bytes(cub), names)
            r["numba_linker_class"] = type(lk).__name__
        except Exception as e:
            r["numba_linker"] = repr(e)[:300] + traceback.format_exc()[-600:]
    out["cases"][case] = r
os.makedirs(os.environ.get("OUT", "/tmp"), exist_ok=True)
json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "regs.json"), "w"), indent=1)
print(json.dumps(out["versions"], indent=1))
c0 = next(iter(out["cases"].items()))
print(json.dumps(c0, indent=1)[:3000])
