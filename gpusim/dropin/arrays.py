"""Device arrays without a device: numba.cuda's array API over host memory.

A `DeviceArray` is a numpy array that stands for memory on the simulated GPU. Kernels receive it
like any array (gpusim copies it in and back around each launch, exactly as numba.cuda does for a
host array), and it answers the methods numba's DeviceNDArray has (copy_to_host, copy_to_device,
split, bind, is_c_contiguous, ...). Streams are accepted everywhere and run work in order.
"""
from __future__ import annotations

import contextlib

import numpy as np


class DeviceArray(np.ndarray):
    """An array in simulated device memory (numba.cuda's DeviceNDArray API)."""

    stream = 0

    def __array_finalize__(self, obj):
        self.stream = getattr(obj, "stream", 0)

    # numpy results computed from a device array are host arrays, as numba's are not arrays at all
    def __array_wrap__(self, arr, context=None, return_scalar=False):
        out = np.asarray(arr)
        return out[()] if return_scalar else out

    def transpose(self, *axes):
        """numba's device-array transpose: a 2-D array becomes a new C-contiguous array (numba runs a
        transpose kernel for it; here it is copied), not numpy's strided view."""
        axes = axes[0] if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))) else axes
        if axes and tuple(axes) == tuple(range(self.ndim)):
            return self
        if self.ndim != 2:
            raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
        if axes and set(axes) != set(range(self.ndim)):
            raise ValueError("invalid axes list %r" % (axes,))
        out = device_array(self.shape[::-1], self.dtype, stream=self.stream)
        out.view(np.ndarray)[...] = self.view(np.ndarray).T
        return out

    @property
    def T(self):
        return self.transpose()

    @property
    def alloc_size(self) -> int:
        return self.nbytes

    @property
    def gpu_data(self):
        return self

    @property
    def device_pointer(self):
        from gpusim.errors import GpusimError
        raise GpusimError("a raw device pointer (device_pointer) cannot be given out: gpusim's device memory "
                          "exists only during a launch; pass the array to the kernel instead")

    @property
    def device_ctypes_pointer(self):
        import ctypes
        return ctypes.c_void_p(self.ctypes.data)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "strides": None if self.flags.c_contiguous else self.strides,
                "typestr": self.dtype.str, "data": (self.ctypes.data, False), "version": 3,
                "stream": None}

    def copy_to_host(self, ary=None, stream=0):
        host = np.array(self, copy=True).view(np.ndarray)
        if ary is None:
            return host
        _check_same(self, ary)
        ary[...] = host.reshape(ary.shape) if ary.shape != host.shape else host
        return ary

    def copy_to_device(self, ary, stream=0):
        src = np.asarray(ary)
        if src.size != self.size or src.dtype.itemsize != self.dtype.itemsize and src.nbytes != self.nbytes:
            raise ValueError(f"incompatible shape or dtype: {src.shape} {src.dtype} -> {self.shape} {self.dtype}")
        np.copyto(self.view(np.ndarray), src.reshape(self.shape).astype(self.dtype, copy=False)
                  if src.dtype != self.dtype else src.reshape(self.shape))

    def to_host(self, stream=0):
        return self.copy_to_host(stream=stream)

    def is_c_contiguous(self) -> bool:
        return bool(self.flags.c_contiguous)

    def is_f_contiguous(self) -> bool:
        return bool(self.flags.f_contiguous)

    def bind(self, stream=0):
        out = self.view(type(self))
        out.stream = stream
        return out

    def split(self, section, stream=0):
        if self.ndim != 1:
            raise ValueError("only 1d array can be split")
        return [self[i:i + section] for i in range(0, self.size, section)]

    def get_ipc_handle(self):
        raise NotImplementedError("gpusim: CUDA IPC handles are not modelled (one simulated process)")

    @contextlib.contextmanager
    def as_cuda_arg(self, stream=0):
        yield self

    def _numba_type_(self):
        from numba import typeof
        return typeof(self.view(np.ndarray))


def _check_same(dev, host):
    if np.asarray(host).nbytes != dev.nbytes:
        raise ValueError(f"incompatible shape: device {dev.shape} {dev.dtype}, host {np.shape(host)}")


def to_device(obj, stream=0, copy=True, to=None):
    if to is not None:
        if copy:
            to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, DeviceArray):
        return obj
    a = np.array(obj, copy=True, order="K", subok=False) if copy else np.empty_like(np.asarray(obj))
    if a.ndim == 0 and a.dtype.names is None:
        a = a.reshape(())
    out = a.view(DeviceArray)
    out.stream = stream
    return out


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    a = np.empty(shape, dtype=dtype, order=order)
    if strides is not None and tuple(strides) != a.strides:
        strides = tuple(int(x) for x in strides)
        if len(strides) != a.ndim or any(x < 0 for x in strides):
            raise ValueError(f"strides {strides} do not fit an array of shape {a.shape}")
        extent = sum((n - 1) * x for n, x in zip(a.shape, strides)) + a.itemsize if a.size else 0
        a = np.ndarray(a.shape, a.dtype, buffer=np.zeros(max(extent, 1), np.uint8), strides=strides)
    out = a.view(DeviceArray)
    out.stream = stream
    return out


def device_array_like(ary, stream=0):
    """A new contiguous array like ary: numba's strides (a strided view's dimensions keep their
    order of strides, as numpy's empty_like does) and order."""
    from numba.cuda.api import _contiguous_strides_like_array, _order_like_array
    return device_array(ary.shape, ary.dtype, strides=_contiguous_strides_like_array(ary),
                        order=_order_like_array(ary), stream=stream)


def host_array(shape, dtype=np.float64, strides=None, order="C", **_):
    """pinned_array / mapped_array / managed_array: host memory the GPU can reach (here: all is)."""
    return device_array(shape, dtype, strides, order)


def host_array_like(ary, **_):
    return device_array_like(ary)


def is_cuda_array(obj) -> bool:
    return isinstance(obj, DeviceArray) or hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True):
    if isinstance(obj, DeviceArray):
        return obj
    if not hasattr(obj, "__cuda_array_interface__"):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    return np.asarray(obj).view(DeviceArray)


@contextlib.contextmanager
def pinned(*arylist):
    yield


@contextlib.contextmanager
def mapped(*arylist, **kws):
    views = [np.asarray(a).view(DeviceArray) for a in arylist]     # the host memory itself, as on a GPU
    yield views if len(views) > 1 else views[0]
