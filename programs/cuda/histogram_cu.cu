// histogram: counts of int32 values by bin (value & 255) into hist[256].
// Each block keeps a private histogram in shared memory: threads clear it, synchronise, count their
// grid-stride slice with shared-memory atomicAdd, synchronise, and add the block's non-zero bins to
// the global histogram with global atomicAdd.
// Build: see build.sh (nvcc -arch=sm_90 -ptx -lineinfo)
#define BINS 256

extern "C" __global__ void histogram(const int* data, unsigned int* hist, int n)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&local[data[i] & (BINS - 1)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned int count = local[b];
        if (count > 0) {
            atomicAdd(&hist[b], count);
        }
    }
}
