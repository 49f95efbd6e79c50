// Tensor-core and async-copy microbenchmarks for gpusim validation (mma.sync, ldmatrix, cp.async).
// Compiled with: nvcc -gencode=arch=compute_90a,code=sm_90a -ptx tensor_bench.cu -o tensor_bench.ptx
// Every kernel writes, per warp w of block b, clk[3*(b*W+w)+{0,1,2}] = {clock64 before, clock64 after, %smid}
// (lane 0 only), and folds its results into sink[] so that nothing is dead.
// `iters` is the outer (runtime) loop count; each outer iteration runs UNROLL instructions per chain.
#include <cstdint>

#define UNROLL 16

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

// ---------------------------------------------------------------- mma.sync
#define MMA_F32ACC(SHAPE_TYPES, d, a, b)                                                              \
    asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                       \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_S32ACC(SHAPE_TYPES, d, a, b)                                                              \
    asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                       \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_F64(d, a, b)                                                                              \
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"       \
                 : "+d"(d[0]), "+d"(d[1]) : "d"(a), "d"(b))

// One kernel per (type, chains): CH independent accumulator chains per warp, all using the same A, B.
#define MMA_KERNEL_F32(NAME, SHAPE_TYPES, CH)                                                        \
extern "C" __global__ void NAME(const unsigned* in, float* sink, long long* clk, int iters) {       \
    unsigned lane = threadIdx.x & 31;                                                                \
    unsigned a[4], b[2];                                                                             \
    for (int i = 0; i < 4; i++) a[i] = in[lane * 8 + i];                                             \
    for (int i = 0; i < 2; i++) b[i] = in[lane * 8 + 4 + i];                                         \
    float d[CH][4];                                                                                  \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 4; i++) d[c][i] = __uint_as_float(in[256 + lane * 4 + i]) * (c + 1); \
    long long t0 = clk64();                                                                          \
    for (int it = 0; it < iters; it++) {                                                             \
        _Pragma("unroll") for (int u = 0; u < UNROLL; u++) {                                         \
            _Pragma("unroll") for (int c = 0; c < CH; c++) MMA_F32ACC(SHAPE_TYPES, d[c], a, b);      \
        }                                                                                            \
    }                                                                                                \
    long long t1 = clk64();                                                                          \
    record(clk, t0, t1);                                                                             \
    float s = 0.f;                                                                                   \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 4; i++) s += d[c][i];                           \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = s;                                                 \
}
#define MMA_KERNEL_S32(NAME, SHAPE_TYPES, CH)                                                        \
extern "C" __global__ void NAME(const unsigned* in, float* sink, long long* clk, int iters) {       \
    unsigned lane = threadIdx.x & 31;                                                                \
    unsigned a[4], b[2];                                                                             \
    for (int i = 0; i < 4; i++) a[i] = in[lane * 8 + i];                                             \
    for (int i = 0; i < 2; i++) b[i] = in[lane * 8 + 4 + i];                                         \
    int d[CH][4];                                                                                    \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 4; i++) d[c][i] = (int)(in[256 + lane * 4 + i] & 255) * (c + 1); \
    long long t0 = clk64();                                                                          \
    for (int it = 0; it < iters; it++) {                                                             \
        _Pragma("unroll") for (int u = 0; u < UNROLL; u++) {                                         \
            _Pragma("unroll") for (int c = 0; c < CH; c++) MMA_S32ACC(SHAPE_TYPES, d[c], a, b);      \
        }                                                                                            \
    }                                                                                                \
    long long t1 = clk64();                                                                          \
    record(clk, t0, t1);                                                                             \
    int s = 0;                                                                                       \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 4; i++) s += d[c][i];                           \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (float)s;                                          \
}
#define MMA_KERNEL_F64(NAME, CH)                                                                     \
extern "C" __global__ void NAME(const unsigned* in, float* sink, long long* clk, int iters) {       \
    unsigned lane = threadIdx.x & 31;                                                                \
    double a = (double)(in[lane * 8] & 255) * 0.001, b = (double)(in[lane * 8 + 4] & 255) * 0.001;   \
    double d[CH][2];                                                                                 \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 2; i++) d[c][i] = (double)(in[256 + lane * 4 + i] & 255) * (c + 1); \
    long long t0 = clk64();                                                                          \
    for (int it = 0; it < iters; it++) {                                                             \
        _Pragma("unroll") for (int u = 0; u < UNROLL; u++) {                                         \
            _Pragma("unroll") for (int c = 0; c < CH; c++) MMA_F64(d[c], a, b);                      \
        }                                                                                            \
    }                                                                                                \
    long long t1 = clk64();                                                                          \
    record(clk, t0, t1);                                                                             \
    double s = 0.0;                                                                                  \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 2; i++) s += d[c][i];                           \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (float)s;                                          \
}

// Varied operands: before every mma z = in[1023] is added to the A and B registers; the host sets it to
// 0. Each chain has its own B (loaded from distinct words), so no two chains share a product. ptxas cannot
// prove z == 0, so it can neither hoist A*B out of the loop nor share it: with constant A and B it turns the emulated e4m3 mma (sm_90 has no native fp8 mma.sync: F2FP + HMMA) into one hoisted
// product and an FADD chain (kernels mma_e4m3_c1/_c4, kept to show it). The adds are off the C chain (an xor
// would not do: x ^ z ^ z = x, and ptxas folds it).
#define MMA_KERNEL_F32V(NAME, SHAPE_TYPES, CH)                                                       \
extern "C" __global__ void NAME(const unsigned* in, float* sink, long long* clk, int iters) {       \
    unsigned lane = threadIdx.x & 31;                                                                \
    unsigned a[4], b[CH][2], z = in[1023];                                                           \
    for (int i = 0; i < 4; i++) a[i] = in[lane * 8 + i];                                             \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 2; i++) b[c][i] = in[512 + c * 64 + lane * 2 + i]; \
    float d[CH][4];                                                                                  \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 4; i++) d[c][i] = __uint_as_float(in[256 + lane * 4 + i]) * (c + 1); \
    long long t0 = clk64();                                                                          \
    for (int it = 0; it < iters; it++) {                                                             \
        _Pragma("unroll") for (int u = 0; u < UNROLL; u++) {                                         \
            a[0] += z; a[1] += z; a[2] += z; a[3] += z;                                              \
            _Pragma("unroll") for (int c = 0; c < CH; c++) {                                         \
                b[c][0] += z; b[c][1] += z;                                                          \
                MMA_F32ACC(SHAPE_TYPES, d[c], a, b[c]);                                              \
            }                                                                                        \
        }                                                                                            \
    }                                                                                                \
    long long t1 = clk64();                                                                          \
    record(clk, t0, t1);                                                                             \
    float s = 0.f;                                                                                   \
    for (int c = 0; c < CH; c++) for (int i = 0; i < 4; i++) s += d[c][i];                           \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = s;                                                 \
}

#define F16T  "m16n8k16.row.col.f32.f16.f16.f32"
#define BF16T "m16n8k16.row.col.f32.bf16.bf16.f32"
#define TF32T "m16n8k8.row.col.f32.tf32.tf32.f32"
#define E4M3T "m16n8k32.row.col.f32.e4m3.e4m3.f32"
#define S8T   "m16n8k32.row.col.s32.s8.s8.s32"

// latency: one chain; throughput: 4 independent chains per warp
MMA_KERNEL_F32(mma_f16_c1, F16T, 1)
MMA_KERNEL_F32(mma_f16_c4, F16T, 4)
MMA_KERNEL_F32(mma_bf16_c1, BF16T, 1)
MMA_KERNEL_F32(mma_bf16_c4, BF16T, 4)
MMA_KERNEL_F32(mma_tf32_c1, TF32T, 1)
MMA_KERNEL_F32(mma_tf32_c4, TF32T, 4)
MMA_KERNEL_F32(mma_e4m3_c1, E4M3T, 1)
MMA_KERNEL_F32(mma_e4m3_c4, E4M3T, 4)
MMA_KERNEL_S32(mma_s8_c1, S8T, 1)
MMA_KERNEL_S32(mma_s8_c4, S8T, 4)
MMA_KERNEL_F32V(mma_e4m3v_c1, E4M3T, 1)
MMA_KERNEL_F32V(mma_e4m3v_c4, E4M3T, 4)
MMA_KERNEL_F32V(mma_f16v_c1, F16T, 1)
MMA_KERNEL_F32V(mma_f16v_c4, F16T, 4)
MMA_KERNEL_F64(mma_f64_c1, 1)
MMA_KERNEL_F64(mma_f64_c4, 4)

// ---------------------------------------------------------------- ldmatrix.x4
// 8 KiB of shared memory filled with `fill`: 0 (for the chain), computed from the runtime `iters` (> 0) so
// that the compiler cannot fold it. Lane i addresses row i of the 4 8x8
// matrices: 16-byte rows back to back, conflict-free.
// Latency: the next address is the old one plus the loaded r0 (0): a dependent chain (ldmatrix + add).
extern "C" __global__ void ldmatrix_lat(const unsigned* in, float* sink, long long* clk, int iters) {
    __shared__ __align__(16) unsigned sm[2048];
    unsigned fill = iters < 0 ? in[0] : 0u;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) sm[i] = fill;
    __syncthreads();
    unsigned lane = threadIdx.x & 31;
    unsigned addr = (unsigned)__cvta_generic_to_shared(sm) + lane * 16;
    unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0, acc = 0;
    long long t0 = clk64();
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                         : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
            addr += r0;
        }
    }
    long long t1 = clk64();
    acc = r1 ^ r2 ^ r3 ^ addr;
    record(clk, t0, t1);
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (float)acc;
}
// Throughput: 4 independent ldmatrix.x4 per step (4 different 512-byte tiles), results xor-folded. Each
// address gets z = in[1023] (0, set by the host) added before every load: with loop-invariant addresses
// ptxas keeps the loads out of the loop (only the xors stay).
extern "C" __global__ void ldmatrix_tput(const unsigned* in, float* sink, long long* clk, int iters) {
    __shared__ __align__(16) unsigned sm[2048];
    unsigned fill = in[0], z = in[1023];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) sm[i] = fill + i;
    __syncthreads();
    unsigned lane = threadIdx.x & 31;
    unsigned base = (unsigned)__cvta_generic_to_shared(sm) + lane * 16;
    unsigned ad[4] = {base, base + 512, base + 1024, base + 1536};
    unsigned acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    long long t0 = clk64();
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < UNROLL / 4; u++) {
#pragma unroll
            for (int c = 0; c < 4; c++) {
                unsigned r0, r1, r2, r3;
                ad[c] += z;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(ad[c]));
                acc0 ^= r0; acc1 ^= r1; acc2 ^= r2; acc3 ^= r3;
            }
        }
    }
    long long t1 = clk64();
    record(clk, t0, t1);
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (float)(acc0 ^ acc1 ^ acc2 ^ acc3);
}

// ---------------------------------------------------------------- cp.async
__device__ __forceinline__ void cp_async16(unsigned saddr, const void* g) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(saddr), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }

// Bandwidth: each block streams `iters` chunks of blockDim.x*16 bytes (chunk k of block b at element
// (k*gridDim.x + b)*blockDim.x, wrapped by `mask`, a power of two minus one, in 16-byte elements) into a
// 4-stage shared ring: issue chunk k, commit, wait until at most 3 groups are pending.
#define CPA_STAGES 4
extern "C" __global__ void cp_async_bw(const uint4* src, float* sink, long long* clk, int iters,
                                       unsigned long long mask) {
    extern __shared__ __align__(16) uint4 ring[];       // CPA_STAGES * blockDim.x entries
    unsigned nt = blockDim.x;
    unsigned sbase = (unsigned)__cvta_generic_to_shared(ring);
    long long t0 = clk64();
    for (int k = 0; k < iters; k++) {
        size_t gi = (((size_t)k * gridDim.x + blockIdx.x) * nt + threadIdx.x) & mask;
        cp_async16(sbase + ((k % CPA_STAGES) * nt + threadIdx.x) * 16, src + gi);
        cp_commit();
        cp_wait<CPA_STAGES - 1>();
    }
    cp_wait<0>();
    long long t1 = clk64();
    __syncthreads();
    record(clk, t0, t1);
    uint4 v = ring[threadIdx.x];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = (float)(v.x ^ v.y ^ v.z ^ v.w);
}

// Latency: one thread (launch 1x1) chases a chain: cp.async.cg 16 B of node `idx` (nxt + idx*4 words) into
// shared, commit, wait_group 0, read the next index from shared (ld.volatile.shared). Two passes over the same
// `iters` nodes from node 0: pass 0 (cold when the host flushed L2 first) and pass 1 (L2 hits).
// clk[0..2] = pass 0 {t0, t1, smid}, clk[3..5] = pass 1.
extern "C" __global__ void cp_async_lat(const unsigned* nxt, float* sink, long long* clk, int iters) {
    __shared__ __align__(16) unsigned buf[4];
    unsigned sb = (unsigned)__cvta_generic_to_shared(buf);
    unsigned idx = 0;
    for (int pass = 0; pass < 2; pass++) {
        idx = 0;
        long long t0 = clk64();
        for (int k = 0; k < iters; k++) {
            cp_async16(sb, nxt + (size_t)idx * 4);
            cp_commit();
            cp_wait<0>();
            idx = *(volatile unsigned*)buf;
        }
        long long t1 = clk64();
        if (threadIdx.x == 0) { clk[3 * pass] = t0; clk[3 * pass + 1] = t1; clk[3 * pass + 2] = smid(); }
    }
    sink[threadIdx.x] = (float)idx;
}
