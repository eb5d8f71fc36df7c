// Unified virtual addressing: pinned host memory whose host pointer is its device
// pointer (a kernel writes through it), cudaMemcpyDefault inferring every direction
// (pageable, pinned and device memory; 1D, 2D, asynchronous), pointer attributes. With
// RGDEV_UVA=0 the device has no unified addressing and cudaMemcpyDefault is
// cudaErrorInvalidValue, as in CUDA.
#include "check.cuh"
#include <cstring>
#include <vector>

__global__ void fill(int *p, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int attr = -1;
    CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrUnifiedAddressing, 0));
    TRUE(attr == prop.unifiedAddressing);
    const int n = 3000;
    const size_t bytes = n * sizeof(int);
    std::vector<int> a(n), b(n, -1);
    for (int i = 0; i < n; i++) a[i] = 7 * i + 1;
    int *d, *d2;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMalloc(&d2, bytes));

    if (!prop.unifiedAddressing) {
        EXPECT(cudaMemcpy(d, a.data(), bytes, cudaMemcpyDefault), cudaErrorInvalidValue);
        printf("no unified addressing\n");
        return report();
    }
    printf("unified addressing\n");

    // Pinned memory: the host pointer is the device pointer; a kernel writes through it.
    int *h;
    CHECK(cudaMallocHost(&h, bytes));
    void *hd = nullptr;
    CHECK(cudaHostGetDevicePointer(&hd, h, 0));
    TRUE(hd == (void *)h);
    fill<<<(n + 255) / 256, 256>>>(h, n, 100);
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 100 + i;
    TRUE(bad == 0);
    int *h2;
    CHECK(cudaHostAlloc(&h2, bytes, cudaHostAllocMapped));
    TRUE((char *)h2 >= (char *)h + bytes || (char *)h2 + bytes <= (char *)h);

    // cudaMemcpyDefault: pageable -> device -> device -> pageable, pinned both ways,
    // host to host.
    CHECK(cudaMemcpy(d, a.data(), bytes, cudaMemcpyDefault));
    CHECK(cudaMemcpy(d2, d, bytes, cudaMemcpyDefault));
    CHECK(cudaMemcpy(b.data(), d2, bytes, cudaMemcpyDefault));
    TRUE(memcmp(a.data(), b.data(), bytes) == 0);
    CHECK(cudaMemcpy(h2, d, bytes, cudaMemcpyDefault));
    TRUE(memcmp(h2, a.data(), bytes) == 0);
    for (int i = 0; i < n; i++) h2[i] = -i;
    CHECK(cudaMemcpy(d2, h2, bytes, cudaMemcpyDefault));
    std::vector<int> c(n);
    CHECK(cudaMemcpy(c.data(), d2, bytes, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += c[i] != -i;
    TRUE(bad == 0);
    CHECK(cudaMemcpy(c.data(), a.data(), bytes, cudaMemcpyDefault));
    TRUE(memcmp(a.data(), c.data(), bytes) == 0);

    // Asynchronous, on a stream, from pinned memory; then 2D with a pitched allocation.
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    for (int i = 0; i < n; i++) h[i] = 3 * i;
    CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyDefault, s));
    CHECK(cudaMemcpyAsync(h2, d, bytes, cudaMemcpyDefault, s));
    CHECK(cudaStreamSynchronize(s));
    bad = 0;
    for (int i = 0; i < n; i++) bad += h2[i] != 3 * i;
    TRUE(bad == 0);
    const int w = 100, rows = 20;
    int *pd;
    size_t pitch;
    CHECK(cudaMallocPitch(&pd, &pitch, w * sizeof(int), rows));
    CHECK(cudaMemcpy2D(pd, pitch, a.data(), w * sizeof(int), w * sizeof(int), rows, cudaMemcpyDefault));
    std::vector<int> back(w * rows);
    CHECK(cudaMemcpy2D(back.data(), w * sizeof(int), pd, pitch, w * sizeof(int), rows, cudaMemcpyDefault));
    TRUE(memcmp(back.data(), a.data(), w * rows * sizeof(int)) == 0);

    // Pointer attributes tell each kind of memory apart.
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, h));
    TRUE(pa.type == cudaMemoryTypeHost && pa.devicePointer == (void *)h && pa.hostPointer == (void *)h);
    CHECK(cudaPointerGetAttributes(&pa, d + 10));
    TRUE(pa.type == cudaMemoryTypeDevice && pa.devicePointer == (void *)(d + 10) && pa.device == 0);
    CHECK(cudaPointerGetAttributes(&pa, a.data()));
    TRUE(pa.type == cudaMemoryTypeUnregistered);

    CHECK(cudaFreeHost(h));
    CHECK(cudaFreeHost(h2));
    // The freed range can be handed out again, and works.
    int *h3;
    CHECK(cudaMallocHost(&h3, bytes));
    fill<<<(n + 255) / 256, 256>>>(h3, n, 5);
    CHECK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < n; i++) bad += h3[i] != 5 + i;
    TRUE(bad == 0);
    CHECK(cudaFreeHost(h3));
    CHECK(cudaFree(pd));
    CHECK(cudaFree(d));
    CHECK(cudaFree(d2));
    CHECK(cudaStreamDestroy(s));
    return report();
}
