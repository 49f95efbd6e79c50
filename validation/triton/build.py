"""Compiles the Triton programs (programs/triton/*.py) here with gpusim.triton (Triton 3.9, sm_90) and writes,
per case, the PTX and a manifest entry (grid, block, dynamic shared memory, every kernel parameter) that the
device recorder (run_h100.py) and compare.py launch identically. Optionally checks each shipped PTX in gpusim's
functional mode against the program's numpy reference.

    .venv/bin/python validation/triton/build.py [--check] [case ...]

Arguments in the manifest: {"kind": "input", "key": K} (the program's inputs(size, seed=0)[K]; "transpose"
when the program passes a contiguous transposed copy), {"kind": "output", "key": K, "dtype", "shape"} (zeros;
checked against reference(inputs)[K]), {"kind": "zeros", ...} (a scratch buffer), {"kind": "null"} or
{"kind": "scalar", "value", "ptx_type"}.
"""
import hashlib
import importlib
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

import gpusim  # noqa: E402
import gpusim.triton as gt  # noqa: E402
from gpusim.triton import _given, _grid, _param_values  # noqa: E402
from gpusim.triton.compile import Reinterpreted  # noqa: E402

sys.path.insert(0, str(HERE))
from manifest_args import make_args  # noqa: E402

# The device's driver (580, CUDA 13.0) JITs PTX ISA up to 9.0; Triton 3.9 here would write `.version 9.4`
# (from its bundled ptxas) though its LLVM emits at most ptx90 features: compile with ptx_version=90.
PTX_VERSION = 90

# case -> (program module, size, extra run kwargs)
CASES = {
    "vecadd": ("vecadd", None, {}),
    "softmax": ("softmax", None, {}),
    "layernorm": ("layernorm", None, {}),
    "sum": ("sum", None, {}),
    "histogram": ("histogram", None, {}),
    "matmul": ("matmul", None, {}),
    "matmul_fp16": ("matmul_fp16", None, {}),
    "matmul_fp16_ns1": ("matmul_fp16", None, {"num_stages": 1}),
    "matmul_fp16_ns4": ("matmul_fp16", None, {"num_stages": 4}),
    "matmul_fp8": ("matmul_fp8", None, {}),
    "flash_attention": ("flash_attention", None, {}),
}


def program(name):
    return importlib.import_module(f"programs.triton.{name}")


def build_inputs(prog, size):
    return prog.inputs(size, seed=0)


def capture(case):
    """Run the program's host code with a launch that compiles and records instead of running."""
    modname, size, kw = CASES[case]
    prog = program(modname)
    size = size or prog.DEFAULT_SIZE
    inp = build_inputs(prog, size)
    launches = []

    def launch(fn, grid, *args, num_warps=4, num_stages=3, **meta):
        meta = dict(meta, ptx_version=PTX_VERSION)
        tk = gt.compile_for(fn, *args, num_warps=num_warps, num_stages=num_stages, **meta)
        bound = gt._split(fn, 90, args, dict(meta, num_warps=num_warps, num_stages=num_stages))[0]
        given = _given(fn, bound, args, meta)
        g = _grid(grid, given)
        g3 = g + (1,) * (3 - len(g))
        values = _param_values(tk, given, g3)
        launches.append((tk, g3, values))

    outs = prog.run(launch, inp, **kw)
    assert len(launches) == 1, f"{case}: {len(launches)} launches"
    tk, g3, values = launches[0]
    inputs_by_id = {}
    for k, v in inp.items():
        inputs_by_id[id(v)] = (k, None)
    params = tk.kernel.decoded.params
    args = []
    for p, v in zip(params, values):
        base = v.base if isinstance(v, Reinterpreted) else v
        if isinstance(base, np.ndarray):
            hit = [k for k, a in inp.items() if a is base]
            out_hit = [k for k, a in outs.items() if a is base]
            if hit:
                args.append({"kind": "input", "key": hit[0]})
            elif out_hit:
                assert not base.any() or True
                args.append({"kind": "output", "key": out_hit[0], "dtype": base.dtype.name,
                             "shape": list(base.shape)})
            else:
                # e.g. matmul_fp8's B^T copy
                tr = [k for k, a in inp.items() if a.shape == base.shape[::-1] and np.array_equal(a.T, base)]
                if tr:
                    args.append({"kind": "input", "key": tr[0], "transpose": True})
                else:
                    args.append({"kind": "zeros", "dtype": base.dtype.name, "shape": list(base.shape)})
        elif isinstance(v, int) and p.type in ("u64", "b64") and v == 0:
            args.append({"kind": "null", "ptx_type": p.type})
        else:
            args.append({"kind": "scalar", "value": v if not isinstance(v, np.generic) else v.item(),
                         "ptx_type": p.type})
    md = tk.metadata
    entry = {"program": modname, "module": f"programs.triton.{modname}", "size": size, "run_kwargs": kw,
             "kernel": tk.kernel.name, "ptx_file": f"{case}.ptx", "grid": list(g3), "block": 32 * tk.num_warps,
             "num_warps": tk.num_warps, "num_stages": int(md.num_stages), "shared": tk.shared,
             "global_scratch_size": int(getattr(md, "global_scratch_size", 0)),
             "rtol": prog.RTOL, "atol": prog.ATOL, "args": args,
             "ptx_params": [[p.name, p.type] for p in params]}
    return entry, tk.ptx


def check(entry, ptx_text, mode="functional"):
    prog = program(entry["program"])
    inp = build_inputs(prog, entry["size"])
    args, outs = make_args(entry, inp)
    from gpusim.kernels import PTXModule
    k = PTXModule(ptx_text, entry["ptx_file"])[entry["kernel"]]
    res = gpusim.launch(k, tuple(entry["grid"]), entry["block"], *args, gpu="h100", mode=mode,
                        shared_mem=entry["shared"])
    ref = prog.reference(inp)
    errs = []
    for key, arr in outs.items():
        ok = np.allclose(arr.astype(np.float64), ref[key].astype(np.float64), rtol=entry["rtol"],
                         atol=entry["atol"], equal_nan=True)
        errs.append((key, bool(ok), float(np.nanmax(np.abs(arr.astype(np.float64) - ref[key].astype(np.float64))))))
    return res, errs


def main():
    argv = sys.argv[1:]
    do_check = "--check" in argv
    names = [a for a in argv if not a.startswith("--")] or list(CASES)
    mpath = HERE / "manifest.json"
    manifest = json.loads(mpath.read_text()) if mpath.exists() else {}
    for case in names:
        t0 = time.time()
        entry, ptx = capture(case)
        (HERE / entry["ptx_file"]).write_text(ptx)
        entry["ptx_sha256"] = hashlib.sha256(ptx.encode()).hexdigest()
        manifest[case] = entry
        mpath.write_text(json.dumps(manifest, indent=1))
        msg = f"{case:18s} {entry['kernel']:22s} grid={entry['grid']} block={entry['block']} shared={entry['shared']}"
        if do_check:
            res, errs = check(entry, ptx)
            msg += f" check={errs}"
        print(msg, f"({time.time() - t0:.1f}s)", flush=True)


if __name__ == "__main__":
    main()
