"""A CuPy stand-in for dry-running validation/triton/run_h100.py without a GPU (PYTHONPATH=validation/triton/_dry):
arrays are numpy, kernels run in gpusim functional mode (a copy of validation/tensor/_dry with 3-D grids)."""
import numpy as np

import gpusim

__version__ = "dry-run (gpusim)"
float32, int64, uint8, uint32 = np.float32, np.int64, np.uint8, np.uint32


def asarray(a):
    return np.array(a)


def asnumpy(a):
    return np.array(a)


def zeros(n, dtype):
    return np.zeros(n, dtype)


def empty(n, dtype):
    return np.empty(n, dtype)


class _Fn:
    def __init__(self, k):
        self.k = k

    def __call__(self, grid, block, args, shared_mem=0):
        gpusim.launch(self.k, tuple(grid), block[0], *args, shared_mem=shared_mem, gpu="h100", mode="functional")


class RawModule:
    def __init__(self, path):
        self.m = gpusim.load_ptx(path)

    def get_function(self, name):
        return _Fn(self.m[name])


class _Event:
    def record(self):
        pass

    def synchronize(self):
        pass


class _Runtime:
    @staticmethod
    def getDeviceProperties(i):
        return {"name": b"gpusim h100", "multiProcessorCount": 132}

    @staticmethod
    def runtimeGetVersion():
        return 0

    @staticmethod
    def driverGetVersion():
        return 0

    @staticmethod
    def deviceSynchronize():
        pass


class cuda:  # noqa: N801
    Event = _Event
    runtime = _Runtime

    @staticmethod
    def get_elapsed_time(a, b):
        return 1.0
