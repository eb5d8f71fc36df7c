// A program killed after its work: the statistics of what finished before its last
// synchronization are in its statistics file (tests/tests/runtime_programs.rs kills it
// while it sleeps).
#include <cstdio>
#include <unistd.h>

__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x; }

int main() {
    int *d;
    if (cudaMalloc(&d, 256 * sizeof(int)) != cudaSuccess) return 1;
    fill<<<1, 256>>>(d);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    printf("synchronized\n");
    fflush(stdout);
    sleep(60); // killed here
    return 0;
}
