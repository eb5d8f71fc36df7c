/* Managed memory larger than the GPU's VRAM (run with a preset whose VRAM is small): a
 * kernel touches all of it, so pages migrate in on its faults and others are evicted
 * back to the host to make room, and the host checks every element after synchronizing;
 * then a second kernel and the host take turns again. Prints the VRAM and managed sizes. */
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void bump(unsigned *x, size_t n, unsigned by) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] += by;
}

int main() {
    size_t free_b = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_b, &total));
    const size_t bytes = 2 * total, n = bytes / sizeof(unsigned);
    unsigned *x = nullptr;
    CHECK(cudaMallocManaged(&x, bytes));
    for (size_t i = 0; i < n; i++)
        x[i] = (unsigned)i;
    bump<<<64, 256>>>(x, n, 3);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += x[i] != (unsigned)i + 3;
    TRUE(wrong == 0);
    for (size_t i = 0; i < n; i += 1024)
        x[i] = 0;
    bump<<<64, 256>>>(x, n, 1);
    CHECK(cudaDeviceSynchronize());
    wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += x[i] != (i % 1024 == 0 ? 1u : (unsigned)i + 4);
    TRUE(wrong == 0);
    CHECK(cudaFree(x));
    printf("VRAM %zu MiB, managed %zu MiB\n", total >> 20, bytes >> 20);
    return report();
}
