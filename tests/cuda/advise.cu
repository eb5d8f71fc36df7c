// Managed memory advice acted on (cudaMemAdvise): a preferred location on the host, a
// device that accesses the memory, read-mostly duplication. The results are checked here;
// what moved is checked from the statistics (runtime_programs::managed_memory_advice).
#include <cstring>
#include <cuda_runtime.h>
#include "check.cuh"

// The kernels' names tell the statistics which case ran.
__global__ void on_host(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 2.0f + 1.0f;
}
__global__ void accessed(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 3.0f;
}
__global__ void read_only(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + x[(i + 1) % n];
}
__global__ void then_write(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = -x[i];
}
__global__ void unadvised(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

int main() {
    const int n = 16 * 1024; // 64 KiB: 16 pages
    const size_t bytes = n * sizeof(float);
    float *x = nullptr, *out = nullptr;
    CHECK(cudaMallocManaged(&x, bytes));
    CHECK(cudaMalloc(&out, bytes));
    for (int i = 0; i < n; i++) x[i] = (float)(i % 100);

    // Preferred location the host: the kernel reaches the pages where they are.
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
    on_host<<<n / 256, 256>>>(x, n);
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; i++) bad += x[i] != (float)(i % 100) * 2.0f + 1.0f;
    TRUE(bad == 0);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseUnsetPreferredLocation, 0));

    // Accessed by device 0: mapped where it lives, too.
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetAccessedBy, 0));
    accessed<<<n / 256, 256>>>(x, n);
    CHECK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < n; i++) bad += x[i] != (float)(i % 100) * 2.0f + 4.0f;
    TRUE(bad == 0);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseUnsetAccessedBy, 0));

    // Read-mostly: reads get a copy, the host keeps the page; a write takes it over.
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetReadMostly, 0));
    read_only<<<n / 256, 256>>>(x, out, n);
    CHECK(cudaDeviceSynchronize());
    float *h = (float *)malloc(bytes);
    CHECK(cudaMemcpy(h, out, bytes, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != x[i] + x[(i + 1) % n];
    TRUE(bad == 0);
    then_write<<<n / 256, 256>>>(x, n);
    CHECK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < n; i++) bad += x[i] != -((float)(i % 100) * 2.0f + 4.0f);
    TRUE(bad == 0);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseUnsetReadMostly, 0));

    // No advice: the pages migrate.
    unadvised<<<n / 256, 256>>>(x, n);
    CHECK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < n; i++) bad += x[i] != 1.0f - ((float)(i % 100) * 2.0f + 4.0f);
    TRUE(bad == 0);
    // 2D copies with paged managed memory on either side: the host's, once the pages are
    // home (here after a kernel left them on the device).
    const int w = 64, rows = 8;
    float *d2 = nullptr;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(&d2, &pitch, w * sizeof(float), rows));
    unadvised<<<n / 256, 256>>>(x, n);
    CHECK(cudaMemcpy2D(d2, pitch, x, w * sizeof(float), w * sizeof(float), rows, cudaMemcpyDefault));
    CHECK(cudaMemcpy2D(x + 4096, w * sizeof(float), d2, pitch, w * sizeof(float), rows, cudaMemcpyDeviceToDevice));
    CHECK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < w * rows; i++) bad += x[4096 + i] != x[i] || x[i] != 2.0f - ((float)(i % 100) * 2.0f + 4.0f);
    TRUE(bad == 0);
    CHECK(cudaFree(d2));
    free(h);
    CHECK(cudaFree(out));
    CHECK(cudaFree(x));
    return report();
}
