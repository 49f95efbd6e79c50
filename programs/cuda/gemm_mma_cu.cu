// A tiled fp16 GEMM on tensor cores as CUDA C writes it without libraries (Ampere and Hopper):
// C[M,N] (f32) = A[M,K] (f16, row-major) x B, B given transposed (BT[N,K], row-major). Each block of
// 4 warps computes a 32x16 tile of C, each warp a 16x8 mma tile. The K loop stages 16-wide slices of A
// and B through shared memory with cp.async (cuda_pipeline.h, double-buffered), reads the fragments with
// ldmatrix and multiplies with mma.sync.m16n8k16 (inline PTX). M, N multiples of 32 and 16, K of 16.
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

extern "C" __global__ void gemm_mma(const half *A, const half *BT, float *C, int M, int N, int K) {
    __shared__ __align__(16) half sA[2][32 * 16];
    __shared__ __align__(16) half sB[2][16 * 16];
    int tid = threadIdx.x, warp = tid / 32, l = tid % 32;
    int row0 = blockIdx.y * 32, col0 = blockIdx.x * 16;
    int wm = (warp / 2) * 16, wn = (warp % 2) * 8;
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    int steps = K / 16;
    for (int s = -1; s < steps; ++s) {
        int next = s + 1;               // stage slice `next` (32 + 16 rows of 32 bytes: threads 0..95)
        if (next < steps) {
            int buf = next % 2, k0 = next * 16;
            if (tid < 64) {
                int r = tid / 2, c = (tid % 2) * 8;
                __pipeline_memcpy_async(&sA[buf][r * 16 + c], &A[(size_t)(row0 + r) * K + k0 + c], 16);
            } else if (tid < 96) {
                int r = (tid - 64) / 2, c = (tid % 2) * 8;
                __pipeline_memcpy_async(&sB[buf][r * 16 + c], &BT[(size_t)(col0 + r) * K + k0 + c], 16);
            }
            __pipeline_commit();
        }
        if (s < 0) continue;
        if (next < steps) __pipeline_wait_prior(1); else __pipeline_wait_prior(0);
        __syncthreads();
        int buf = s % 2;
        unsigned a[4], b[2];
        unsigned addr_a = (unsigned)__cvta_generic_to_shared(&sA[buf][(wm + l % 16) * 16 + (l / 16) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(addr_a));
        unsigned addr_b = (unsigned)__cvta_generic_to_shared(&sB[buf][(wn + l % 8) * 16 + ((l / 8) % 2) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(addr_b));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncthreads();                // the next iteration's copies overwrite the buffer read here
    }
    int g = l >> 2, t = l & 3;
    int r = row0 + wm + g, c = col0 + wn + 2 * t;
    C[r * N + c] = d[0];
    C[r * N + c + 1] = d[1];
    C[(r + 8) * N + c] = d[2];
    C[(r + 8) * N + c + 1] = d[3];
}
