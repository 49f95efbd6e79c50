"""Runs the recorded Triton PTX (validation/triton/*.ptx, the very files the H100 ran) in gpusim's timing
mode (h100 preset) with the manifest's launch and arguments, and compares gpusim's cycles with the H100's
`gpc__cycles_elapsed.max` (ncu, median of 5 launches after the checked one, caches flushed by ncu) from
validation/data/h100/triton/triton.json. Held-out: these numbers are never used for fitting.

    .venv/bin/python validation/triton/compare.py [--json OUT.json] [case ...]
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA = ROOT / "validation" / "data" / "h100" / "triton" / "triton.json"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import importlib  # noqa: E402

from manifest_args import make_args  # noqa: E402

import gpusim  # noqa: E402
from gpusim.kernels import PTXModule  # noqa: E402


def run_sim(e, model="ptx"):
    prog = importlib.import_module(e["module"])
    inp = prog.inputs(e["size"], seed=0)
    args, outs = make_args(e, inp)
    k = PTXModule((HERE / e["ptx_file"]).read_text(), e["ptx_file"])[e["kernel"]]
    res = gpusim.launch(k, tuple(e["grid"]), e["block"], *args, gpu="h100", mode="timing",
                        shared_mem=e["shared"], model=model)
    ref = prog.reference(inp)
    ok = all(np.allclose(a.astype(np.float64), ref[key].astype(np.float64), rtol=e["rtol"], atol=e["atol"])
             for key, a in outs.items())
    return int(res.cycles), ok


def main():
    argv = sys.argv[1:]
    out_json, model = None, "ptx"
    if "--model" in argv:
        i = argv.index("--model")
        model = argv[i + 1]
        del argv[i:i + 2]
    if "--json" in argv:
        i = argv.index("--json")
        out_json = argv[i + 1]
        del argv[i:i + 2]
    manifest = json.loads((HERE / "manifest.json").read_text())
    h100 = json.loads(DATA.read_text())["cases"]
    names = argv or list(manifest)
    rows = []
    print(f"{'case':18s} {'H100 cycles':>12s} {'gpusim':>10s} {'error %':>8s} {'sim ok':>6s} {'secs':>6s}")
    for name in names:
        e = manifest[name]
        hw = h100.get(name, {}).get("gpc_cycles_median")
        t0 = time.time()
        try:
            sim, ok = run_sim(e, model)
        except Exception as ex:  # noqa: BLE001
            print(f"{name:18s} {hw!s:>12s}  gpusim error: {ex!r}"[:200], flush=True)
            rows.append({"case": name, "h100_cycles": hw, "error": repr(ex)})
            continue
        err = 100.0 * (sim - hw) / hw if hw else None
        rows.append({"case": name, "h100_cycles": hw, "gpusim_cycles": sim, "error_pct": err, "sim_ok": ok,
                     "seconds": round(time.time() - t0, 1)})
        print(f"{name:18s} {hw:12.0f} {sim:10d} {err:+8.1f} {str(ok):>6s} {time.time() - t0:6.1f}", flush=True)
    errs = np.array([abs(r["error_pct"]) for r in rows if r.get("error_pct") is not None])
    if len(errs):
        worst = max((r for r in rows if r.get("error_pct") is not None), key=lambda r: abs(r["error_pct"]))
        print(f"\n{len(errs)} programs: MAPE {errs.mean():.1f}%  p90 {np.percentile(errs, 90):.1f}%  "
              f"worst {worst['case']} {worst['error_pct']:+.1f}%")
    if out_json:
        Path(out_json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
