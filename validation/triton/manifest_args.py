"""The launch arguments of a manifest entry (numpy only: shared by build.py, run_h100.py and compare.py)."""
import numpy as np


def make_args(entry, inp, np_mod=np, to_dev=lambda a: a):
    """The launch arguments from a manifest entry (numpy here; run_h100 passes cupy conversions)."""
    out = []
    outs = {}
    for a in entry["args"]:
        k = a["kind"]
        if k == "input":
            arr = inp[a["key"]]
            if a.get("transpose"):
                arr = np.ascontiguousarray(arr.T)
            out.append(to_dev(np.ascontiguousarray(arr)))
        elif k in ("output", "zeros"):
            arr = to_dev(np.zeros(a["shape"], a["dtype"]))
            if k == "output":
                outs[a["key"]] = arr
            out.append(arr)
        elif k == "null":
            out.append(np.uint64(0))
        else:
            t = a["ptx_type"]
            dt = {"u32": np.uint32, "s32": np.int32, "b32": np.int32, "u64": np.uint64, "s64": np.int64,
                  "b64": np.int64, "f32": np.float32, "f64": np.float64}[t]
            out.append(dt(a["value"]))
    return out, outs
