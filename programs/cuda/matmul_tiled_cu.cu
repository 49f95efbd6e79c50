// matmul_tiled: C = A @ B for n x n row-major float matrices (n a multiple of TILE).
// Each 16x16 block computes one 16x16 tile of C. It walks the k dimension one tile at a time:
// every thread loads one element of A's tile and one of B's into shared memory, the block
// synchronises, each thread accumulates TILE products from shared memory, and the block
// synchronises again before the tiles are overwritten.
// Build: see build.sh (nvcc -arch=sm_90 -ptx -lineinfo)
#define TILE 16

extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * n + col] = acc;
}
