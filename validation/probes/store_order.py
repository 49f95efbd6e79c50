"""Probe (device only): does the L1 merge a warp's stores to the same lines whatever their order?

Each thread writes the four words of its own 16-byte element with four 4-byte stores (inline PTX
`st.global.u32`, one per asm statement), in one of four orders: rising (+0, +4, +8, +12, store_rows4's
SASS), scan (+4, +0, +8, +12, ptxas's order in ho_scan_exclusive), falling (+12, +8, +4, +0) and pairs (+8, +12,
+0, +4). A warp's four stores all write the same four 128-B lines. ncu counts the L2's write sectors
(`lts__t_sectors_op_write.sum`) against the L1's store sectors: 1.5 per store sector unmerged (a write to
the far partition is counted at a slice of each), 1.5 / k when k stores merge. The SASS of each kernel is
dumped (cuobjdump -sass) to check that ptxas kept the order. 528 x 256 threads.

    python3 validation/probes/store_order.py --out validation/data/h100/probe_store_order.json
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ORDERS = {"rising": (0, 4, 8, 12), "scan": (4, 0, 8, 12), "falling": (12, 8, 4, 0), "pairs": (8, 12, 0, 4)}
GRID, BLOCK = 528, 256
METRICS = ("lts__t_sectors_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,gpc__cycles_elapsed.max")


def source() -> str:
    out = []
    for name, offs in ORDERS.items():
        body = "\n".join(f'    asm volatile("st.global.u32 [%0+{o}], %1;" :: "l"(p), "r"(i + {o // 4}u) : "memory");'
                         for o in offs)
        out.append(f'extern "C" __global__ void order_{name}(unsigned* out) {{\n'
                   f"    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   f"    unsigned* p = out + 4 * i;\n{body}\n}}\n")
    return "\n".join(out)


def inner():
    import cupy as cp
    mod = cp.RawModule(code=source())
    n = GRID * BLOCK
    for name in ORDERS:
        buf = cp.zeros(4 * n, dtype=cp.uint32)
        mod.get_function(f"order_{name}")((GRID,), (BLOCK,), (buf,))
        cp.cuda.Device(0).synchronize()
        ok = bool((buf == cp.arange(4 * n, dtype=cp.uint32) // 4 + cp.arange(4 * n, dtype=cp.uint32) % 4).all())
        print(f"kernel {name} correct {ok}", flush=True)


def sass_orders() -> dict:
    """The STG offsets of each kernel in SASS order (nvcc -cubin, cuobjdump -sass)."""
    with tempfile.TemporaryDirectory() as d:
        cu = os.path.join(d, "k.cu")
        with open(cu, "w") as f:
            f.write(source())
        subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", os.path.join(d, "k.cubin"), cu], check=True)
        text = subprocess.run(["cuobjdump", "-sass", os.path.join(d, "k.cubin")], capture_output=True,
                              text=True).stdout
    orders, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : order_(\w+)", line)
        if m:
            cur = m.group(1)
            orders[cur] = []
        m = re.search(r"STG\.E[^\[]*\[[^\]]*\]\[R\d+\.64(?:\+(0x[0-9a-f]+))?\]", line)
        if m and cur:
            orders[cur].append(int(m.group(1) or "0", 16))
    return orders


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--inner", action="store_true")
    ap.add_argument("--out", default="probe_store_order.json")
    a = ap.parse_args()
    if a.inner:
        return inner()
    t0 = time.time()
    cmd = ["ncu", "--clock-control", "none", "--cache-control", "all", "-k", "regex:order_", "--metrics", METRICS,
           "--csv", "--print-units", "base", sys.executable, __file__, "--inner"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    per_kernel: dict = {}
    for r in rows:
        per_kernel.setdefault(r["Kernel Name"].split("(")[0].replace("order_", ""), {})[r["Metric Name"]] = \
            float(r["Metric Value"].replace(",", ""))
    sass = sass_orders()
    results = []
    for name, offs in ORDERS.items():
        m = per_kernel.get(name, {})
        st = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
        wr = m.get("lts__t_sectors_op_write.sum")
        results.append({"order": name, "ptx_offsets": list(offs), "sass_offsets": sass.get(name), **m,
                        "l2_write_sectors_per_store_sector": wr / st if wr and st else None})
    sh = lambda c: subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()  # noqa: E731
    out = {"provenance": {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                          "gpu": sh("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv"),
                          "ncu": sh("ncu --version | tail -1"), "nvcc": sh("nvcc --version | tail -1"),
                          "script": "validation/probes/store_order.py", "kernels": source(),
                          "grid": f"{GRID} x {BLOCK}", "wall_s": round(time.time() - t0, 1)},
           "results": results, "inner_output": [ln for ln in p.stdout.splitlines() if ln.startswith("kernel")],
           "ncu_stderr_tail": p.stderr[-2000:]}
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    for r in results:
        print(r)


if __name__ == "__main__":
    main()
