"""An unchanged numba.cuda script (nothing gpusim-specific in it)."""
import sys

import numpy as np
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


n = int(sys.argv[1])
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
d_x, d_y = cuda.to_device(x), cuda.to_device(y)
d_out = cuda.device_array_like(x)
saxpy[(n + 127) // 128, 128](np.float32(2.0), d_x, d_y, d_out)
cuda.synchronize()
out = d_out.copy_to_host()
assert np.array_equal(out, 2 * x + y), out
print("ok", out[:3].tolist())
