"""`import gpusim.dropin.auto`: from here on, numba.cuda launches run on gpusim."""
from gpusim.dropin import enable

enable()
