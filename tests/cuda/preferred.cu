/* A preferred location on the device keeps pages from eviction (run with a preset whose
 * VRAM is small): `a`, a quarter of VRAM, prefers device 0; a kernel on `b`, as big as all
 * of VRAM, queued after the kernel on `a` with no synchronization between, needs room and
 * evicts its own pages rather than `a`'s, so the third kernel finds every page of `a`
 * still there (runtime_programs checks what moved). The host checks both after. */
#include <cuda_runtime.h>

#include "check.cuh"

__device__ void add(unsigned *x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] += 1;
}

// The kernels' names tell the statistics which ran.
__global__ void first_on_a(unsigned *x, size_t n) { add(x, n); }
__global__ void all_of_b(unsigned *x, size_t n) { add(x, n); }
__global__ void again_on_a(unsigned *x, size_t n) { add(x, n); }

int main() {
    size_t free_b = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_b, &total));
    const size_t an = total / 4 / sizeof(unsigned), bn = total / sizeof(unsigned);
    unsigned *a = nullptr, *b = nullptr;
    CHECK(cudaMallocManaged(&a, an * sizeof(unsigned)));
    CHECK(cudaMallocManaged(&b, bn * sizeof(unsigned)));
    for (size_t i = 0; i < an; i++)
        a[i] = (unsigned)i;
    for (size_t i = 0; i < bn; i++)
        b[i] = (unsigned)i;
    CHECK(cudaMemAdvise(a, an * sizeof(unsigned), cudaMemAdviseSetPreferredLocation, 0));
    first_on_a<<<64, 256>>>(a, an);
    all_of_b<<<64, 256>>>(b, bn);
    again_on_a<<<64, 256>>>(a, an);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    size_t wrong = 0;
    for (size_t i = 0; i < an; i++)
        wrong += a[i] != (unsigned)i + 2;
    for (size_t i = 0; i < bn; i++)
        wrong += b[i] != (unsigned)i + 1;
    TRUE(wrong == 0);
    CHECK(cudaFree(b));
    CHECK(cudaFree(a));
    printf("VRAM %zu MiB, a %zu MiB, b %zu MiB\n", total >> 20, (an * sizeof(unsigned)) >> 20,
           (bn * sizeof(unsigned)) >> 20);
    return report();
}
