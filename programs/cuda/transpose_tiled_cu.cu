// transpose_tiled: out = in^T for an n x n row-major float matrix through a shared-memory tile.
// A 32x8 block moves a 32x32 tile: it reads rows of the tile (coalesced) into shared memory,
// synchronises, and writes rows of the transposed tile (coalesced). The tile has one column of
// padding (TILE + 1) so that reading a column of it hits 32 different banks.
// Build: see build.sh (nvcc -arch=sm_90 -ptx -lineinfo)
#define TILE 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_tiled(const float* in, float* out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (x < n && y + j < n) {
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
        }
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;   // the transposed tile's origin
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (x < n && y + j < n) {
            out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}
