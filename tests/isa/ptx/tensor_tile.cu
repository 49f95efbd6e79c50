// A 16x8x16 tensor-core tile as CUDA code writes it: cp.async through cuda_pipeline.h (nvcc emits the
// cp.async PTX), ldmatrix and mma.sync through inline asm, and the tf32 / fp8 / bf16 conversion
// intrinsics (nvcc emits the cvt PTX). tests/isa/test_isa_nvcc_tensor.py runs tensor_tile.ptx.
// Regenerate: nvcc -arch=sm_90 -ptx tensor_tile.cu -o tensor_tile.ptx
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_pipeline.h>
#include <mma.h>

extern "C" __global__ void tile(const half *A, const half *BT, float *D) {
    __shared__ __align__(16) half sA[16 * 16];
    __shared__ __align__(16) half sB[8 * 16];
    int l = threadIdx.x;
    __pipeline_memcpy_async(&sA[l * 8], &A[l * 8], 16);
    if (l < 16) __pipeline_memcpy_async(&sB[l * 8], &BT[l * 8], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    unsigned a[4], b[2];
    unsigned addr_a = (unsigned)__cvta_generic_to_shared(&sA[(l % 16) * 16 + (l / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(addr_a));
    unsigned addr_b = (unsigned)__cvta_generic_to_shared(&sB[(l % 8) * 16 + ((l / 8) % 2) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(addr_b));
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    int g = l >> 2, t = l & 3;
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

extern "C" __global__ void convert(const float *x, const float *y, unsigned *tf32, unsigned short *e4m3x2,
                                   unsigned short *e5m2x2, unsigned *bf16x2, unsigned *back) {
    int l = threadIdx.x;
    tf32[l] = __float_as_uint(nvcuda::wmma::__float_to_tf32(x[l]));
    __nv_fp8x2_storage_t p = __nv_cvt_float2_to_fp8x2(make_float2(y[l], x[l]), __NV_SATFINITE, __NV_E4M3);
    e4m3x2[l] = p;
    e5m2x2[l] = __nv_cvt_float2_to_fp8x2(make_float2(y[l], x[l]), __NV_SATFINITE, __NV_E5M2);
    __nv_bfloat162 h = __float22bfloat162_rn(make_float2(y[l], x[l]));
    bf16x2[l] = *reinterpret_cast<unsigned *>(&h);
    __half2_raw r = __nv_cvt_fp8x2_to_halfraw2(p, __NV_E4M3);
    back[l] = (unsigned)r.x | ((unsigned)r.y << 16);
}
