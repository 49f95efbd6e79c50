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

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from validation.probes._device import ncu_out, ncu_record, under_ncu, write  # noqa: E402

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
    out = ncu_out(inner, "probe_store_order.json")
    if out is None:
        return
    t0 = time.time()
    launches, stdout, stderr = under_ncu(__file__, "regex:order_", METRICS)
    per_kernel = {name.replace("order_", ""): m for name, m in launches}
    sass = sass_orders()
    results = []
    for name, offs in ORDERS.items():
        m = per_kernel.get(name, {})
        st = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
        wr = m.get("lts__t_sectors_op_write.sum")
        results.append({"order": name, "ptx_offsets": list(offs), "sass_offsets": sass.get(name), **m,
                        "l2_write_sectors_per_store_sector": wr / st if wr and st else None})
    write(out, ncu_record("validation/probes/store_order.py", t0, results, stdout, stderr, "kernel",
                          kernels=source(), grid=f"{GRID} x {BLOCK}"))
    for r in results:
        print(r)


if __name__ == "__main__":
    main()
