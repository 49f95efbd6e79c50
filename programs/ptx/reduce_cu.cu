// reduce_sum: *out += sum(in[0..n)), 256-thread blocks.
// Each thread sums a grid-stride slice, the block reduces the 256 partial sums with a shared-memory
// tree (__syncthreads between steps), and thread 0 adds the block's sum to *out with atomicAdd.
// Build: nvcc -arch=sm_90 -ptx -lineinfo reduce_cu.cu -o reduce_cu.ptx
#define BLOCK 256

extern "C" __global__ void reduce_sum(const float* in, float* out, int n)
{
    __shared__ float partial[BLOCK];
    unsigned int t = threadIdx.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) {
        sum += in[i];
    }
    partial[t] = sum;
    __syncthreads();
    for (unsigned int step = BLOCK / 2; step > 0; step >>= 1) {
        if (t < step) {
            partial[t] += partial[t + step];
        }
        __syncthreads();
    }
    if (t == 0) {
        atomicAdd(out, partial[0]);
    }
}
