#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// each CTA of a cluster writes its rank into shared memory, then reads its neighbour's (DSM)
extern "C" __global__ void __cluster_dims__(2,1,1) neighbour(int *out) {
    __shared__ int buf[128];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned r = cluster.block_rank();
    buf[threadIdx.x] = r * 1000 + threadIdx.x;
    cluster.sync();
    int *peer = cluster.map_shared_rank(buf, (r + 1) % cluster.num_blocks());
    out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x] + 100000 * cluster.dim_blocks().x;
    cluster.sync();
}
// histogram in distributed shared memory: bins spread over the CTAs of the cluster
extern "C" __global__ void dsm_hist(int *bins, const int *in, int n, int nbins) {
    extern __shared__ int smem[];
    cg::cluster_group cluster = cg::this_cluster();
    int per = nbins / cluster.num_blocks();
    for (int i = threadIdx.x; i < per; i += blockDim.x) smem[i] = 0;
    cluster.sync();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = in[i] % nbins;
        int *dst = cluster.map_shared_rank(smem, b / per);
        atomicAdd(dst + b % per, 1);
    }
    cluster.sync();
    int *lb = smem;
    for (int i = threadIdx.x; i < per; i += blockDim.x)
        atomicAdd(&bins[cluster.block_rank() * per + i], lb[i]);
}
