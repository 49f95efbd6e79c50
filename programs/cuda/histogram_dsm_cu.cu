// Histogram in distributed shared memory (sm_90 thread-block clusters): the 1024 bins are spread over the
// shared memories of the 4 CTAs of a cluster (256 each); every thread adds its inputs to the bin's owner
// CTA through cluster.map_shared_rank (mapa + atom on a .shared::cluster address), and each CTA then adds
// its part to the global histogram. The CUDA C Programming Guide's distributed shared memory example.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define BINS 1024
#define CLUSTER 4
#define PER (BINS / CLUSTER)

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1)
histogram_dsm(const int* in, unsigned* bins, int n) {
    __shared__ unsigned part[PER];
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = threadIdx.x; i < PER; i += blockDim.x) part[i] = 0;
    cluster.sync();                       // every CTA's bins are zero before anyone adds to them
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = in[i] & (BINS - 1);
        unsigned* owner = cluster.map_shared_rank(part, b / PER);
        atomicAdd(owner + b % PER, 1u);
    }
    cluster.sync();                       // all additions landed; a CTA's shared memory must outlive them
    unsigned rank = cluster.block_rank();
    for (int i = threadIdx.x; i < PER; i += blockDim.x) atomicAdd(&bins[rank * PER + i], part[i]);
}
