// 128-bit integer arithmetic as nvcc compiles it (tests/isa/test_isa_b128.py runs int128.ptx).
// Regenerate: nvcc -arch=sm_90 -ptx int128.cu -o int128.ptx
__global__ void int128_ops(const __int128 *a, const __int128 *b, const unsigned *s, __int128 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __int128 x = a[i], y = b[i];
    unsigned k = s[i] & 127;
    out[8 * i + 0] = x + y;
    out[8 * i + 1] = x - y;
    out[8 * i + 2] = x * y;
    out[8 * i + 3] = (__int128)((unsigned __int128)x << k);
    out[8 * i + 4] = x >> k;                                  // arithmetic
    out[8 * i + 5] = (__int128)((unsigned __int128)x >> k);   // logical
    out[8 * i + 6] = (__int128)((unsigned __int128)x / 1000003u);
    out[8 * i + 7] = (x < y) + 2 * (x == y) + 4 * ((unsigned __int128)x < (unsigned __int128)y);
}
