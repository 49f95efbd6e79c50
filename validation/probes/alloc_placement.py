"""Probe (device only): where the CUDA driver puts a fresh process's arrays (numba.cuda `to_device`).

gpusim lays a launch's arrays out itself (gpusim/memory/device.py); on the GPU the driver does, and a kernel whose
time depends on an array's address modulo a few KiB (prog_histogram: its 1-KiB histogram on two L2 atomic units
when 1-KiB aligned, 27-29k cycles, on four at 512 B past one, 18.2k: probe_histogram_placement.json) runs as the
driver placed it. Each scenario runs in its own fresh process (a new context, nothing allocated before) and
prints every allocation's address modulo 2 MiB and its distance from the previous one:

- `histogram`: programs/histogram.py's arrays in the order its `run` passes them (1 Mi int32 values, then the
  256-bin histogram), as `gpusim.launch` or the recorder's launch copies them;
- `sizes`: a sequence of sizes (256 B to 8 MiB) to read the rule from (alignment, packing of small allocations,
  where large ones go).

    python3 validation/probes/alloc_placement.py --out validation/data/h100/probe_alloc_placement.json
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCENARIOS = {
    "histogram": [("data", 4 << 20), ("hist", 1024)],
    "histogram_again": [("data", 4 << 20), ("hist", 1024)],
    "sizes": [("a", 1024), ("b", 1024), ("c", 256), ("d", 100), ("e", 3000), ("f", 4 << 20), ("g", 1024),
              ("h", 64 << 10), ("i", 1 << 20), ("j", 2 << 20), ("k", 1024), ("l", 8 << 20), ("m", 512),
              ("n", 768)],
    "small_first": [("hist", 1024), ("data", 4 << 20)],
}


def inner(name: str) -> None:
    import numpy as np
    if not hasattr(np, "row_stack"):      # numba-cuda calls it at import; numpy 2.5 dropped it
        np.row_stack = np.vstack
    from numba import cuda
    keep, out, prev = [], [], None
    for label, size in SCENARIOS[name]:
        d = cuda.to_device(np.zeros(size, np.uint8))
        keep.append(d)
        p = int(d.device_ctypes_pointer.value)
        out.append({"array": label, "bytes": size, "mod_2mib": p % (2 << 20), "mod_4kib": p % 4096,
                    "from_previous": None if prev is None else p - prev})
        prev = p
    print(json.dumps(out))


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--inner":
        inner(sys.argv[2])
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from validation.probes._device import out_path, provenance, write
    path = out_path()
    runs = {}
    for name in SCENARIOS:
        runs[name] = []
        for _ in range(3):      # three fresh processes each
            r = subprocess.run([sys.executable, __file__, "--inner", name], capture_output=True, text=True, check=True)
            runs[name].append(json.loads(r.stdout.strip().splitlines()[-1]))
            print(name, runs[name][-1], flush=True)
    import numpy as np
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    write(path, {"probe": "alloc_placement", "description": __doc__.split("\n\n")[0], "runs": runs,
                 "provenance": provenance()})


if __name__ == "__main__":
    main()
