// Device assert: a failed assertion prints CUDA's message on standard error at the next
// synchronization and stops the grid with cudaErrorAssert, a sticky error until
// cudaDeviceReset. Passing assertions cost nothing.
#include "check.cuh"
#include <cassert>

__global__ void within(const int *v, int n, int limit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(v[i] < limit);
}

int main() {
    int h[64], *d;
    for (int i = 0; i < 64; i++) h[i] = i;
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    within<<<2, 32>>>(d, 64, 64);
    CHECK(cudaDeviceSynchronize());

    within<<<2, 32>>>(d, 64, 37); // fails at i = 37 .. 63: thread 5 .. 31 of block 1
    EXPECT(cudaGetLastError(), cudaSuccess);
    EXPECT(cudaDeviceSynchronize(), cudaErrorAssert);
    EXPECT(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaErrorAssert);
    EXPECT(cudaGetLastError(), cudaErrorAssert);
    printf("%s: %s\n", cudaGetErrorName(cudaErrorAssert), cudaGetErrorString(cudaErrorAssert));

    CHECK(cudaDeviceReset());
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    within<<<1, 64>>>(d, 64, 1000);
    CHECK(cudaDeviceSynchronize());
    return report();
}
