"""Runs the committed tensor-core / async-copy PTX in gpusim (h100 preset, timing mode) and compares the
in-kernel clock64 figures with the H100 recording in validation/data/h100/tensor/.

    .venv/bin/python validation/tensor/compare.py [--json OUT.json] [CASE-SUBSTRING ...]

gpusim runs each case with fewer iterations (`sim_iters`) and, for per-SM throughput cases, one block (the
H100 figure is per SM, one block per SM); the bandwidth cases keep the full grid. Instructions gpusim refuses
print "not supported".
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA = ROOT / "validation" / "data" / "h100" / "tensor"
sys.path.insert(0, str(HERE))
import cases as C  # noqa: E402

import gpusim  # noqa: E402
from gpusim.errors import UnsupportedInstruction  # noqa: E402


def load_h100():
    got = {}
    for mod in C.PTX_OF:
        p = DATA / f"{mod}.json"
        if p.exists():
            for name, e in json.loads(p.read_text())["cases"].items():
                got[name] = e
    return got


def run_sim(case, modules):
    mod = case["mod"]
    if mod not in modules:
        try:
            modules[mod] = gpusim.load_ptx(str(HERE / C.PTX_OF[mod]))
        except UnsupportedInstruction as e:
            modules[mod] = e
    m = modules[mod]
    if isinstance(m, Exception):
        raise m
    k = m[case["kernel"]]
    grid, block, iters = case["sim_grid"], case["block"], case["sim_iters"]
    sink = np.zeros(grid * block, np.float32)
    clk = np.zeros(3 * grid * max(1, block // 32) + 6, np.int64)
    inp = C.make_input(0)
    kw = dict(gpu="h100", mode="timing")
    if case["kernel"] == "cp_async_bw":
        n_words = grid * block * 4 * iters
        src = np.random.default_rng(1).integers(0, 1 << 32, n_words, dtype=np.uint64).astype(np.uint32)
        mask = (1 << 62) - 1            # dram: the array is sized to the run, no wrap
        if "l2" in case["name"]:        # gpusim: 8 MiB would be slow; wrap over 1 MiB (a power of two), 2x iters
            mask = (1 << int(np.log2(grid * block))) - 1
            iters = 2 * iters
        res = gpusim.launch(k, grid, block, src, sink, clk, np.int32(iters), np.uint64(mask),
                            shared_mem=4 * block * 16, **kw)
    elif case["kernel"] == "tma_bulk_bw":
        nchunks = grid * (iters + 4)
        if "l2" in case["name"]:        # gpusim: 8 MiB would be slow; wrap over 1 MiB
            nchunks = 128
        src = np.random.default_rng(1).integers(0, 256, nchunks * C.TMA_CHUNK, dtype=np.uint8)
        mask = nchunks - 1 if "l2" in case["name"] else (1 << 62) - 1
        res = gpusim.launch(k, grid, block, src, sink, clk, np.int32(iters), np.uint64(mask), **kw)
    elif case["kernel"] in ("dsm_lat", "smem_lat_c2"):
        res = gpusim.launch(k, grid, block, C.smem_chain(), sink, clk, np.int32(iters), **kw)
    elif case["kernel"] == "cp_async_lat":
        chain = C.chase_array(iters, 4096, seed=2)
        res = gpusim.launch(k, grid, block, chain, sink, clk, np.int32(iters), **kw)
    else:
        res = gpusim.launch(k, grid, block, inp, sink, clk, np.int32(iters), **kw)
    return C.derive(case, clk, iters, grid, block), res


def main():
    args = sys.argv[1:]
    out_json = None
    if "--json" in args:
        i = args.index("--json")
        out_json = args[i + 1]
        del args[i:i + 2]
    h100 = load_h100()
    modules = {}
    rows = []
    print(f"{'case':30s} {'unit':18s} {'H100':>10s} {'gpusim':>10s} {'ratio':>7s}")
    for case in C.all_cases():
        if args and not any(a in case["name"] for a in args):
            continue
        name = case["name"]
        h = h100.get(name, {})
        hf = h.get("figure_median")
        t0 = time.time()
        try:
            d, res = run_sim(case, modules)
            sf = C.figure(case, d)
            extra = d
        except UnsupportedInstruction as e:
            sf, extra = None, {"not_supported": str(e).splitlines()[0][:160]}
        except Exception as e:  # noqa: BLE001
            sf, extra = None, {"error": repr(e)[:300]}
            print(f"  {name}: gpusim error {e!r}"[:300])
        unit = C.UNITS[case["kind"]].split(" (")[0]
        hs = f"{hf:10.4g}" if hf is not None else f"{'n/a':>10s}"
        ss = f"{sf:10.4g}" if sf is not None else f"{'not supp.':>10s}"
        ratio = f"{sf / hf:7.2f}" if (sf is not None and hf) else f"{'':7s}"
        line = f"{name:30s} {unit:18s} {hs} {ss} {ratio}"
        if case["kind"] == "chase" and sf is not None:
            h1 = h.get("derived_median_repeat", {}).get("cycles_per_step_pass1")
            line += f"   pass1 (L2): H100 {h1 if h1 is None else round(h1, 1)} gpusim {d['cycles_per_step_pass1']:.1f}"
        print(line + f"   [{time.time() - t0:.1f}s]", flush=True)
        rows.append({"case": name, "unit": unit, "h100": hf, "gpusim": sf,
                     "ratio": (sf / hf if (sf is not None and hf) else None), "gpusim_derived": extra})
    if out_json:
        Path(out_json).write_text(json.dumps(rows, indent=1, default=float))


if __name__ == "__main__":
    main()
