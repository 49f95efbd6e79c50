// Thread-block cluster and TMA-unit microbenchmarks for gpusim validation: distributed shared memory (DSM)
// latency and bandwidth, barrier.cluster round trips, and cp.async.bulk (the TMA unit's non-tensor copies)
// global -> shared bandwidth. Cluster sizes are compiled in (__cluster_dims__), so a plain launch runs them.
// Compiled with: nvcc -gencode=arch=compute_90a,code=sm_90a -ptx cluster_bench.cu -o cluster_bench.ptx
// Record layout as tensor_bench.cu: clk[3*(block*W+warp)+{0,1,2}] = {clock64 before, after, %smid} (lane 0).
#include <cstdint>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ long long clk64() {
    long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}
__device__ __forceinline__ unsigned smid() {
    unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s;
}
__device__ __forceinline__ void record(long long* clk, long long t0, long long t1) {
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, W = blockDim.x >> 5;
    if (lane == 0) {
        size_t k = 3 * ((size_t)blockIdx.x * W + warp);
        clk[k] = t0; clk[k + 1] = t1; clk[k + 2] = smid();
    }
}

// Pointer chase through 4096 words of shared memory; `in` holds a random cycle (word i -> next index).
// rank 0's thread 0 chases the chain in the shared memory of rank `target` (0: its own; 1: DSM).
template <int TARGET>
__device__ __forceinline__ void chase_body(const unsigned* in, float* sink, long long* clk, int iters) {
    __shared__ unsigned chain[4096];
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) chain[i] = in[i];
    cluster.sync();
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        unsigned* far = cluster.map_shared_rank(chain, TARGET);
        unsigned j = 0;
        long long t0 = clk64();
        for (int it = 0; it < iters; it++) {
#pragma unroll
            for (int u = 0; u < 16; u++) j = far[j];
        }
        long long t1 = clk64();
        record(clk, t0, t1);
        sink[0] = (float)j;
    }
    cluster.sync();
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_lat(const unsigned* in, float* sink, long long* clk, int iters) {
    chase_body<1>(in, sink, clk, iters);
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) smem_lat_c2(const unsigned* in, float* sink, long long* clk, int iters) {
    chase_body<0>(in, sink, clk, iters);
}

// barrier.cluster.arrive + wait by every thread, iters times (per step: one round trip of the cluster barrier).
template <int N>
__device__ __forceinline__ void sync_body(float* sink, long long* clk, int iters) {
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    long long t0 = clk64();
    for (int it = 0; it < iters; it++) cluster.sync();
    long long t1 = clk64();
    record(clk, t0, t1);
    if (threadIdx.x == 0) sink[blockIdx.x] = (float)cluster.block_rank();
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_sync_c2(const unsigned* in, float* sink, long long* clk, int iters) {
    sync_body<2>(sink, clk, iters);
}
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_sync_c4(const unsigned* in, float* sink, long long* clk, int iters) {
    sync_body<4>(sink, clk, iters);
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) cluster_sync_c8(const unsigned* in, float* sink, long long* clk, int iters) {
    sync_body<8>(sink, clk, iters);
}

// DSM bandwidth: every thread of each CTA reads 16-byte words of its neighbour rank's 32 KiB buffer.
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_bw(const unsigned* in, float* sink, long long* clk, int iters) {
    __shared__ __align__(16) uint4 buf[2048];
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = threadIdx.x; i < 2048; i += blockDim.x)
        buf[i] = make_uint4(in[(4 * i) & 1023], in[(4 * i + 1) & 1023], in[(4 * i + 2) & 1023], in[(4 * i + 3) & 1023]);
    cluster.sync();
    const uint4* far = cluster.map_shared_rank(buf, cluster.block_rank() ^ 1);
    unsigned acc = 0;
    long long t0 = clk64();
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 8; u++) {
            uint4 v = far[(threadIdx.x + u * blockDim.x + it) & 2047];
            acc ^= v.x ^ v.y ^ v.z ^ v.w;
        }
    }
    long long t1 = clk64();
    record(clk, t0, t1);
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (float)acc;
    cluster.sync();
}

// cp.async.bulk global -> shared through the TMA unit: one thread per CTA keeps STAGES copies of CHUNK bytes
// in flight, each completing on its own mbarrier; the block waits on each stage in turn and re-issues it.
// src is a ring of (mask + 1) * CHUNK bytes; block b starts at chunk b.
#define CHUNK 8192
#define STAGES 4
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned n) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(n) : "memory");
}
__device__ __forceinline__ void bulk_g2s(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    asm volatile("{\n.reg .pred p;\nWAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra WAIT_%=;\n}" :: "r"(bar), "r"(parity) : "memory");
}
extern "C" __global__ void tma_bulk_bw(const unsigned char* src, float* sink, long long* clk, int iters,
                                       unsigned long long mask) {
    __shared__ __align__(128) unsigned char buf[STAGES][CHUNK];
    __shared__ __align__(8) unsigned long long bars[STAGES];
    unsigned b0 = (unsigned)__cvta_generic_to_shared(&bars[0]);
    unsigned s0 = (unsigned)__cvta_generic_to_shared(&buf[0][0]);
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) mbar_init(b0 + 8 * s, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    unsigned long long chunk = blockIdx.x;
    long long t0 = clk64();
    if (threadIdx.x == 0)
        for (int s = 0; s < STAGES; s++, chunk += gridDim.x)
            bulk_g2s(s0 + s * CHUNK, src + (chunk & mask) * CHUNK, CHUNK, b0 + 8 * s);
    unsigned acc = 0;
    for (int it = 0; it < iters; it++) {
        int s = it % STAGES;
        mbar_wait(b0 + 8 * s, (it / STAGES) & 1);
        acc ^= buf[s][threadIdx.x * 16];
        __syncthreads();
        if (threadIdx.x == 0 && it + STAGES < iters) {
            bulk_g2s(s0 + s * CHUNK, src + (chunk & mask) * CHUNK, CHUNK, b0 + 8 * s);
            chunk += gridDim.x;
        }
    }
    long long t1 = clk64();
    record(clk, t0, t1);
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (float)acc;
}
