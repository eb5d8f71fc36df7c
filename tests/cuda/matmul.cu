// Tiled matrix multiply with __shared__ tiles and __syncthreads(), sizes that are not
// multiples of the tile, against a CPU reference.
#include "check.cuh"
#include <cmath>

#define TILE 16

__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && ak < K ? A[row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = bk < K && col < N ? B[bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
    const int M = 70, N = 53, K = 91;
    float *hA = new float[M * K], *hB = new float[K * N], *hC = new float[M * N];
    for (int i = 0; i < M * K; i++) hA[i] = (float)((i * 7) % 13) - 6.0f;
    for (int i = 0; i < K * N; i++) hB[i] = (float)((i * 5) % 11) * 0.25f;
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, M * K * sizeof(float)));
    CHECK(cudaMalloc(&B, K * N * sizeof(float)));
    CHECK(cudaMalloc(&C, M * N * sizeof(float)));
    CHECK(cudaMemcpy(A, hA, M * K * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB, K * N * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul<<<grid, block>>>(A, B, C, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC, C, M * N * sizeof(float), cudaMemcpyDeviceToHost));
    // Every product and partial sum is a multiple of 1/4 below 2^21: exact in float, so
    // the order of summation does not matter and the comparison is exact.
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = 0.0f;
            for (int k = 0; k < K; k++) want += hA[i * K + k] * hB[k * N + j];
            bad += hC[i * N + j] != want;
        }
    TRUE(bad == 0);
    printf("C[69][52] = %.2f\n", hC[M * N - 1]);
    return report();
}
