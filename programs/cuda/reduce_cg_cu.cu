// reduce_cg: *out += sum(in[0..n)) for int32 values, written with cooperative groups
// (thread_block and tiled_partition; no grid sync).
// Each thread sums a grid-stride slice. The block is split into tiles of 16 threads
// (tiled_partition<16>: shuffles under a 16-lane mask); each tile reduces with tile.shfl_down and
// its rank-0 thread writes the tile's sum to shared memory. After block.sync() the first 32-thread
// tile (tiled_partition<32>) reduces the tile sums and its rank-0 thread atomically adds the result.
// Build: see build.sh (nvcc -arch=sm_90 -ptx -lineinfo)
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <unsigned int N>
__device__ int tile_sum(cg::thread_block_tile<N> tile, int v)
{
    for (int offset = tile.size() / 2; offset > 0; offset >>= 1) {
        v += tile.shfl_down(v, offset);
    }
    return v;
}

extern "C" __global__ void reduce_cg(const int* in, int* out, int n)
{
    __shared__ int tile_sums[64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + block.thread_rank(); i < n; i += gridDim.x * blockDim.x) {
        sum += in[i];
    }
    sum = tile_sum(tile16, sum);
    if (tile16.thread_rank() == 0) {
        tile_sums[tile16.meta_group_rank()] = sum;
    }
    block.sync();
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(block);
    if (tile32.meta_group_rank() == 0) {
        unsigned int ntiles = tile16.meta_group_size();
        sum = tile32.thread_rank() < ntiles ? tile_sums[tile32.thread_rank()] : 0;
        sum = tile_sum(tile32, sum);
        if (tile32.thread_rank() == 0) {
            atomicAdd(out, sum);
        }
    }
}
