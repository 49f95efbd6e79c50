// Hopper-only microbenchmarks for gpusim validation: wgmma.mma_async (m64n128k16 f32.f16.f16, A and B from
// shared memory through descriptors, no swizzle) and mbarrier arrive + try_wait round trips.
// Compiled with: nvcc -gencode=arch=compute_90a,code=sm_90a -ptx hopper_bench.cu -o hopper_bench.ptx
// Record layout as tensor_bench.cu: clk[3*(block*W+warp)+{0,1,2}] = {clock64 before, after, %smid} (lane 0).
#include <cstdint>

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

// Matrix descriptor, no swizzle: start address >> 4 (bits 0-13), leading byte offset >> 4 (16-29),
// stride byte offset >> 4 (32-45), swizzle mode 0 (bits 62-63).
__device__ __forceinline__ uint64_t make_desc(unsigned saddr, unsigned lbo, unsigned sbo) {
    return (uint64_t)((saddr & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32);
}

#define WGMMA(d, da, db)                                                                              \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                          \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}" \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                                                                               \
                 : "l"(da), "l"(db), "r"(1))
#define FENCE()  asm volatile("wgmma.fence.sync.aligned;" ::: "memory")
#define COMMIT() asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory")
#define WAIT0()  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory")

// Shared: A = 64x16 f16 (2 KiB) at 0, B = 16x128 f16 (4 KiB) at 2048; 8 KiB filled from `in`.
// Each warpgroup (128 threads) has its own 64 accumulators per thread.
// wgmma_lat: per step fence; 1 wgmma; commit; wait_group 0  (a dependent chain through the accumulators).
// wgmma_tput: per step fence; NB wgmmas on the same accumulators; commit; wait_group 0.
template <int NB>
__device__ __forceinline__ void wgmma_body(const unsigned* in, float* sink, long long* clk, int iters) {
    __shared__ __align__(128) unsigned sm[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) sm[i] = in[i & 1023];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    unsigned s = (unsigned)__cvta_generic_to_shared(sm);
    uint64_t da = make_desc(s, 128, 256), db = make_desc(s + 2048, 128, 256);
    float d[64];
#pragma unroll
    for (int i = 0; i < 64; i++) d[i] = 0.f;
    long long t0 = clk64();
    for (int it = 0; it < iters; it++) {
        FENCE();
#pragma unroll
        for (int u = 0; u < NB; u++) WGMMA(d, da, db);
        COMMIT();
        WAIT0();
    }
    long long t1 = clk64();
    record(clk, t0, t1);
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < 64; i++) acc += d[i];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void wgmma_lat(const unsigned* in, float* sink, long long* clk, int iters) {
    wgmma_body<1>(in, sink, clk, iters);
}
extern "C" __global__ void wgmma_tput(const unsigned* in, float* sink, long long* clk, int iters) {
    wgmma_body<16>(in, sink, clk, iters);
}

// mbarrier round trip: an mbarrier expecting blockDim.x arrivals; each step every thread arrives and then
// spins on try_wait for that phase. Cycles per step = one full arrive -> phase flip -> observed round trip.
extern "C" __global__ void mbarrier_rt(const unsigned* in, float* sink, long long* clk, int iters) {
    __shared__ __align__(8) uint64_t bar;
    unsigned sb = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sb), "r"(blockDim.x) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    unsigned ok_total = 0;
    long long t0 = clk64();
    for (int it = 0; it < iters; it++) {
        uint64_t state;
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(sb) : "memory");
        unsigned ok = 0;
        while (!ok) {
            asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                         : "=r"(ok) : "r"(sb), "l"(state) : "memory");
        }
        ok_total += ok;
    }
    long long t1 = clk64();
    record(clk, t0, t1);
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (float)ok_total + (float)in[0] * 0.f;
}
