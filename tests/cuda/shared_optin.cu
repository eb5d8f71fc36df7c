// Shared memory beyond 48 KiB per block: a kernel opts in with
// cudaFuncAttributeMaxDynamicSharedMemorySize, up to the device's
// cudaDevAttrMaxSharedMemoryPerBlockOptin (96 KiB on V100, 163 KiB on A100, 227 KiB on
// H100/H200); without it, or past it, the launch or the attribute is refused.
#include "check.cuh"

__global__ void reverse(const float *in, float *out, int n) {
    extern __shared__ float buf[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = in[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = buf[n - 1 - i];
}

int main() {
    int optin = 0, per_block = 0;
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, 0));
    printf("optin %d per_block %d\n", optin, per_block);
    TRUE(per_block == 48 * 1024 && optin >= per_block);
    const int n = optin / (int)sizeof(float);
    const size_t bytes = (size_t)n * sizeof(float);
    float *h = (float *)malloc(bytes), *in, *out;
    for (int i = 0; i < n; i++) h[i] = (float)i;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemcpy(in, h, bytes, cudaMemcpyHostToDevice));
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, reverse));
    TRUE(a.maxDynamicSharedSizeBytes == 48 * 1024);
    if (optin > per_block) {
        // Without opting in, more than 48 KiB is refused.
        reverse<<<1, 256, bytes>>>(in, out, n);
        EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
    }
    EXPECT(cudaFuncSetAttribute(reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1),
           cudaErrorInvalidValue);
    EXPECT(cudaGetLastError(), cudaErrorInvalidValue); // the refusal is the last error, once
    CHECK(cudaFuncSetAttribute(reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    CHECK(cudaFuncGetAttributes(&a, reverse));
    TRUE(a.maxDynamicSharedSizeBytes == optin);
    reverse<<<1, 256, bytes>>>(in, out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, out, bytes, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != (float)(n - 1 - i);
    TRUE(bad == 0);
    // One more byte than opted into is refused at launch.
    reverse<<<1, 256, bytes + 4>>>(in, out, n);
    EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    free(h);
    return report();
}
