// scan: inclusive prefix sum of int32 values within each block's segment of 2 * blockDim.x elements
// (Blelloch's work-efficient scan in shared memory), and each segment's total in sums[blockIdx.x].
// Up-sweep builds partial sums in a tree, the root is cleared, the down-sweep turns the tree into an
// exclusive scan, and each thread adds its original elements back to make the scan inclusive.
// Build: see build.sh (nvcc -arch=sm_90 -ptx -lineinfo)
#define THREADS 256
#define SEG (2 * THREADS)

extern "C" __global__ void scan_blelloch(const int* in, int* out, int* sums, int n)
{
    __shared__ int s[SEG];
    int t = threadIdx.x;
    int base = blockIdx.x * SEG;
    int a = base + 2 * t < n ? in[base + 2 * t] : 0;
    int b = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0;
    s[2 * t] = a;
    s[2 * t + 1] = b;
    int offset = 1;
    for (int d = SEG >> 1; d > 0; d >>= 1) {        // up-sweep
        __syncthreads();
        if (t < d) {
            int i = offset * (2 * t + 1) - 1;
            int j = offset * (2 * t + 2) - 1;
            s[j] += s[i];
        }
        offset <<= 1;
    }
    if (t == 0) {
        sums[blockIdx.x] = s[SEG - 1];
        s[SEG - 1] = 0;
    }
    for (int d = 1; d < SEG; d <<= 1) {             // down-sweep
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int i = offset * (2 * t + 1) - 1;
            int j = offset * (2 * t + 2) - 1;
            int left = s[i];
            s[i] = s[j];
            s[j] += left;
        }
    }
    __syncthreads();
    if (base + 2 * t < n) out[base + 2 * t] = s[2 * t] + a;
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = s[2 * t + 1] + b;
}
