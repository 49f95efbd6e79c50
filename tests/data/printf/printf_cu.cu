#include <cstdio>
extern "C" __global__ void hello(const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) printf("thread %d of %u: x=%.2f %s %c %lld %5.1e %x%%\n", i, n, x[i], "ok", 'A' + i, (long long)i * 1000000000000LL, x[i] * 1000.0f, 255 + i);
}
