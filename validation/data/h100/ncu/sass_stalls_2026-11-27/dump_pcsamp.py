"""Per-PC dump of every instanced metric (PC-sampling stall reasons included) of each .ncu-rep in a folder,
through Nsight Compute's Python report interface (ncu_report). One CSV per report: <name>.pcsamp.csv with
columns pc, sass, then one column per instanced metric (correlation id = PC). Usage: dump_pcsamp.py REPDIR OUTDIR"""
import csv
import sys
from pathlib import Path

import ncu_report

rep_dir, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
for rep in sorted(rep_dir.glob("*.ncu-rep")):
    ctx = ncu_report.load_report(str(rep))
    for ri in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(ri)
        for ai in range(rng.num_actions()):
            act = rng.action_by_idx(ai)
            names = sorted(act.metric_names())
            per_pc, cols, scalars = {}, [], {}
            for n in names:
                m = act.metric_by_name(n)
                try:
                    ni = m.num_instances()
                except Exception:  # noqa: BLE001
                    ni = 0
                if "pcsamp" in n or "stall" in n:
                    try:
                        scalars[n] = m.as_double() if ni == 0 else None
                    except Exception:  # noqa: BLE001
                        scalars[n] = None
                if ni <= 0 or not m.has_correlation_ids():
                    continue
                cid = m.correlation_ids()
                cols.append(n)
                for i in range(ni):
                    pc = cid.as_uint64(i)
                    try:
                        v = m.as_uint64(i)
                    except Exception:  # noqa: BLE001
                        v = m.as_double(i)
                    per_pc.setdefault(pc, {})[n] = v
            tag = rep.stem + (f"_r{ri}a{ai}" if (ctx.num_ranges() > 1 or rng.num_actions() > 1) else "")
            path = out_dir / f"{tag}.pcsamp.csv"
            with path.open("w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["pc", "sass"] + cols)
                for pc in sorted(per_pc):
                    try:
                        s = act.sass_by_pc(pc)
                    except Exception:  # noqa: BLE001
                        s = ""
                    w.writerow([hex(pc), s] + [per_pc[pc].get(c, "") for c in cols])
            with (out_dir / f"{tag}.pcsamp_scalars.csv").open("w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["metric", "value"])
                for k, v in scalars.items():
                    w.writerow([k, v])
            print(f"{rep.name} r{ri} a{ai} {act.name()}: {len(per_pc)} PCs, {len(cols)} instanced metrics: "
                  + ", ".join(c for c in cols if "pcsamp" in c)[:3000])
