// NVIDIA's mma.h (rgdev cc --cuda-path): a 64x64x64 f16 GEMM tiled over warps with
// nvcuda::wmma, against the host (integers: exact).
#include <mma.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <vector>
using namespace nvcuda;
__global__ void gemm(const __half *a, const __half *b, float *d, int n) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (n / 16), tn = warp % (n / 16);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * n + k, n);
        wmma::load_matrix_sync(fb, b + tn * 16 * n + k, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}
int main() {
    const int n = 64;
    std::vector<__half> a(n * n), b(n * n);
    for (int i = 0; i < n * n; i++) { a[i] = __float2half((float)((i * 7) % 13 - 6)); b[i] = __float2half((float)((i * 5) % 11 - 5)); }
    __half *da, *db; float *dd;
    cudaMalloc(&da, n * n * 2); cudaMalloc(&db, n * n * 2); cudaMalloc(&dd, n * n * 4);
    cudaMemcpy(da, a.data(), n * n * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), n * n * 2, cudaMemcpyHostToDevice);
    gemm<<<n * n / 256 / 4, 128>>>(da, db, dd, n);
    std::vector<float> d(n * n);
    cudaMemcpy(d.data(), dd, n * n * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) {
        float s = 0; for (int k = 0; k < n; k++) s += __half2float(a[i * n + k]) * __half2float(b[j * n + k]);
        bad += d[i * n + j] != s;
    }
    printf("wmma gemm: %d wrong, %s\n", bad, cudaGetErrorString(cudaGetLastError()));
    return bad != 0;
}
