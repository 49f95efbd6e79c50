// polyval: y[i] = coeffs[0] + coeffs[1] x + ... + coeffs[degree] x^degree, with x = x[i].
// horner() is a real call (__noinline__) with a loop of `degree` steps; the kernel calls it from a
// grid-stride loop, so each thread evaluates several elements.
// Build: nvcc -arch=sm_90 -ptx -lineinfo poly_cu.cu -o poly_cu.ptx
__device__ __noinline__ float horner(const float* coeffs, int degree, float x)
{
    float acc = coeffs[degree];
    for (int k = degree - 1; k >= 0; --k) {
        acc = acc * x + coeffs[k];
    }
    return acc;
}

extern "C" __global__ void polyval(const float* x, const float* coeffs, float* y, int degree, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        y[i] = horner(coeffs, degree, x[i]);
    }
}
