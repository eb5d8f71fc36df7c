// C = A * B for n x n row-major matrices, tiled through shared memory.
template <int T>
__device__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < (n + T - 1) / T; ++t) {
        int ac = t * T + tx, br = t * T + ty;
        As[ty][tx] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
        Bs[ty][tx] = (br < n && col < n) ? B[br * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}
extern "C" __global__ void matmul16(const float *A, const float *B, float *C, int n) { matmul_tiled<16>(A, B, C, n); }
extern "C" __global__ void matmul32(const float *A, const float *B, float *C, int n) { matmul_tiled<32>(A, B, C, n); }
