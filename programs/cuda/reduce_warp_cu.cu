// reduce_warp: *out += sum(in[0..n)) with warp-synchronous shuffles.
// Each thread sums a grid-stride slice; each warp reduces its lanes' sums with __shfl_down_sync
// (offsets warpSize/2 .. 1); lane 0 of every warp puts the warp's sum in shared memory; the first
// warp reduces those (blockDim.x / warpSize of them) the same way and thread 0 adds the block's sum
// to *out with atomicAdd. Uses the built-in warpSize (PTX: WARP_SZ) rather than a literal 32.
// Build: see build.sh (nvcc -arch=sm_90 -ptx -lineinfo)

__device__ float warp_sum(float v)
{
    for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

extern "C" __global__ void reduce_warp(const float* in, float* out, int n)
{
    __shared__ float warp_sums[32];
    unsigned int t = threadIdx.x;
    unsigned int lane = t % warpSize;
    unsigned int warp = t / warpSize;
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        sum += in[i];
    }
    sum = warp_sum(sum);
    if (lane == 0) {
        warp_sums[warp] = sum;
    }
    __syncthreads();
    if (warp == 0) {
        unsigned int nwarps = (blockDim.x + warpSize - 1) / warpSize;
        sum = lane < nwarps ? warp_sums[lane] : 0.0f;
        sum = warp_sum(sum);
        if (lane == 0) {
            atomicAdd(out, sum);
        }
    }
}
