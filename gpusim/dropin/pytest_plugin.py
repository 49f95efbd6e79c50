"""`pytest -p gpusim.dropin.pytest_plugin`: run a numba.cuda test suite on gpusim."""
from gpusim.dropin import enable


def pytest_configure(config):
    enable()
