"""`gpusim python SCRIPT` and `gpusim dropin-path`: unchanged numba.cuda programs on gpusim (gpusim.dropin)."""
from __future__ import annotations

import sys

from gpusim.errors import GpusimError
from gpusim.presets import get_preset
from gpusim.textfmt import qualified_name


def cmd_python(args):
    """Run a script as `python script.py args` would, with numba.cuda launches on gpusim."""
    import os
    import runpy

    import gpusim.dropin as dropin
    if not os.path.isfile(args.script):
        raise GpusimError(f"{args.script}: no such script")
    gpu = get_preset(args.gpu) if args.gpu else None
    dropin.enable(gpu=gpu, mode=args.mode)
    env = dropin.child_env()        # Python processes the script starts run on gpusim too
    if args.gpu:
        env["GPUSIM_GPU"] = args.gpu
    os.environ.update(env)
    sys.argv = [args.script] + list(args.script_args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
    code = 0
    with dropin.recording() as runs:
        try:
            runpy.run_path(args.script, run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    if not args.quiet and runs:
        print(f"gpusim: {len(runs)} kernel launch(es) on {runs[0].gpu} ({runs[0].mode} mode)", file=sys.stderr)
        for r in runs[:20]:
            cyc = f"{r.cycles:>12,} cycles" if r.mode == "timing" else ""
            print(f"  {qualified_name(r.kernel)[:40]:40s} grid {r.grid} block {r.block} "
                  f"{r.warp_instructions:>12,} warp-inst {cyc}", file=sys.stderr)
        if len(runs) > 20:
            print(f"  ... and {len(runs) - 20} more", file=sys.stderr)
    return code


def cmd_dropin_path(args):
    """The folder whose sitecustomize.py turns the drop-in on where GPUSIM_DROPIN=1."""
    import gpusim.dropin as dropin
    print(dropin.site_dir())
    return 0
