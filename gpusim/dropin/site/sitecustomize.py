"""Python runs this at start-up when this folder is on PYTHONPATH (`gpusim python` puts it there, and
so does `gpusim dropin-env`): with GPUSIM_DROPIN=1, numba.cuda launches of this process, and of the
Python processes it starts, run on gpusim. A sitecustomize this one shadows still runs."""
import os
import sys

if os.environ.get("GPUSIM_DROPIN", "0") not in ("", "0"):
    import gpusim.dropin
    gpusim.dropin.enable()

_here = os.path.dirname(os.path.abspath(__file__))
for _p in sys.path:
    _f = os.path.join(_p, "sitecustomize.py")
    if os.path.abspath(_p or ".") != _here and os.path.isfile(_f):
        with open(_f) as _fh:
            exec(compile(_fh.read(), _f, "exec"), {"__name__": "sitecustomize", "__file__": _f})
        break
