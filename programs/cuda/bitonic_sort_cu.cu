// bitonic_sort: sorts each block's segment of 2 * blockDim.x floats ascending, in shared memory.
// blockDim.x must be a power of two. Every stage (size k = 2, 4, ..., SEG; stride j = k/2 .. 1) has
// each thread compare-exchange one pair (i, i + j), the direction set by bit k of i; the block
// synchronises between stages.
// Build: see build.sh (nvcc -arch=sm_90 -ptx -lineinfo)
#define THREADS 512
#define SEG (2 * THREADS)

extern "C" __global__ void bitonic_sort(float* data)
{
    __shared__ float s[SEG];
    unsigned int t = threadIdx.x;
    float* seg = data + blockIdx.x * SEG;
    s[t] = seg[t];
    s[t + THREADS] = seg[t + THREADS];
    __syncthreads();
    for (unsigned int k = 2; k <= SEG; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int i = 2 * t - (t & (j - 1));     // the lower index of this thread's pair
            unsigned int partner = i + j;
            bool ascending = (i & k) == 0;
            float a = s[i], b = s[partner];
            if ((a > b) == ascending) {
                s[i] = b;
                s[partner] = a;
            }
            __syncthreads();
        }
    }
    seg[t] = s[t];
    seg[t + THREADS] = s[t + THREADS];
}
