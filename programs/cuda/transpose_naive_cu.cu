// transpose_naive: out = in^T for an n x n row-major float matrix, one element per thread.
// Reads are coalesced (consecutive threads read consecutive columns of a row), writes are strided
// by n (consecutive threads write down a column): the slow baseline for transpose_tiled_cu.
// Build: see build.sh (nvcc -arch=sm_90 -ptx -lineinfo)
#define TILE 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_naive(const float* in, float* out, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (x < n && y + j < n) {
            out[x * n + (y + j)] = in[(y + j) * n + x];
        }
    }
}
