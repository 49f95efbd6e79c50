// vecadd: c[i] = a[i] + b[i], one thread per element.
// Build: nvcc -arch=sm_90 -ptx -lineinfo vecadd_cu.cu -o vecadd_cu.ptx
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
